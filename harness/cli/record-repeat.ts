/**
 * `parity record --repeat N` (issue 41 build points 1 and 5): each cell recorded N times, run `k`
 * into `<out>/run-<k>/` (a recordings root with its own `lanes/`), then what varies from run to
 * run named as `parity drift` names what changed between versions: run 1 compared with every
 * other run on the agent's wire (harness/compare/wire-drift.ts) and in the thread lanes
 * (harness/compare/lane-drift.ts), each difference once with the cells it appears in. A cell that
 * recorded in some runs and failed in others is named too. What varies is what a recording of
 * the cell cannot pin: a normalization rule's or an allowlist entry's candidate.
 */
import path from "node:path";
import { Chalk } from "chalk";
import type { HeldByRule, LaneChange } from "../compare/lane-drift.js";
import type { WireChange } from "../compare/wire-drift.js";
import { visibleLine } from "../report/visible.js";
import { driftReport, laneChangeLine, wireChangeLine } from "./drift-report.js";
import { recordCells, type CellsRecordRequest } from "./record-version.js";
import type { CellPaths } from "./keep-alternates.js";

/** What {@link recordRepeated} is asked: the cells' record request, how many runs, and the folder the runs go under. */
export type RepeatRecordRequest = Omit<CellsRecordRequest, "out" | "lanes" | "label"> & {
  /** How many times each cell is recorded (≥ 2 to compare anything). */
  runs: number;
  /** The folder `run-<k>/` are made in. */
  out: string;
  /** How the progress lines name the provider (`codex`, `codex@0.170.0`). */
  label: string;
  /** The working directory (relative paths of the drift's sides). */
  cwd: string;
};

/** What varies between the runs (`--json`). */
export interface RepeatReport {
  provider: string;
  /** The runs: where each went, the cells it recorded and those it failed. */
  runs: Array<{ run: number; root: string; versions: string[]; recorded: string[]; failed: Array<{ cell: string; error: string }> }>;
  /** The cells asked for. */
  cells: string[];
  /** Wire differences between run 1 and any other run, once each. */
  wire: WireChange[];
  /** Thread-lane differences between run 1 and any other run, once each, after the run-to-run rules. */
  lanes: LaneChange[];
  /**
   * The run-to-run rules (harness/compare/run-to-run.ts) that held a difference between run 1 and
   * another run, once each with its cells: what varied by a known rule (a qwen-code long-output
   * window), neither in `lanes` nor a reason to keep an alternate path.
   */
  runToRun: HeldByRule[];
  /** Cells recorded in some runs and failed in others, with the runs that failed. */
  unstableCells: Array<{ cell: string; failedIn: number[] }>;
  /** `--keep-alternates`: which path each run of each cell took, and the pending alternates written (keep-alternates.ts). */
  alternates?: CellPaths[];
}

/** Merges changes that are the same but for their cells (their cells joined), keeping the first example. */
function mergeByKey<T extends { cells: string[] }>(lists: T[][], key: (t: T) => string): T[] {
  const merged = new Map<string, T>();
  for (const item of lists.flat()) {
    const k = key(item);
    const seen = merged.get(k);
    merged.set(k, seen ? { ...seen, cells: [...new Set([...seen.cells, ...item.cells])].sort() } : { ...item, cells: [...item.cells] });
  }
  return [...merged.values()];
}

/**
 * Records the cells `runs` times and compares the runs (see the module doc).
 * @throws RecordInterruptedError when `signal` aborts; a cell's failure is listed, never thrown
 */
export async function recordRepeated(req: RepeatRecordRequest): Promise<RepeatReport> {
  const runs: RepeatReport["runs"] = [];
  for (let run = 1; run <= req.runs; run++) {
    const root = path.join(req.out, `run-${run}`);
    const done = await recordCells({ ...req, out: root, lanes: path.join(root, "lanes"), label: `${req.label} run ${run}/${req.runs}` });
    runs.push({
      run,
      root,
      versions: [...new Set(done.recorded.map((r) => r.manifest.cliVersion))].sort(),
      recorded: done.recorded.map((r) => r.manifest.cell),
      failed: done.failed.map(({ cell, error }) => ({ cell, error })),
    });
  }
  return { ...(await compareRuns(req.provider, runs, req.cells, req.cwd, req.cellsRoot)), runs };
}

