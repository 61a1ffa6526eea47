#!/usr/bin/env node
// Thin entry: all parsing and behaviour live in harness/cli, bundled from the sources into one
// script by `npm run build` and run from V8's code cache written beside it (build/code-cache.ts
// says why). One entry, the bundle. A cache V8 rejects (another Node, other flags) is ignored.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const file = fileURLToPath(new URL("../dist/bundle/cli.script.js", import.meta.url));
let cachedData;
try {
  cachedData = readFileSync(`${file}.cache`);
} catch {
  // No cache (a build that could not write it): V8 compiles from the source.
}
const script = new vm.Script(readFileSync(file, "utf8"), { filename: file, cachedData });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));

process.exitCode = await module.exports.main(process.argv.slice(2));
