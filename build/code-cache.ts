/**
 * The CLI as one script run from a V8 code cache (build/README.md): `npm run build` bundles the
 * CLI into one CommonJS file whose whole text is a function expression ({@link CLI_SCRIPT}), then
 * compiles it as `bin/parity.js` does, runs `parity check --help` in this process (no output) and
 * writes what V8 compiled by then beside it ({@link CODE_CACHE_SUFFIX}). `bin/parity.js` hands
 * that cache to `vm.Script`; V8 checks it against its version, its flags and the source and
 * compiles from the source when it rejects it, so a stale or foreign cache costs time, never a
 * wrong result.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";

/** The CLI script `bin/parity.js` runs, relative to the package root. */
export const CLI_SCRIPT = "dist/bundle/cli.script.js";

/** What the code cache of a script is named: `<script>.cache`, beside it. */
export const CODE_CACHE_SUFFIX = ".cache";

/**
 * The script's first and last lines (esbuild's banner and footer): the CommonJS bundle inside a
 * function expression of CommonJS's five module variables, so that `vm.Script` (which has no
 * `require` of its own) evaluates to the function and the loader passes them in. The function is
 * strict, as the ES modules it is bundled from are: esbuild's own `"use strict"` comes after the
 * banner's lines, where it is no directive.
 */
export const CLI_SCRIPT_HEAD = '(function (exports, require, module, __filename, __dirname) { "use strict";';
export const CLI_SCRIPT_TAIL = "})";

/** What the script's `module.exports` holds: the CLI's `main` (harness/cli/main.ts). */
interface CliExports {
  main(argv: string[], ctx?: { out(text: string): void; err(text: string): void }): Promise<number>;
}

/**
 * Compiles the script at `file` (absolute) and evaluates it, as `bin/parity.js` does; `cachedData`
 * is V8's code cache of it, or undefined. Returns the script (for its code cache) and its exports.
 */
export function loadCliScript(file: string, cachedData?: Buffer): { script: vm.Script; exports: CliExports } {
  const script = new vm.Script(readFileSync(file, "utf8"), { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
  const module = { exports: {} as CliExports };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, path.dirname(file));
  return { script, exports: module.exports };
}

/**
 * Writes the code cache of the CLI script at `file` (absolute) to `<file>.cache`, atomically
 * (temp file + rename), after a `check --help` run in this process: V8 then holds the start-up
 * path and the `check` command's module bodies compiled, not only the script's top level.
 * @throws what the run throws, or an Error when it does not exit 0 (a broken bundle fails the build)
 */
export async function writeCodeCache(file: string): Promise<void> {
  const { script, exports } = loadCliScript(file);
  let said = "";
  const code = await exports.main(["check", "--help"], { out: () => undefined, err: (text) => void (said += text) });
  if (code !== 0) throw new Error(`${file}: check --help exited ${code} while warming the code cache: ${said.trim()}`);
  const temp = `${file}${CODE_CACHE_SUFFIX}.tmp-${process.pid}`;
  writeFileSync(temp, script.createCachedData());
  renameSync(temp, `${file}${CODE_CACHE_SUFFIX}`);
}