/**
 * What varies between runs already recorded (see the module doc): run 1 compared with every other
 * run on the wire and in the thread lanes — two live runs, so with the run-to-run rules and the
 * cells' facts (check/cross-run.ts, through drift-report.ts) —, and the cells that failed in some runs only.
 * @param runs each run's number, recordings root (`<out>/run-<k>`), versions, cells recorded and failed
 * @param cellsRoot the cell definitions (rule 5's reference: each cell's facts)
 */
export async function compareRuns(provider: string, runs: RepeatReport["runs"], cells: readonly string[], cwd: string, cellsRoot: string): Promise<RepeatReport> {
  const [first, ...others] = runs;
  const compared = [];
  for (const other of others) {
    if (first!.recorded.length === 0 || other.recorded.length === 0) continue;
    compared.push(await driftReport(provider, first!.root, other.root, cwd, {}, cellsRoot));
  }
  const unstableCells = cells
    .map((cell) => ({ cell, failedIn: runs.filter((r) => r.failed.some((f) => f.cell === cell)).map((r) => r.run) }))
    .filter((u) => u.failedIn.length > 0 && u.failedIn.length < runs.length);
  return {
    provider,
    runs,
    cells: [...cells],
    wire: mergeByKey(
      compared.map((c) => c.wire),
      (w) => `${w.change}\u0000${w.kind}\u0000${w.path ?? ""}`,
    ),
    lanes: mergeByKey(
      compared.map((c) => c.lanes),
      (l) => `${l.op}\u0000${l.where}`,
    ),
    runToRun: mergeByKey(
      compared.map((c) => c.runToRun),
      (h) => String(h.rule),
    ),
    unstableCells,
  };
}

/** The text of a repeat report; colour only when `color`. */
export function renderRepeatText(report: RepeatReport, color: boolean): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const cells = (list: readonly string[]) => (list.length === report.cells.length && list.length > 1 ? `all ${list.length} cells` : list.join(", "));
  const out: string[] = [];
  out.push(`${c.bold(`${report.provider} recorded ${report.runs.length} times`)} (${report.runs[0]?.versions.map(visibleLine).join(", ") ?? ""}): ${report.cells.join(", ")}`);
  for (const r of report.runs) out.push(`  run ${r.run}: ${r.root} (${r.recorded.length} recorded${r.failed.length > 0 ? `, failed: ${r.failed.map((f) => f.cell).join(", ")}` : ""})`);
  out.push(c.bold(`varies on the wire (the agent's own lanes): ${report.wire.length} ${report.wire.length === 1 ? "difference" : "differences"}`));
  for (const w of report.wire) out.push(wireChangeLine(w, cells, c));
  for (const u of report.unstableCells) out.push(`  ${c.red("unstable")} ${u.cell}: failed in run ${u.failedIn.join(", ")}, recorded in the others`);
  out.push(c.bold(`varies in the thread lanes: ${report.lanes.length} ${report.lanes.length === 1 ? "difference" : "differences"}`));
  for (const l of report.lanes) out.push(laneChangeLine(l, cells, c));
  if (report.runToRun.length > 0) {
    out.push(c.bold(`varies by a run-to-run rule (compared with it, as check compares a fresh re-record): ${report.runToRun.length} ${report.runToRun.length === 1 ? "rule" : "rules"}`));
    for (const h of report.runToRun) out.push(`  ${c.yellow(`rule ${h.rule}`.padEnd(7))} ${h.name}  (${cells(h.cells)})`);
  }
  const varying = new Set([...report.lanes.flatMap((l) => l.cells), ...report.unstableCells.map((u) => u.cell)]);
  out.push(
    varying.size > 0
      ? `the thread lanes varied from run to run in ${varying.size} of ${report.cells.length} cells`
      : report.runToRun.length > 0
        ? "the thread lanes varied from run to run only as the run-to-run rules allow"
        : "the thread lanes did not vary from run to run",
  );
  return `${out.join("\n")}\n`;
}
