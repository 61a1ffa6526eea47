import { appendFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import type { Argv } from "yargs";
import { loadAllowlists } from "../compare/allowlist.js";
import { UsageError } from "../errors.js";
import { selectRecordings } from "../recording/select.js";
import { checkExitCode, type CheckRunResult } from "../report/check-report.js";
import type { RecordingLocation } from "../recording/reader.js";
import { acceptCell, commitHint, whyNotAcceptable, writtenFiles } from "../rerecord/accept.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import type { CliContext } from "./context.js";
import { selectReporter } from "../report/reporters.js";
import { renderGithubStepSummary } from "../report/github.js";
import type { RunFlags } from "../report/advice.js";
import { createCheckProgress } from "../progress/check-progress.js";
import { firstBatchProviders } from "../check/batch-plan.js";
import { cellTimesFile, readCellTimes, writeCellTimes } from "../check/cell-times.js";
import { createBridgePool } from "../replay/bridge-pool.js";
import { checkCells, parseShard, shardCells, type CellExtras, type CheckCellsResult } from "../check/check-cells.js";
import { ORACLES_DIR, RECORDINGS_ROOT, REPORTER } from "../defaults.js";
import { REPORTER_NAMES, type ReporterName } from "../report/reporters.js";
import type { ParityCommand } from "./command.js";
import { createOutputDirFlag, positiveIntegerFlag, replayOptionsOf, resolveReplayFlags, type ReplayFlags } from "./flag-checks.js";
import { booleanFlag, FLAGS, resolveSelection, stringFlag, stringsFlag, type ParsedFlags, type Selection } from "./options.js";

/** Everything the gate (`check`, `review`) takes from its flags. */
export interface GateOptions {
  jobs: number;
  replay: ReplayFlags;
  selection: Selection;
  /** `--shard i/n`, parsed. */
  shard?: { index: number; count: number };
  /** `--allowlist` files, besides `allowlists/*.json`. */
  allowlistFiles: string[];
  /** The oracles directory (absolute), and whether `--lanes` named it. */
  lanesDir: string;
  lanesGiven: boolean;
  /** `--dump-dir` as typed and resolved, when given. */
  dumpDir?: { value: string; dir: string };
  /** `--no-batch` turns batching off. */
  batch: boolean;
  /** The flags suggested commands repeat, as typed (harness/report/advice.ts). */
  flags: RunFlags;
}

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
export async function resolveGateOptions(args: ParsedFlags, cwd: string): Promise<GateOptions> {
  const jobs = positiveIntegerFlag("jobs", args.jobs, "cells") ?? availableParallelism();
  const replay = await resolveReplayFlags(args, cwd);
  const selection = resolveSelection(args, cwd);
  const shardText = stringFlag(args, "shard");
  const lanes = stringFlag(args, "lanes");
  const dump = stringFlag(args, "dump-dir");
  return {
    jobs,
    replay,
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
export interface CheckOptions extends GateOptions {
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
  return { reporter, explain: booleanFlag(args, "explain"), update, ...(await resolveGateOptions(args, ctx.cwd)) };
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
      out += `  ${m.entry.layer} ${m.entry.path} (${m.entry.pr}): ${sides.join(", ")}${m.live + (m.oracle ?? 0) + (m.recording ?? 0) === 0 ? " — stale" : ""}\n`;
      out += `    ${m.entry.reason}\n`;
    }
  }
  return out === "" ? "no allowlist entry applied\n" : out;
}

/**
 * Under CI the gate never writes into the project's oracles or recordings: a `--dump-dir` that
 * is, or lies inside, one of `protectedDirs` is refused.
 * @throws UsageError `--dump-dir <value>: CI=true: … inside <dir>; use a temp dir`.
 */
function refuseProjectDumpDir(value: string, resolved: string, protectedDirs: readonly string[]): void {
  for (const dir of protectedDirs) {
    const rel = path.relative(dir, resolved);
    if (rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))) {
      throw new UsageError(`--dump-dir ${value}: CI=true: the gate never writes into ${dir} (oracles and recordings); point it at a temp dir`);
    }
  }
}

/** What {@link runGate} ran and how: the run, per-cell extras, the selected cells, the oracles directory and the replay options. */
export interface GateRun extends CheckCellsResult {
  locations: RecordingLocation[];
  lanesDir: string;
  replay: ReplayRecordingOptions;
}

/**
 * The gate as `check` and `review` run it, from options already resolved (a bad flag value is
 * one line, exit 2, before anything is replayed; harness/cli/options.ts): selects the cells
 * (`--recordings`, `--provider`, `--cell`, `--shard`), loads allowlists, and checks the cells.
 * @throws UsageError / InputError for no recorded cells, a bad allowlist or a refused `--dump-dir`.
 */
