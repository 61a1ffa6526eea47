#!/usr/bin/env node
// Thin entry: all parsing and behaviour live in harness/cli, compiled to dist/ and bundled per
// command into dist/bundle/ by `npm run build` (build/bundle.ts says why). The bundle is used
// only when it is at least as new as the compiled tree: after a bare `tsc` it would be stale.
import { statSync } from "node:fs";

const bundle = new URL("../dist/bundle/cli.js", import.meta.url);
const compiled = new URL("../dist/harness/cli/main.js", import.meta.url);
let fresh = false;
try {
  fresh = statSync(bundle).mtimeMs >= statSync(compiled).mtimeMs;
} catch {
  // No bundle (or no compiled tree): the compiled tree is the one to run.
}
const { main } = await import(fresh ? bundle.href : compiled.href);

process.exitCode = await main(process.argv.slice(2));
