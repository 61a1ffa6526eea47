/**
 * Checks of command-line flag values that commands share, run before any replay or write, so
 * a bad value is exit 2 with one line naming the flag and the value given (docs/design/00-product.md, CLI:
 * exit codes), never a run in which every cell fails.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { PROVIDER_BRIDGE_EXPORT_NAME } from "../../stack/bridge-kit/define.js";
import { InfrastructureTimeoutError, UsageError } from "../errors.js";
import { DirectoryCreateError, ensureDir, FileWriteError } from "../recording/atomic-write.js";
import { probeBridgeModule } from "./module-probe.js";
import type { Scheduler } from "../../stack/bridge-kit/scheduler.js";
import type { AgentProcessKind } from "../replay/bridge/launch.js";
import { stringFlag, type ParsedFlags } from "./options.js";

/**
 * Parses a flag that must be a whole number ≥ 1 (`--timeout` in ms, `--jobs`). The flag is
 * declared as a string so the message can quote what was typed (yargs turns `abc` into NaN).
 *
 * @param flag the flag name without dashes.
 * @param value the parsed value: undefined when the flag was not given.
 * @param unit what the number counts, for the message (e.g. "ms").
 * @throws UsageError `--<flag> <value>: expected a positive whole number of <unit>`.
 */
export function positiveIntegerFlag(flag: string, value: unknown, unit: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = wholeNumber(value);
  if (parsed === null || parsed < 1) throw new UsageError(`--${flag} ${String(value)}: expected a positive whole number of ${unit}`);
  return parsed;
}

/**
 * Resolves a flag naming an existing directory to read from (`check`/`replay --cells`)
 * against `cwd`.
 *
 * @returns the absolute directory.
 * @throws UsageError `--<flag> <value>: directory not found (<abs>)` or `…: not a directory (<abs>)`.
 */
export function existingDirFlag(flag: string, value: string, cwd: string): string {
  const dir = path.resolve(cwd, value);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(`--${flag} ${value}: directory not found (${dir})`);
  }
  if (!isDir) throw new UsageError(`--${flag} ${value}: not a directory (${dir})`);
  return dir;
}

/**
 * Parses a flag that must be a whole number ≥ 0 (`diff --context`, in lines). Declared as a
 * string for the same reason as {@link positiveIntegerFlag}.
 *
 * @throws UsageError `--<flag> <value>: expected a whole number ≥ 0 of <unit>`.
 */
export function nonNegativeIntegerFlag(flag: string, value: unknown, unit: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = wholeNumber(value);
  if (parsed === null) throw new UsageError(`--${flag} ${String(value)}: expected a whole number ≥ 0 of ${unit}`);
  return parsed;
}

/** The digits-only text of `value` as a safe integer, else null. */
function wholeNumber(value: unknown): number | null {
  const text = String(value).trim();
  const parsed = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(parsed) ? parsed : null;
}

/** Node's exit code for a process that ended with a top-level await unsettled. */
const UNSETTLED_TOP_LEVEL_AWAIT = 13;

/**
 * Resolves `--module <file>` against `cwd` and checks that it is a provider bridge module,
 * as the bootstrap will load it (stack/bridge-kit/bootstrap.ts): the file exists, imports,
 * and exports `experimental_providerBridge` (or a default export) with a `handleLine`
 * function. The module is imported in a child process ({@link probeBridgeModule}), so its
 * top-level code never runs in the CLI: one that calls `process.exit` while loading is
 * reported here (exit 2), never taken as the CLI's own exit code.
 *
 * @param probeOptions.scheduler the timer of the load limit (default: the real one; tests pass a fake clock);
 *   `probeOptions.timeoutMs` the limit (default `MODULE_LOAD_TIMEOUT_MS`, ms).
 * @returns the absolute module path.
 * @throws UsageError `--module <value>: no such module (<abs>)`, `…: not a file`,
 *   `…: cannot load: <first line of the error>`, `…: its top level ended the process …`,
 *   `…: its top-level await never settles …` or `…: does not export experimental_providerBridge`;
 *   InfrastructureTimeoutError (exit 4) `…: did not finish loading within …`.
 */
export async function checkBridgeModuleFlag(value: string, cwd: string, flag = "module", probeOptions: { scheduler?: Scheduler; timeoutMs?: number } = {}): Promise<string> {
  const file = path.resolve(cwd, value);
  const where = `--${flag} ${value}`;
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new UsageError(`${where}: no such module (${file})`);
  }
  if (!isFile) throw new UsageError(`${where}: not a file (${file})`);
  const probe = await probeBridgeModule(file, { cwd, ...probeOptions });
  switch (probe.kind) {
    case "bridge":
      return file;
    case "load-error":
      throw new UsageError(`${where}: cannot load: ${probe.message}`);
    case "exited": {
      // Node ends a process whose top-level await can no longer settle (nothing left to settle it) with exit code 13.
      if (probe.signal === null && probe.code === UNSETTLED_TOP_LEVEL_AWAIT) {
        throw new UsageError(`${where}: its top-level await never settles (Node stopped it, exit code 13: nothing was left that could settle it), so the module never finishes loading`);
      }
      const how = probe.signal !== null ? `signal ${probe.signal}` : `exit code ${String(probe.code)}`;
      throw new UsageError(`${where}: its top level ended the process (${how}) while loading; a bridge module must not call process.exit`);
    }
    case "timeout":
      // Still loading at the limit (a top-level await on something that stays pending): no verdict on the module, an infrastructure timeout.
      throw new InfrastructureTimeoutError(`${where}: did not finish loading within ${probe.timeoutMs / 1000} s (its top-level code was still waiting); infrastructure timeout, nothing was replayed`);
    case "no-bridge":
      throw new UsageError(`${where}: does not export ${PROVIDER_BRIDGE_EXPORT_NAME} (a defineProviderBridge(...) value)`);
  }
}

