import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLiveLaneSpills } from "../compare/cell-legs.js";
import { InputError } from "../errors.js";
import { type RecordingLocation } from "../recording/reader.js";
import { type CellResult, type CheckRunResult } from "../report/check-report.js";

import { replayBatch } from "./batch.js";
import { planBatches } from "./batch-plan.js";
import { type ReplayedCell } from "../rerecord/replayed-cell.js";
import type { ReplayOptions } from "../replay/replay-recording.js";
import { staleTruthEntries } from "../compare/truth/truth-allowlist.js";
import { emptyExtras, type CellExtras, type CompareCellOptions } from "./compare-cell.js";
import { finishCell, heldCell, inputErrorCell, openCell, skipReason, skippedCell, type CellRun, type CheckCell, type FinishedCell } from "./cell-pipeline.js";

/** Options of {@link checkCells}. Paths are absolute. */
export interface CheckCellsOptions extends CompareCellOptions {
  /** The selected cells, in report order. */
  locations: readonly RecordingLocation[];
  /** Cells replayed at once (≥ 1). */
  jobs: number;
  /** Passed to every replay. */
  replay?: ReplayOptions;
  /**
   * Replay the cells of one provider in at most `jobs` batches, each through one bridge
   * process (default true; see `replayBatch`); false starts a bridge per cell.
   */
  batch?: boolean;
  /** Monotonic clock in ms (injected; default `performance.now`). */
  now?: () => number;
  /**
   * Each cell's time in earlier runs, in ms by `<provider>/<cell>` (cell-times.ts): the batches
   * expected to take longest start first. Never changes a verdict.
   */
  cellTimes?: ReadonlyMap<string, number>;
  /**
   * Starts ahead the bridge of a batch about to run (`parity check`'s bridge pool, which the
   * replays take from via `replay.bridges`): called with the provider of the batch `jobs` places
   * after each one that starts.
   */
  startBridge?: (provider: string) => void;
  /** Told as cells start replaying and as each cell's result is known, by index into `locations` (progress output). */
  progress?: CheckCellsProgress;
}

/** Progress events of {@link checkCells}; `finished` comes once per cell, skipped ones included. */
export interface CheckCellsProgress {
  started(index: number): void;
  finished(index: number, cell: CellResult): void;
}

/** Result of {@link checkCells}. */
export interface CheckCellsResult {
  run: CheckRunResult;
  extras: CellExtras[];
  /**
   * Under a write policy other than `never`, the replay of each changed cell that can be accepted
   * (`whyNotAcceptable`), by `provider/cell`: what its pending results are made from
   * (pending.ts), so they need no replay of the cell. Empty under `never`: no cell's bridge lines
   * are kept then, and an unchanged cell's are let go once it is compared.
   */
  replayed: Map<string, ReplayedCell>;
}

/**
 * The parity gate over selected cells (docs/design/00-product.md flows 2–3, CLI `check`; spec 10 §6):
 * each thread-scoped cell is replayed through its bridge, its live thread lane normalized
 * and compared with `compareParity` against (a) the oracle `lanes/<provider>/<cell>.json`
 * and (b) the recording's own lane (`.current` when present) assembled today. Recordings
 * outside the repository have no oracle. A cell fails on any unmasked difference, stale
 * entry or replay divergence; process-scoped cells and providers with no replay profile are
 * skipped. An ACP recording replays with the dialect its recorded agent command implies
 * (the replay's launch-spec rewrite pins it). The cells of one provider replay in at most `jobs` batches, each through one
 * bridge process (`replayBatch`; a batch that diverges is replayed again cell by cell; how
 * many batches: `planBatches`), and the batches run `jobs` at a time; a cell's `ms` is its own
 * part of its batch's wall time (see `replayBatch`) plus its comparison. A recording, lane or
 * oracle that cannot be read makes that cell an `error` (the InputError's one line, file and
 * line) while every other cell is still checked.
 * A missing oracle of an in-repo recording follows `options.write` (write-policy.ts): written
 * from a clean replay (temp file + rename) in place or as `<oracle>.pending`, or, under `never`
 * (CI), not at all; only an oracle written in place lets the cell pass (cell-status.ts).
 * A recording of at most `HELD_RECORDING_BYTES` (cell-pipeline.ts) is read and parsed once, at validation,
 * and that parse feeds the replay and the recorded leg. Memory does not grow with a larger
 * cell's length when no allowlist entry applies to it: its recording is validated without
 * being held and (replayed alone) read as the walk goes, its
 * live lane is normalized and spilled to a temporary file as it is assembled, and the lanes are
 * compared event by event (`compareParityBySide`); whole lanes are loaded only for a side with
 * a difference to show, an applying entry, `--dump-dir` or an oracle to write.
 *
 * @throws only what is not an input error (bad inputs become `error` cells)
 */
