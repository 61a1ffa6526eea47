/**
 * `parity record --repeat N` (issue 41 build points 1 and 5): each cell recorded N times, run `k`
 * into `<out>/run-<k>/` (a recordings root with its own `lanes/`), then what varies from run to
 * run named as `parity drift` names what changed between versions: run 1 compared with every
 * other run on the agent's wire (harness/compare/wire-drift.ts) and in the thread lanes
 * (harness/compare/lane-drift.ts), each difference once with the cells it appears in. A cell that
 * recorded in some runs and failed in others is named too. What varies is what a recording of
 * the cell cannot pin: a normalization rule's or an allowlist entry's candidate — unless every
 * run took a path the project already knows: each run of each cell is held to the cell's
 * committed oracle and accepted alternates as check holds a fresh re-record (run-paths.ts), and a
 * cell whose runs vary only between those known paths (acp-claude's stop-interrupt: path 1 in
 * some runs, accepted alternate 2 in others) is said so and does not fail the repeat.
 */
import path from "node:path";
import { Chalk } from "chalk";
import type { HeldByRule, LaneChange } from "../compare/lane-drift.js";
import type { WireChange } from "../compare/wire-drift.js";
import { visibleLine } from "../report/visible.js";
import { driftReport, laneChangeLine, wireChangeLine } from "./drift-report.js";
import { recordCells, type CellsRecordRequest } from "./record-version.js";
import type { CellPaths } from "./keep-alternates.js";
import { loadCrossRunFacts } from "../check/cross-run.js";
import { holdRunsToKnownPaths, type KnownPathsProject } from "./run-paths.js";

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
  /** The project whose known paths (committed oracles, accepted alternates) each run is held to; absent: none (drift's `--repeat`). */
  project?: KnownPathsProject;
};

/** Which known path each run of one cell took (`--json`: `knownPaths`). */
export interface CellKnownPaths {
  cell: string;
  /** The known paths some run took: 1 the committed oracle, k ≥ 2 an accepted alternate; `oracle` relative to the working directory when inside it. */
  paths: Array<{ path: number; state: "committed" | "accepted"; oracle: string; runs: number[] }>;
  /** The runs whose thread lane matched no known path (after the run-to-run rules, the cell's facts and the allowlists). */
  unknown: number[];
  /** Why no run was held to known paths (the project has no recording and oracle of the cell). */
  skipped?: string;
}

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
  /** Each cell: which known path (committed oracle, accepted alternate) each run took, and the runs that took none. */
  knownPaths: CellKnownPaths[];
  /**
   * The cells whose thread lanes varied (a difference in `lanes`, or recorded in some runs only),
   * each with whether the known paths explain it: every run recorded the cell and took its
   * committed oracle's or an accepted alternate's path. Exit 1 when any is not explained.
   */
  varied: Array<{ cell: string; byKnownPaths: boolean }>;
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
  return { ...(await compareRuns(req.provider, runs, req.cells, req.cwd, req.cellsRoot, req.project)), runs };
}

/**
 * What varies between runs already recorded (see the module doc): run 1 compared with every other
 * run on the wire and in the thread lanes — two live runs, so with the run-to-run rules and the
 * cells' facts (check/cross-run.ts, through drift-report.ts) —, and the cells that failed in some runs only.
 * @param runs each run's number, recordings root (`<out>/run-<k>`), versions, cells recorded and failed
 * Then each run held to its cell's known paths (run-paths.ts), which says whether what varied is
 * the agent taking paths the project has accepted.
 * @param cellsRoot the cell definitions (rule 5's reference: each cell's facts)
 * @param project the project's recordings and oracles roots and allowlists (the known paths); absent: no run is held to any (`knownPaths` empty)
 * @throws InputError for an oracle that cannot be read
 */