export async function runGate(options: GateOptions, ctx: CliContext): Promise<GateRun> {
  const { jobs, selection, lanesDir } = options;
  const roots = selection.roots;
  const selected: RecordingLocation[] = await selectRecordings(roots, selection.filter);
  if (selected.length === 0) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
  // More shards than cells (a fixed CI matrix over a small project) leaves some empty: they pass.
  const locations = options.shard !== undefined ? shardCells(selected, options.shard) : selected;
  const dumpDir = options.dumpDir?.dir;
  if (options.dumpDir !== undefined) {
    const { value, dir } = options.dumpDir;
    if (ctx.ci) refuseProjectDumpDir(value, dir, [path.resolve(ctx.cwd, ORACLES_DIR), path.resolve(ctx.cwd, RECORDINGS_ROOT), lanesDir, ...roots]);
    await createOutputDirFlag("dump-dir", value, dir);
  }
  const replay = replayOptionsOf(options.replay);
  const timesFile = cellTimesFile(ctx.cwd);
  const cellTimes = await readCellTimes(timesFile);
  // The bridges the workers start with are started now: their start-up overlaps reading the
  // allowlists and recordings and planning (bridge-pool.ts; the replays take them); each later
  // batch's bridge starts while the batch before it on its worker runs (startBridge).
  const bridges = createBridgePool();
  const providers = locations.map((l) => l.provider);
  for (const provider of firstBatchProviders(providers, jobs, options.batch, (i) => cellTimes.get(`${providers[i]}/${locations[i]!.cell}`))) bridges.start(provider, replay);
  const allowlist = await loadAllowlists({ cwd: ctx.cwd, files: options.allowlistFiles }).catch(async (error: unknown) => {
    await bridges.close();
    throw error;
  });
  const names = locations.map((l) => `${l.provider}/${l.cell}`);
  const progress = ctx.progress === undefined ? undefined : createCheckProgress(ctx.progress, locations.length);
  const { run, extras } = await checkCells({
    locations,
    repoRoot: ctx.cwd,
    lanesDir,
    oraclesForEveryRecording: options.lanesGiven,
    allowlist,
    jobs,
    ci: ctx.ci,
    batch: options.batch,
    cellTimes,
    ...(progress !== undefined
      ? { progress: { started: (i) => progress.started(names[i]!), finished: (i, cell) => progress.finished(names[i]!, cell.status, cell.ms) } }
      : {}),
    ...(dumpDir !== undefined ? { dumpDir } : {}),
    replay: { ...replay, bridges },
    startBridge: (provider) => bridges.ensureWaiting(provider, replay),
  }).finally(async () => {
    progress?.end();
    await bridges.close();
  });
  const replayed = run.cells.filter((c) => c.status === "pass" || c.status === "fail");
  await writeCellTimes(timesFile, cellTimes, new Map(replayed.map((c) => [`${c.provider}/${c.cell}`, Math.round(c.ms)])));
  run.flags = options.flags;
  if (options.shard !== undefined) {
    // A shard's blob places each cell in the unsharded order (harness/report/blob.ts).
    run.shard = options.shard;
    run.total = selected.length;
    run.positions = locations.map((l) => selected.indexOf(l));
  }
  return { run, extras, locations, lanesDir, replay };
}

/**
 * `check --update`: accepts every changed cell of `run` (see `whyNotAcceptable`) by rerecording
 * it alone, prints per cell what was written, then the `git add` of every written file.
 * Exit 0 when every failing cell was accepted, 1 when some still fail, 2 when an input was unreadable.
 */
async function updateChangedCells(
  run: CheckRunResult,
  locations: readonly RecordingLocation[],
  options: { lanesDir: string; replay: ReplayRecordingOptions; ctx: CliContext; out: (text: string) => void },
): Promise<number> {
  const { ctx, out } = options;
  const rel = (file: string) => path.relative(ctx.cwd, file);
  const written: string[] = [];
  let stillFailing = 0;
  for (const cell of run.cells) {
    if (cell.status !== "fail") continue;
    const why = whyNotAcceptable(cell);
    const location = locations.find((l) => l.provider === cell.provider && l.cell === cell.cell);
    if (why !== undefined || location === undefined) {
      stillFailing += 1;
      out(`not updated ${cell.provider}/${cell.cell}: ${why ?? "not selected"}\n`);
      continue;
    }
    const outcome = await acceptCell(location, { lanesDir: options.lanesDir, replay: options.replay });
    const files = writtenFiles(outcome);
    written.push(...files);
    if (outcome.status !== "rerecorded") {
      stillFailing += 1;
      out(`not updated ${cell.provider}/${cell.cell}: rerecord ${outcome.status}${"reason" in outcome ? ` (${outcome.reason})` : ""}\n`);
    } else {
      if (cell.stale.length > 0) stillFailing += 1;
      out(`updated ${cell.provider}/${cell.cell}: ${files.map(rel).join(", ") || "nothing changed on disk"}${cell.stale.length > 0 ? "; its stale allowlist entries remain" : ""}\n`);
    }
  }
  out(written.length === 0 ? "nothing to commit\n" : commitHint(written, ctx.cwd));
  if (run.cells.some((cell) => cell.status === "error")) return 2;
  return stillFailing > 0 ? 1 : 0;
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
 * missing oracle in CI, a bridge that exited early), 2 for usage or input errors, 4 when no
 * cell failed but one hit the wall-clock ceiling (infrastructure timeout, no verdict).
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
        describe: "Accept every changed cell: rerecord just those cells (oracle, and .current only where the bridge's output changed) and print what to commit",
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
    const { run, extras, locations, lanesDir, replay } = await runGate(options, ctx);
    const workspace = ctx.env?.GITHUB_WORKSPACE;
    ctx.out(reporter(run, { color: ctx.color, cwd: ctx.cwd, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}), ...(workspace ? { workspace } : {}) }));
    if (options.reporter === "github") await appendStepSummary(run, ctx);
    const textual = options.reporter === "text";
    if (options.explain) (textual ? ctx.out : ctx.err)(renderExplain(extras));
    for (const cell of extras) {
      if (cell.wroteOracle) ctx.err(`wrote oracle ${path.relative(ctx.cwd, cell.wroteOracle)}\n`);
      if (!ctx.verbose) continue;
      for (const n of cell.notes) ctx.err(`${cell.provider}/${cell.cell}: note${n.seq === null ? "" : ` (after seq ${n.seq})`}: ${n.message}\n`);
    }
    if (options.update) return updateChangedCells(run, locations, { lanesDir, replay, ctx, out: textual ? ctx.out : ctx.err });
    return checkExitCode(run);
  },
};
