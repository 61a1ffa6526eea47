/**
 * The gate's flags in one module (issue 40 build point 4): what `check`, `review` and `allow
 * --prune` take from their flags to run the gate (harness/check/gate.ts), the flags its advice
 * repeats, and the gate's context from the CLI's. Commands import this module, never each other.
 */
import { availableParallelism } from "node:os";
import path from "node:path";
import type { CliContext } from "./context.js";
import type { RunFlags } from "../report/advice.js";
import { createCheckProgress } from "../progress/check-progress.js";
import { parseShard } from "../check/shard.js";
import type { GateContext, GateOptions } from "../check/gate-start.js";
import { ORACLES_DIR } from "../defaults.js";
import { createOutputDirFlag, positiveIntegerFlag, replayOptionsOf, resolveReplayFlags } from "./flag-checks.js";
import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";
import { resolveSelection, stringFlag, stringsFlag, type ParsedFlags } from "./options.js";

/** Everything the gate (`check`, `review`, `allow --prune`) takes from its flags: the gate's options but its write policy, which the command decides (`resolveWritePolicy`). */
export type GateFlags = Omit<GateOptions, "write">;

/** The flags of a gate run that its advice repeats, as the user typed them. */
export function runFlagsOf(args: ParsedFlags): RunFlags {
  const recordings = stringsFlag(args, "recordings");
  const allowlist = stringsFlag(args, "allowlist");
  const flags: RunFlags = {};
  if (recordings.length > 0) flags.recordings = recordings;
  if (allowlist.length > 0) flags.allowlist = allowlist;
  for (const key of ["lanes", "module", "cells", "timeout"] as const) {
    const value = args[key];
    if (typeof value === "string" || typeof value === "number") flags[key] = String(value);
  }
  return flags;
}

/**
 * The gate's flags, in the order they are checked: `--jobs`, `--timeout`, `--module`, `--cells`,
 * `--recordings`, `--shard`; then the plain ones.
 * @throws UsageError naming the first bad flag and its value
 */
export async function resolveGateOptions(args: ParsedFlags, cwd: string): Promise<GateFlags> {
  const jobs = positiveIntegerFlag("jobs", args.jobs, "cells") ?? availableParallelism();
  const replay = await resolveReplayFlags(args, cwd);
  const selection = resolveSelection(args, cwd);
  const shardText = stringFlag(args, "shard");
  const lanes = stringFlag(args, "lanes");
  const dump = stringFlag(args, "dump-dir");
  if (lanes !== undefined) requireDirectoryFlag("lanes", lanes, path.resolve(cwd, lanes));
  if (dump !== undefined) {
    requireDirectoryFlag("dump-dir", dump, path.resolve(cwd, dump));
    requireFreeSpace(`--dump-dir ${dump}`, path.resolve(cwd, dump));
  }
  return {
    jobs,
    replay: replayOptionsOf(replay),
    selection,
    ...(shardText !== undefined ? { shard: parseShard(shardText) } : {}),
    allowlistFiles: stringsFlag(args, "allowlist"),
    lanesDir: path.resolve(cwd, lanes ?? ORACLES_DIR),
    lanesGiven: lanes !== undefined,
    ...(dump !== undefined ? { dumpDir: { value: dump, dir: path.resolve(cwd, dump) } } : {}),
    batch: args.batch !== false,
    flags: runFlagsOf(args),
  };
}

/**
 * The gate's context from the CLI's: progress on standard error when it is shown, and a
 * `--dump-dir` that cannot be created reported as one line naming the flag.
 */
export function gateContextOf(ctx: CliContext): GateContext {
  const stream = ctx.progress;
  return {
    cwd: ctx.cwd,
    ci: ctx.ci,
    createDumpDir: (value, dir) => createOutputDirFlag("dump-dir", value, dir),
    ...(stream !== undefined ? { progress: (total: number) => createCheckProgress(stream, total) } : {}),
  };
}
