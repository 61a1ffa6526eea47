import { availableParallelism } from "node:os";
import path from "node:path";
import type { Argv } from "yargs";
import { loadAllowlists } from "../compare/allowlist.js";
import { UsageError } from "../errors.js";
import { resolveRecordingRoots, selectRecordings } from "../recording/select.js";
import { checkExitCode, type CheckRunResult } from "../report/check-report.js";
import type { RecordingLocation } from "../recording/reader.js";
import { acceptCell, commitHint, whyNotAcceptable, writtenFiles } from "../rerecord/accept.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import type { CliContext } from "./context.js";
import { selectReporter } from "../report/reporters.js";
import { createCheckProgress } from "../progress/check-progress.js";
import { cellTimesFile, readCellTimes, writeCellTimes } from "../check/cell-times.js";
import { checkCells, parseShard, shardCells, type CellExtras, type CheckCellsResult } from "../check/check-cells.js";
import type { ParityCommand } from "./command.js";
import { checkBridgeModuleFlag, createOutputDirFlag, CELLS_FLAG_DESCRIPTION, existingDirFlag, positiveIntegerFlag } from "./flag-checks.js";

/** Root `check` reads when no `--recordings` is given. */
export const CHECK_DEFAULT_ROOTS = ["recordings"] as const;

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
 * The reporter `--json` selects: json, unless `--reporter` names another one explicitly.
 * @throws UsageError when `--reporter` names junit or github as well.
 */