export async function compareRuns(provider: string, runs: RepeatReport["runs"], cells: readonly string[], cwd: string, cellsRoot: string, project?: KnownPathsProject): Promise<RepeatReport> {
  const [first, ...others] = runs;
  const compared = [];
  for (const other of others) {
    if (first!.recorded.length === 0 || other.recorded.length === 0) continue;
    compared.push(await driftReport(provider, first!.root, other.root, cwd, {}, cellsRoot));
  }
  const unstableCells = cells
    .map((cell) => ({ cell, failedIn: runs.filter((r) => r.failed.some((f) => f.cell === cell)).map((r) => r.run) }))
    .filter((u) => u.failedIn.length > 0 && u.failedIn.length < runs.length);
  const facts =
    project === undefined
      ? undefined
      : await loadCrossRunFacts(
          cellsRoot,
          cells.map((cell) => ({ provider, cell })),
        );
  const rel = (file: string) => (file.startsWith(`${cwd}${path.sep}`) ? path.relative(cwd, file).split(path.sep).join("/") : file);
  const knownPaths: CellKnownPaths[] = [];
  for (const cell of project === undefined ? [] : cells) {
    const held = await holdRunsToKnownPaths(provider, cell, runs, project!, facts, false);
    knownPaths.push(
      held.skipped !== undefined
        ? { cell, paths: [], unknown: runs.filter((r) => r.recorded.includes(cell)).map((r) => r.run), skipped: held.skipped }
        : {
            cell,
            paths: held.known.filter((p) => p.runs.length > 0).map((p) => ({ path: p.path, state: p.state === "committed" ? "committed" : "accepted", oracle: rel(p.oracle), runs: p.runs })),
            unknown: held.unknown.map((u) => u.run),
          },
    );
  }
  const lanes = mergeByKey(
    compared.map((c) => c.lanes),
    (l) => `${l.op}\u0000${l.where}`,
  );
  const variedCells = new Set([...lanes.flatMap((l) => l.cells), ...unstableCells.map((u) => u.cell)]);
  const varied = cells
    .filter((cell) => variedCells.has(cell))
    .map((cell) => {
      const held = knownPaths.find((k) => k.cell === cell);
      const everyRun = !unstableCells.some((u) => u.cell === cell) && runs.every((r) => r.recorded.includes(cell));
      return { cell, byKnownPaths: everyRun && held !== undefined && held.skipped === undefined && held.unknown.length === 0 };
    });
  return {
    provider,
    runs,
    cells: [...cells],
    wire: mergeByKey(
      compared.map((c) => c.wire),
      (w) => `${w.change}\u0000${w.kind}\u0000${w.path ?? ""}`,
    ),
    lanes,
    runToRun: mergeByKey(
      compared.map((c) => c.runToRun),
      (h) => String(h.rule),
    ),
    unstableCells,
    knownPaths,
    varied,
  };
}

/**
 * The exit code of a repeat: 1 when a cell's thread lanes varied in a way no known path of the
 * cell explains (or it recorded in some runs only), 0 when nothing varied or every run of every
 * cell that varied took its committed oracle's or an accepted alternate's path.
 */
export function repeatExitCode(report: RepeatReport): 0 | 1 {
  return report.varied.some((v) => !v.byKnownPaths) ? 1 : 0;
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
  const explained = report.varied.filter((v) => v.byKnownPaths).map((v) => v.cell);
  const unexplained = report.varied.filter((v) => !v.byKnownPaths).map((v) => v.cell);
  if (report.varied.length > 0) {
    out.push(c.bold("which known path each run took (the committed oracle, an accepted alternate; held as check holds a fresh re-record):"));
    for (const v of report.varied) {
      const held = report.knownPaths.find((k) => k.cell === v.cell);
      if (held === undefined) continue;
      out.push(`  ${v.byKnownPaths ? c.green("known  ") : c.red("unknown")} ${knownPathsLine(held)}`);
    }
  }
  out.push(
    unexplained.length > 0
      ? `the thread lanes varied from run to run in ${unexplained.length} of ${report.cells.length} cells${explained.length > 0 ? ` (and only between known paths in ${explained.length} more)` : ""}`
      : explained.length > 0
        ? `the thread lanes varied from run to run only between known paths of their cells (${explained.join(", ")}): every run took the committed oracle's or an accepted alternate's path`
        : report.runToRun.length > 0
          ? "the thread lanes varied from run to run only as the run-to-run rules allow"
          : "the thread lanes did not vary from run to run",
  );
  return `${out.join("\n")}\n`;
}

/** One cell's runs by known path: `stop-interrupt: path 1 (the committed oracle): runs 1, 3; path 2 (accepted alternate, lanes/…/2.json): run 2; no known path: run 4`. */
export function knownPathsLine(held: CellKnownPaths): string {
  const runs = (list: readonly number[]) => `${list.length === 1 ? "run" : "runs"} ${list.join(", ")}`;
  if (held.skipped !== undefined) return `${held.cell}: not held to known paths: ${visibleLine(held.skipped)}`;
  const parts = held.paths.map((p) => `path ${p.path} (${p.state === "committed" ? "the committed oracle" : `accepted alternate, ${visibleLine(p.oracle)}`}): ${runs(p.runs)}`);
  if (held.unknown.length > 0) parts.push(`no known path: ${runs(held.unknown)}`);
  return `${held.cell}: ${parts.join("; ")}`;
}
