#!/usr/bin/env node
// Thin entry: all parsing and behaviour live in harness/cli, bundled from the sources into
// dist/bundle/ by `npm run build` (build/bundle.ts says why). One entry, the bundle.
import { setFlagsFromString } from "node:v8";

// V8 optimises a function with TurboFan, on background threads, once it has run about
// --interrupt-budget bytes of bytecode (67584 on Node 20). A `parity` run is short: those compiles
// cost more CPU than the code they produce saves (bench/README.md, "V8's tiering"). Sixteen times
// the budget keeps them for what stays hot in a long run (the matrix, large recordings). Set before
// the CLI's modules are loaded, so all of its functions get it; no effect on what any code does.
setFlagsFromString("--interrupt-budget=1081344");

const { main } = await import("../dist/bundle/cli.js");

process.exitCode = await main(process.argv.slice(2));