export async function checkCells(options: CheckCellsOptions): Promise<CheckCellsResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const results: Array<FinishedCell | undefined> = new Array(options.locations.length);
  const replayed = new Map<string, ReplayedCell>();
  const told = (index: number, finished: FinishedCell): void => {
    results[index] = finished;
    options.progress?.finished(index, finished.cell);
  };
  const jobs = Math.max(1, options.jobs);
  const queue = await plannedBatches(options, jobs, told);
  // Each live lane is normalized as it is assembled and spilled to a file here (cell-legs.ts).
  const spillDir = queue.length > 0 ? await mkdtemp(path.join(tmpdir(), "parity-lanes-")) : undefined;
  const spills = spillDir === undefined ? undefined : createLiveLaneSpills(spillDir);
  // The live bridge lines are kept only when this run may write pending results from them.
  const keepBridgeLane = options.write !== "never";
  const worker = async (): Promise<void> => {
    for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
      // The batch that starts when this one's worker is free again gets its bridge started now,
      // so its start-up overlaps this batch (the caller started the first `jobs` ones).
      const ahead = queue[jobs - 1];
      if (ahead) options.startBridge?.(ahead[0]!.location.provider);
      const batchStarted = now();
      for (const cell of batch) options.progress?.started(cell.index);
      const cells = batch.length === 1 ? batch : await Promise.all(batch.map(heldCell));
      const replays = await replayBatch(
        cells.map((cell) => cell.source),
        { ...options.replay, keepBridgeLane, laneEvents: (dir) => spills!.open(dir) },
        now,
      );
      const run: CellRun = { options, spills: spills!, keepReplay: keepBridgeLane, share: (now() - batchStarted) / cells.length, now };
      // Each cell and its replay are handed over once, in order, and live until that cell is finished (cell-pipeline.ts).
      while (cells.length > 0) {
        const { index, location } = cells[0]!;
        const finished = await finishCell(cells.shift()!, replays.shift()!, run);
        if (finished.replayed !== undefined) replayed.set(`${location.provider}/${location.cell}`, finished.replayed);
        told(index, { cell: finished.cell, extras: finished.extras });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(jobs, Math.max(1, queue.length)) }, worker));
  } finally {
    if (spillDir !== undefined) await rm(spillDir, { recursive: true, force: true });
  }
  const done = results.filter((r): r is FinishedCell => r !== undefined);
  const run: CheckRunResult = { ms: now() - started, cells: done.map((r) => r.cell) };
  if (options.facts !== undefined) run.truthStale = staleTruthEntries(done.map((r) => r.extras.truthEntries ?? []));
  return { run, extras: done.map((r) => r.extras), replayed };
}

/**
 * Every selected cell opened (validated before any replay), and the replayable ones as the
 * queue of batches the workers take from: grouped by provider, each group cut into at most `jobs`
 * batches that each replay through one bridge process (`planBatches`, the longest expected
 * first). A cell whose recording cannot be read is told as its `error`, a skipped one as `skip`;
 * every other cell is still checked. The queue is the only holder of the opened cells.
 */
async function plannedBatches(options: CheckCellsOptions, jobs: number, told: (index: number, finished: FinishedCell) => void): Promise<CheckCell[][]> {
  // A small recording (every real one) is read, parsed and held once here and handed on to the
  // replay and the recorded leg; a larger one is validated without holding its entries and
  // streamed from its directory as the walk goes.
  const opened = await Promise.all(
    options.locations.map(async (location, index) => {
      try {
        return await openCell(location, index);
      } catch (thrown) {
        if (!(thrown instanceof InputError)) throw thrown;
        told(index, { cell: inputErrorCell(location, thrown, 0), extras: emptyExtras(location) });
        return undefined;
      }
    }),
  );
  const groups = new Map<string, number[]>();
  for (const cell of opened) {
    if (cell === undefined) continue;
    const reason = skipReason(cell, options.replay);
    if (reason !== undefined) {
      told(cell.index, { cell: skippedCell(cell.location, reason), extras: emptyExtras(cell.location) });
      continue;
    }
    groups.set(cell.location.provider, [...(groups.get(cell.location.provider) ?? []), cell.index]);
  }
  const msOf = (index: number): number | undefined => options.cellTimes?.get(`${options.locations[index]!.provider}/${options.locations[index]!.cell}`);
  return planBatches([...groups.values()], jobs, options.batch !== false, msOf).map((task) => task.map((index) => opened[index]!));
}
