import { appendFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import type { Argv } from "yargs";
import { EXIT_CODES, UsageError } from "../errors.js";
import { checkExitCode, type CheckRunResult } from "../report/check-report.js";
import { commitHint, whyNotAcceptable } from "../rerecord/accept.js";
import type { CliContext } from "./context.js";
import { selectReporter } from "../report/reporters.js";
import { renderGithubStepSummary } from "../report/github.js";
import type { RunFlags } from "../report/advice.js";
import { createCheckProgress } from "../progress/check-progress.js";
import { parseShard, type CellExtras } from "../check/check-cells.js";
import { runGate, type GateContext, type GateOptions, type GateRun } from "../check/gate.js";
import { acceptPending, firstOutsideProject, nothingWrittenNotice, PENDING_SUFFIX, resolveWritePolicy } from "../check/write-policy.js";
import { ORACLES_DIR, REPORTER } from "../defaults.js";
import { REPORTER_NAMES, type ReporterName } from "../report/reporters.js";
import type { ParityCommand } from "./command.js";
import { createOutputDirFlag, positiveIntegerFlag, replayOptionsOf, resolveReplayFlags } from "./flag-checks.js";
import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";
import { booleanFlag, FLAGS, resolveSelection, stringFlag, stringsFlag, type ParsedFlags } from "./options.js";

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

/** `check`'s options: the gate's, the reporter, `--explain`, `--update`. */
export interface CheckOptions extends GateFlags {
  reporter: ReporterName;
  explain: boolean;
  update: boolean;
}

/**
 * The reporter `--reporter` / `--json` select: json with `--json`, unless `--reporter` names
 * another one explicitly.
 * @throws UsageError when `--json` and `--reporter junit|github` are both given, or for a
 *   reporter outside the closed set (naming the valid ones)
 */
export function resolveReporter(args: ParsedFlags): ReporterName {
  const named = stringFlag(args, "reporter") ?? REPORTER;
  if (booleanFlag(args, "json") && named !== "text" && named !== "json") throw new UsageError(`--json and --reporter ${named} disagree; give one of them`);
  const name = booleanFlag(args, "json") ? "json" : named;
  if (!(REPORTER_NAMES as readonly string[]).includes(name)) {
    throw new UsageError(`unknown reporter "${name}": use one of ${REPORTER_NAMES.join(", ")} (--reporter)`);
  }
  return name as ReporterName;
}

/**
 * `parity check`: the reporter first, then `--update` (refused under CI), then the gate's flags.
 * @throws UsageError naming the first bad flag
 */
export async function resolveCheckOptions(args: ParsedFlags, ctx: CliContext): Promise<CheckOptions> {
  const reporter = resolveReporter(args);
  const update = booleanFlag(args, "update");
  if (update && ctx.ci) throw new UsageError("CI=true: check --update writes oracles; run it locally and commit what it prints");
  const gate = await resolveGateOptions(args, ctx.cwd);
  if (update) requireFreeSpace(`oracles directory ${path.relative(ctx.cwd, gate.lanesDir) || "."}`, gate.lanesDir);
  return { reporter, explain: booleanFlag(args, "explain"), update, ...gate };
}

/** `--explain` text: per cell, each applying allowlist entry and the values it masked per side. */
export function renderExplain(extras: readonly CellExtras[]): string {
  let out = "";
  for (const cell of extras) {
    if (cell.masked.length === 0) continue;
    out += `${cell.provider}/${cell.cell}:\n`;
    for (const m of cell.masked) {
      const sides = [`live ${m.live}`];
      if (m.oracle !== undefined) sides.push(`oracle ${m.oracle}`);
      if (m.recording !== undefined) sides.push(`recording ${m.recording}`);
      out += `  ${m.entry.layer} ${m.entry.path} (${m.entry.pr}): ${sides.join(", ")}${m.masksDifference ? "" : " — stale: masks no difference"}\n`;
      out += `    ${m.entry.reason}\n`;
    }
  }
  return out === "" ? "no allowlist entry applied\n" : out;
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

/**
 * `check --update`: accepts every changed cell of the run (see `whyNotAcceptable`) by renaming
 * the pending results the gate wrote for it (harness/check/pending.ts; no replay of its own),
 * prints per cell what was written, then the `git add` of every written file. A cell that timed
 * out (in the check or in its pending rerecord) has no verdict: nothing is written for it.
 * Exit 2 when an input was unreadable, else 1 when some cell still fails, else 4 when some cell
 * timed out, else 0 (every failing cell accepted).
 */
async function updateChangedCells(gate: GateRun, ctx: CliContext, out: (text: string) => void): Promise<number> {
  const rel = (file: string) => path.relative(ctx.cwd, file);
  const written: string[] = [];
  let stillFailing = 0;
  let timedOut = 0;
  for (const cell of gate.run.cells) {
    if (cell.status === "timeout") {
      timedOut += 1;
      out(`not updated ${cell.provider}/${cell.cell}: it timed out (no verdict); nothing written for it\n`);
    }
    if (cell.status !== "fail") continue;
    const why = whyNotAcceptable(cell);
    const pending = gate.pending.get(`${cell.provider}/${cell.cell}`);
    if (why !== undefined || pending === undefined) {
      stillFailing += 1;
      out(`not updated ${cell.provider}/${cell.cell}: ${why ?? "not selected"}\n`);
      continue;
    }
    const { outcome } = pending;
    if (pending.problem !== undefined || (outcome !== undefined && outcome.status !== "rerecorded")) {
      if (outcome?.status === "timeout") timedOut += 1;
      else stillFailing += 1;
      const reason = pending.problem ?? (outcome !== undefined && "reason" in outcome ? outcome.reason : undefined);
      out(`not updated ${cell.provider}/${cell.cell}: rerecord ${outcome?.status ?? "refused"}${reason !== undefined ? ` (${reason})` : ""}\n`);
      continue;
    }
    const files = await acceptPending(pending.files);
    written.push(...files);
    for (const file of files) ctx.wrote?.(file);
    if (cell.stale.length > 0) stillFailing += 1;
    out(`updated ${cell.provider}/${cell.cell}: ${files.map(rel).join(", ") || "nothing changed on disk"}${cell.stale.length > 0 ? "; its stale allowlist entries remain" : ""}\n`);
  }
  out(written.length === 0 ? "nothing to commit\n" : commitHint(written, ctx.cwd));
  if (gate.run.cells.some((cell) => cell.status === "error")) return EXIT_CODES.inputError;
  if (stillFailing > 0) return EXIT_CODES.parityFailure;
  return timedOut > 0 ? EXIT_CODES.infrastructureTimeout : EXIT_CODES.ok;
}

/**
 * Appends the run's Markdown job summary to `$GITHUB_STEP_SUMMARY` (GitHub shows it on the run's
 * page), when that variable names a file. A summary that cannot be written is said on stderr and
 * changes no verdict.
 */
async function appendStepSummary(run: CheckRunResult, ctx: CliContext): Promise<void> {
  const file = ctx.env?.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    await appendFile(file, renderGithubStepSummary(run));
  } catch (thrown) {
    ctx.err(`parity: could not append the job summary to GITHUB_STEP_SUMMARY (${file}): ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}\n`);
  }
}

/**
 * `parity check`, the gate (00-product.md, CLI `check`; flows 2–3): replays every selected
 * cell through its bridge, compares the live thread lane with the oracle and with the
 * recording's own lane, applies allowlists, and reports with the chosen reporter. Exit 0
 * when every cell passed or was skipped, 1 when any failed (diff, stale entry, divergence,
 * missing oracle, a bridge that exited early), 2 for usage or input errors, 4 when no
 * cell failed but one hit the wall-clock ceiling (infrastructure timeout, no verdict). What it
 * may write is its write policy (harness/check/write-policy.ts): nothing under CI, `.pending`
 * results locally, in place with `--update`.
 */
export const checkCommand: ParityCommand = {
  tempDir: true,
  command: "check",
  describe: "The gate: replay every selected cell and compare with oracles and recordings",
  builder: (y: Argv) =>
    y
      .option("recordings", FLAGS.recordings)
      .option("provider", FLAGS.provider)
      .option("cell", FLAGS.cell)
      .option("lanes", {
        type: "string",
        describe:
          "Oracles directory (default: lanes). Without --lanes only recordings under the working directory are compared with an oracle; with it every selected recording is compared with <lanes>/<provider>/<cell>.json",
      })
      .option("allowlist", FLAGS.allowlist)
      .option("jobs", FLAGS.jobs)
      .option("shard", { type: "string", describe: "Check only shard i of n (i/n), for parallel CI jobs" })
      .option("reporter", { type: "string", default: REPORTER, describe: "text | json | junit | github | html (one self-contained page) | blob (a shard's result for merge-reports)" })
      .option("json", { type: "boolean", default: false, describe: "Same as --reporter json" })
      .option("dump-dir", { type: "string", describe: "Write each cell's normalized, unmasked lanes here" })
      .option("explain", { type: "boolean", default: false, describe: "List the values each allowlist entry masked, per cell" })
      .option("timeout", FLAGS.timeout)
      .option("module", FLAGS.module)
      .option("update", {
        alias: "u",
        type: "boolean",
        default: false,
        describe:
          "Accept every changed cell: write what this run replayed in place (oracle, and .current only where the bridge's output changed; a local check leaves it as .pending) and print what to commit",
      })
      .option("batch", { type: "boolean", default: true, describe: "Replay a provider's cells through one bridge per job (--no-batch: one bridge per cell)" })
      .option("cells", FLAGS.cells)
      .example("$0 check", "Every cell under ./recordings")
      .example("$0 check --recordings ../shared/recordings --provider acp-cursor", "The real cursor recordings")
      .example("$0 check --provider acp-cursor --module ./dist/my-acp-bridge.js", "Your own bridge module under the gate")
      .example("$0 check --shard 1/2 --reporter junit > junit.xml", "First half, as JUnit XML")
      .example("$0 check --shard 2/3 --reporter blob > blob-2.json", "One CI shard's result; then: parity merge-reports blob-*.json --reporter html > report.html")
      .example("$0 check -u", "Accept every changed cell (writes only what changed, prints the git add)"),
  async run(args, ctx) {
    // Every flag is checked before a cell is replayed: a bad value is one line, exit 2.
    const options = await resolveCheckOptions(args, ctx);
    const reporter = selectReporter(options.reporter);
    // Pending results only where the project owns the files (write-policy.ts); `--update` and CI decide alone.
    const writes = [{ flag: "--lanes", dir: options.lanesDir }, ...options.selection.roots.map((dir) => ({ flag: "--recordings", dir }))];
    const outsideProject = ctx.ci || options.update ? undefined : await firstOutsideProject(ctx.cwd, writes);
    const gate = await runGate({ ...options, write: resolveWritePolicy({ ci: ctx.ci, update: options.update, command: "check", outsideProject }) }, gateContextOf(ctx));
    const { run, extras } = gate;
    if (outsideProject !== undefined && run.cells.some((c) => c.status === "fail")) ctx.err(nothingWrittenNotice(outsideProject));
    const workspace = ctx.env?.GITHUB_WORKSPACE;
    ctx.out(reporter(run, { color: ctx.color, cwd: ctx.cwd, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}), ...(workspace ? { workspace } : {}) }));
    if (options.reporter === "github") await appendStepSummary(run, ctx);
    const textual = options.reporter === "text";
    if (options.explain) (textual ? ctx.out : ctx.err)(renderExplain(extras));
    for (const cell of extras) {
      if (cell.wroteOracle) ctx.err(`wrote ${cell.wroteOracle.endsWith(PENDING_SUFFIX) ? "pending oracle" : "oracle"} ${path.relative(ctx.cwd, cell.wroteOracle)}\n`);
      if (!ctx.verbose) continue;
      for (const n of cell.notes) ctx.err(`${cell.provider}/${cell.cell}: note${n.seq === null ? "" : ` (after seq ${n.seq})`}: ${n.message}\n`);
    }
    if (options.update) return updateChangedCells(gate, ctx, textual ? ctx.out : ctx.err);
    return checkExitCode(run);
  },
};
