#!/usr/bin/env node
// Thin entry: all parsing and behaviour live in harness/cli, bundled from the sources into
// dist/bundle/ by `npm run build` (build/bundle.ts says why). One entry, the bundle.
import { setFlagsFromString } from "node:v8";

// Signals first (issue 38): until a command's own handling takes over (harness/cli/interrupt.ts,
// installed when the command starts), SIGINT, SIGTERM or SIGHUP ends the process with the code the
// CLI gives it (130, 143, 129) and one line, not Node's silent death by signal while the bundle
// loads; nothing has been written then. Once the CLI listens as well, this listener leaves the
// signal to it. (`node:v8` above is a built-in: importing it runs nothing of ours.)
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
  process.on(signal, () => {
    if (process.listenerCount(signal) > 1) return;
    process.stderr.write(`parity: interrupted (${signal}) while starting: stopped, nothing written\n`);
    process.exit(code);
  });
}

// V8 optimises a function with TurboFan, on background threads, once it has run about
// --interrupt-budget bytes of bytecode (67584 on Node 20). A `parity` run is short: those compiles
// cost more CPU than the code they produce saves (bench/README.md, "V8's tiering"). Sixteen times
// the budget keeps them for what stays hot in a long run (the matrix, large recordings). Set before
// the CLI's modules are loaded, so all of its functions get it; no effect on what any code does.
setFlagsFromString("--interrupt-budget=1081344");

const { main } = await import("../dist/bundle/cli.js");

process.exitCode = await main(process.argv.slice(2));
