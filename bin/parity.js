#!/usr/bin/env node
// Thin entry: all parsing and behaviour live in harness/cli, bundled from the sources into
// dist/bundle/ by `npm run build` (build/bundle.ts says why). One entry, the bundle.
const { main } = await import("../dist/bundle/cli.js");

process.exitCode = await main(process.argv.slice(2));
