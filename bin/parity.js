#!/usr/bin/env node
// Thin entry: all parsing and behaviour live in harness/cli, compiled to dist/ and bundled
// per command into dist/bundle/ by `npm run build` (build/bundle.ts says why).
import { main } from "../dist/bundle/cli.js";

process.exitCode = await main(process.argv.slice(2));