/**
 * Turns a failure to write under an output flag's path into a one-line UsageError naming the
 * flag: `--<flag> <value>: cannot create directory[ <dir>]: ENOENT (…)` (the directory named
 * when it is not the flag's own path), or `--<flag> <value>: cannot write (<errno>): <why>`.
 * Anything else is returned as is.
 *
 * @param resolved the flag's value resolved to an absolute path.
 */
export function outputFlagError(flag: string, value: string, resolved: string, thrown: unknown): unknown {
  const where = `--${flag} ${value}`;
  const dirFailure = thrown instanceof DirectoryCreateError ? thrown : thrown instanceof FileWriteError && thrown.dir !== undefined ? thrown : undefined;
  if (dirFailure !== undefined) {
    const dir = dirFailure.dir ?? resolved;
    return new UsageError(`${where}: cannot create directory${dir === resolved ? "" : ` ${dir}`}: ${dirFailure.errno} (${dirFailure.why})`);
  }
  if (thrown instanceof FileWriteError) {
    return new UsageError(`${where}: ${thrown.problem}${thrown.target === resolved ? "" : ` (${thrown.target})`}`);
  }
  return thrown;
}

/**
 * Creates an output directory named by a flag (`--dump-dir`), once, before any work.
 *
 * @throws UsageError naming the flag when the directory cannot be created (see {@link outputFlagError}).
 */
export async function createOutputDirFlag(flag: string, value: string, resolved: string): Promise<void> {
  try {
    await ensureDir(resolved);
  } catch (thrown) {
    throw outputFlagError(flag, value, resolved, thrown);
  }
}

/** What the replay flags set: `--timeout` (ms), `--module` (absolute, checked), `--cells` (absolute), `--agent-process`. */
export interface ReplayFlags {
  ceilingMs?: number;
  modulePath?: string;
  cellsRoot?: string;
  agentProcess?: AgentProcessKind;
}

/**
 * `--timeout`, `--module` (loaded in a child process to check it is a bridge module), `--cells`, `--agent-process`.
 * @throws UsageError naming the flag and value
 */
export async function resolveReplayFlags(args: ParsedFlags, cwd: string): Promise<ReplayFlags> {
  const ceilingMs = positiveIntegerFlag("timeout", args.timeout, "ms");
  const module = stringFlag(args, "module");
  const modulePath = module === undefined ? undefined : await checkBridgeModuleFlag(module, cwd);
  const cells = stringFlag(args, "cells");
  const cellsRoot = cells === undefined ? undefined : existingDirFlag("cells", cells, cwd);
  // yargs refuses a value outside the choices (FLAGS.agentProcess) before this runs.
  const agentProcess = stringFlag(args, "agentProcess") as AgentProcessKind | undefined;
  return {
    ...(ceilingMs !== undefined ? { ceilingMs } : {}),
    ...(modulePath !== undefined ? { modulePath } : {}),
    ...(cellsRoot !== undefined ? { cellsRoot } : {}),
    ...(agentProcess !== undefined ? { agentProcess } : {}),
  };
}

/** The replay options (harness/replay `ReplayOptions`) the replay flags stand for. */
export function replayOptionsOf(flags: ReplayFlags): { timeouts?: { ceilingMs: number }; modulePath?: string; cellsRoot?: string; agentProcess?: AgentProcessKind } {
  return {
    ...(flags.agentProcess !== undefined ? { agentProcess: flags.agentProcess } : {}),
    ...(flags.ceilingMs !== undefined ? { timeouts: { ceilingMs: flags.ceilingMs } } : {}),
    ...(flags.modulePath !== undefined ? { modulePath: flags.modulePath } : {}),
    ...(flags.cellsRoot !== undefined ? { cellsRoot: flags.cellsRoot } : {}),
  };
}

/**
 * `--timeout` of `conform` and `probe` (ms; the old spelling `--timeout-ms` still read),
 * else `fallback`.
 * @throws UsageError naming the flag and value
 */
export function resolveWaitFlag(args: ParsedFlags, fallback: number): number {
  return positiveIntegerFlag("timeout", args.timeout, "ms") ?? positiveIntegerFlag("timeout-ms", args["timeout-ms"], "ms") ?? fallback;
}