function jsonReporterName(reporter: string): string {
  if (reporter !== "text" && reporter !== "json") throw new UsageError(`--json and --reporter ${reporter} disagree; give one of them`);
  return "json";
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
 * The gate as `check` and `review` run it: checks every selection and replay flag first (a bad
 * value is one line, exit 2, before anything is replayed), selects the cells (`--recordings`,
 * `--provider`, `--cell`, `--shard`), loads allowlists, and checks the cells.
 * @throws UsageError / InputError for bad flags, no recorded cells, or a refused `--dump-dir`.
 */
export async function runGate(args: Record<string, unknown>, ctx: CliContext): Promise<GateRun> {
  const jobs = positiveIntegerFlag("jobs", args.jobs, "cells") ?? availableParallelism();
  const timeout = positiveIntegerFlag("timeout", args.timeout, "ms");
  const modulePath = typeof args.module === "string" ? await checkBridgeModuleFlag(args.module, ctx.cwd) : undefined;
  const cellsRoot = typeof args.cells === "string" ? existingDirFlag("cells", args.cells, ctx.cwd) : undefined;
  const roots = resolveRecordingRoots((args.recordings as string[] | undefined) ?? [], ctx.cwd, CHECK_DEFAULT_ROOTS);
  let locations: RecordingLocation[] = await selectRecordings(roots, {
    provider: args.provider as string | undefined,
    cell: args.cell as string | undefined,
  });
  if (locations.length === 0) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
  // More shards than cells (a fixed CI matrix over a small project) leaves some empty: they pass.
  if (args.shard !== undefined) locations = shardCells(locations, parseShard(args.shard as string));
  const allowlist = await loadAllowlists({ cwd: ctx.cwd, files: (args.allowlist as string[] | undefined) ?? [] });
  const lanesDir = path.resolve(ctx.cwd, (args.lanes as string | undefined) ?? "lanes");
  const dumpArg = args["dump-dir"] as string | undefined;
  const dumpDir = dumpArg === undefined ? undefined : path.resolve(ctx.cwd, dumpArg);
  if (dumpArg !== undefined && dumpDir !== undefined) {
    if (ctx.ci) refuseProjectDumpDir(dumpArg, dumpDir, [path.resolve(ctx.cwd, "lanes"), path.resolve(ctx.cwd, "recordings"), lanesDir, ...roots]);
    await createOutputDirFlag("dump-dir", dumpArg, dumpDir);
  }
  const replay = {
    ...(timeout !== undefined ? { timeouts: { ceilingMs: timeout } } : {}),
    ...(modulePath !== undefined ? { modulePath } : {}),
    ...(cellsRoot !== undefined ? { cellsRoot } : {}),
  };
  const names = locations.map((l) => `${l.provider}/${l.cell}`);
  const progress = ctx.progress === undefined ? undefined : createCheckProgress(ctx.progress, locations.length);
  const timesFile = cellTimesFile(ctx.cwd);
  const cellTimes = await readCellTimes(timesFile);
  const { run, extras } = await checkCells({
    locations,
    repoRoot: ctx.cwd,
    lanesDir,
    oraclesForEveryRecording: typeof args.lanes === "string",
    allowlist,
    jobs,
    ci: ctx.ci,
    batch: args.batch !== false,
    cellTimes,
    ...(progress !== undefined
      ? { progress: { started: (i) => progress.started(names[i]!), finished: (i, cell) => progress.finished(names[i]!, cell.status, cell.ms) } }
      : {}),
    ...(dumpDir !== undefined ? { dumpDir } : {}),
    replay,
  }).finally(() => progress?.end());
  const replayed = run.cells.filter((c) => c.status === "pass" || c.status === "fail");
  await writeCellTimes(timesFile, cellTimes, new Map(replayed.map((c) => [`${c.provider}/${c.cell}`, Math.round(c.ms)])));
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
      .option("recordings", { type: "string", array: true, describe: "Recordings root (repeatable; default recordings)" })
      .option("provider", { type: "string", describe: "Only this provider" })
      .option("cell", { type: "string", describe: "Only this cell" })
      .option("lanes", {
        type: "string",
        describe:
          "Oracles directory (default: lanes). Without --lanes only recordings under the working directory are compared with an oracle; with it every selected recording is compared with <lanes>/<provider>/<cell>.json",
      })
      .option("allowlist", { type: "string", array: true, describe: "Allowlist file, besides allowlists/*.json (repeatable)" })
      .option("jobs", { type: "string", describe: "Cells replayed at once, a whole number ≥ 1 (default: the number of cores)" })
      .option("shard", { type: "string", describe: "Check only shard i of n (i/n), for parallel CI jobs" })
      .option("reporter", { type: "string", default: "text", describe: "text | json | junit | github" })
      .option("json", { type: "boolean", default: false, describe: "Same as --reporter json" })
      .option("dump-dir", { type: "string", describe: "Write each cell's normalized, unmasked lanes here" })
      .option("explain", { type: "boolean", default: false, describe: "List the values each allowlist entry masked, per cell" })
      .option("timeout", { type: "string", describe: "Wall-clock ceiling per cell in ms (a whole number ≥ 1; default 120000): a replay still running then is an infrastructure timeout, never a divergence" })
      .option("module", { type: "string", describe: "Bridge module to replay through instead of the provider's shipped one (your bridge under the gate)" })
      .option("update", {
        type: "boolean",
        default: false,
        describe: "Accept every changed cell: rerecord just those cells (oracle, and .current only where the bridge's output changed) and print what to commit",
      })
      .option("batch", { type: "boolean", default: true, describe: "Replay a provider's cells through one bridge per job (--no-batch: one bridge per cell)" })
      .option("cells", { type: "string", describe: CELLS_FLAG_DESCRIPTION })
      .example("$0 check", "Every cell under ./recordings")
      .example("$0 check --recordings ../shared/recordings --provider acp-cursor", "The real cursor recordings")
      .example("$0 check --provider acp-cursor --module ./dist/my-acp-bridge.js", "Your own bridge module under the gate")
      .example("$0 check --shard 1/2 --reporter junit > junit.xml", "First half, as JUnit XML")
      .example("$0 check --update", "Accept every changed cell (writes only what changed, prints the git add)"),
  async run(args, ctx) {
    // Every flag is checked before a cell is replayed: a bad value is one line, exit 2.
    const reporterName = args.json === true ? jsonReporterName(args.reporter as string) : (args.reporter as string);
    const reporter = selectReporter(reporterName);
    if (args.update === true && ctx.ci) throw new UsageError("CI=true: check --update writes oracles; run it locally and commit what it prints");
    const { run, extras, locations, lanesDir, replay } = await runGate(args, ctx);
    ctx.out(reporter(run, { color: ctx.color, cwd: ctx.cwd, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}) }));
    const textual = reporterName === "text";
    if (args.explain) (textual ? ctx.out : ctx.err)(renderExplain(extras));
    for (const cell of extras) {
      if (cell.wroteOracle) ctx.err(`wrote oracle ${path.relative(ctx.cwd, cell.wroteOracle)}\n`);
      if (!ctx.verbose) continue;
      for (const n of cell.notes) ctx.err(`${cell.provider}/${cell.cell}: note${n.seq === null ? "" : ` (after seq ${n.seq})`}: ${n.message}\n`);
    }
    if (args.update === true) return updateChangedCells(run, locations, { lanesDir, replay, ctx, out: textual ? ctx.out : ctx.err });
    return checkExitCode(run);
  },
};
