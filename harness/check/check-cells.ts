import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLiveLaneSpills, heldLeg, recordedLeg } from "../compare/cell-legs.js";
import { grammarDropKeys, type ParityLeg } from "../compare/parity.js";
import { InputError, UsageError } from "../errors.js";
import { normalizeThreadLane } from "../lanes/index.js";
import { readRecording, validateRecording, type Recording, type RecordingLocation, type ValidatedRecording } from "../recording/reader.js";
import { erroredCell, type CellResult, type CheckRunResult } from "../report/check-report.js";
import { isRecording, type ReplaySource } from "../replay/live-replay.js";
import { replayProfileFor } from "../replay/bridge/profiles.js";
import { createPlanCounter, type CountedRecordingDir } from "../replay/plan/stream-plan.js";
import { replayBatch } from "./batch.js";
import { planBatches } from "./batch-plan.js";
import { whyNotAcceptable } from "../rerecord/accept.js";
import { liveThreadLaneOfLeg, type ReplayedCell } from "../rerecord/replayed-cell.js";
import type { ReplayOptions, ReplayResult } from "../replay/replay-recording.js";
import { staleTruthEntries } from "../compare/truth/truth-allowlist.js";
import { agentSideOf } from "./cell-truth.js";
import { compareCell, emptyExtras, type CellExtras, type CompareCellOptions } from "./compare-cell.js";

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

function skipped(location: RecordingLocation, reason: string): CellResult {
  return {
    provider: location.provider,
    cell: location.cell,
    status: "skip",
    ms: 0,
    events: 0,
    diffs: [],
    stale: [],
    divergences: [],
    detail: { skipReason: reason },
  };
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
 * A recording of at most {@link HELD_RECORDING_BYTES} is read and parsed once, at validation,
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
  const results: Array<{ cell: CellResult; extras: CellExtras } | undefined> = new Array(options.locations.length);
  const replayed = new Map<string, ReplayedCell>();
  // Every recording is validated before any replay; an unreadable one is that cell's error, and
  // every other cell is still checked. A small recording (every real one) is read, parsed and
  // held once here and handed on to the replay and the recorded leg; a larger one is validated
  // without holding its entries and streamed from its directory as the walk goes.
  const recordings: Array<CheckedRecording | undefined> = await Promise.all(
    options.locations.map(async (location, index) => {
      try {
        return await checkRecording(location);
      } catch (thrown) {
        if (!(thrown instanceof InputError)) throw thrown;
        results[index] = { cell: inputErrorCell(location, thrown, 0), extras: emptyExtras(location) };
        options.progress?.finished(index, results[index].cell);
        return undefined;
      }
    }),
  );

  // Replayable cells, grouped by provider, each group cut into at most `jobs` batches that
  // each replay through one bridge process; the rest are skipped here.
  const groups = new Map<string, number[]>();
  options.locations.forEach((location, index) => {
    if (recordings[index] === undefined) return;
    const reason = skipReason(location, recordings[index]!, options);
    if (reason !== undefined) {
      results[index] = { cell: skipped(location, reason), extras: emptyExtras(location) };
      options.progress?.finished(index, results[index].cell);
      return;
    }
    groups.set(location.provider, [...(groups.get(location.provider) ?? []), index]);
  });
  const jobs = Math.max(1, options.jobs);
  const msOf = (index: number): number | undefined => options.cellTimes?.get(`${options.locations[index]!.provider}/${options.locations[index]!.cell}`);
  const tasks = planBatches([...groups.values()], jobs, options.batch !== false, msOf);
  // Each live lane is normalized as it is assembled and spilled to a file here (cell-legs.ts).
  const spillDir = tasks.length > 0 ? await mkdtemp(path.join(tmpdir(), "parity-lanes-")) : undefined;
  const spills = spillDir === undefined ? undefined : createLiveLaneSpills(spillDir);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const task = tasks[next];
      next += 1;
      if (!task) return;
      // The batch that starts when this one's worker is free again gets its bridge started now,
      // so its start-up overlaps this batch (the caller started the first `jobs` ones).
      const ahead = tasks[next - 1 + jobs];
      if (ahead) options.startBridge?.(options.locations[ahead[0]!]!.provider);
      const taskStarted = now();
      for (const index of task) options.progress?.started(index);
      const sources: ReplaySource[] = task.length === 1 ? [recordings[task[0]!]!.source] : await Promise.all(task.map((i) => heldSource(recordings[i]!.source, options.locations[i]!)));
      // The live bridge lines are kept only when this run may write pending results from them.
      const keepBridgeLane = options.write !== "never";
      const replays: Array<ReplayResult | undefined> = await replayBatch(sources, { ...options.replay, keepBridgeLane, laneEvents: (dir) => spills!.open(dir) }, now);
      const share = (now() - taskStarted) / task.length;
      for (const [k, index] of task.entries()) {
        // The recorded leg is built (or, streamed, opened) and the recording let go before
        // comparing: a large cell never holds its recording and both lanes at once.
        const location = options.locations[index]!;
        const { lane, ...replay } = replays[k]!;
        replays[k] = undefined;
        const compareStarted = now();
        const replayMs = replay.ms ?? share;
        try {
          const live = spills!.leg(location.dir, lane) ?? { ...heldLeg(legOf(lane)), events: lane.events.length };
          const source = sources[k]!;
          const recorded = recordedLeg(isRecording(source) ? source : recordings[index]!);
          const agentSide = agentSideOf(isRecording(source) ? source : undefined, location.dir);
          sources[k] = "";
          recordings[index] = undefined;
          const compared = await compareCell(location, replay, live, recorded, replayMs, options, agentSide);
          compared.cell.ms = replayMs + (now() - compareStarted);
          results[index] = compared;
          if (keepBridgeLane && whyNotAcceptable(compared.cell) === undefined && compared.cell.detail?.missingOracle !== true) {
            replayed.set(`${location.provider}/${location.cell}`, { ...replayedParts(replay), live: liveThreadLaneOfLeg(await live.load()) });
          }
        } catch (thrown) {
          if (!(thrown instanceof InputError)) throw thrown;
          results[index] = { cell: inputErrorCell(location, thrown, replayMs + (now() - compareStarted)), extras: emptyExtras(location) };
        } finally {
          spills!.release(location.dir);
        }
        options.progress?.finished(index, results[index]!.cell);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(jobs, Math.max(1, tasks.length)) }, worker));
  } finally {
    if (spillDir !== undefined) await rm(spillDir, { recursive: true, force: true });
  }
  const done = results.filter((r): r is { cell: CellResult; extras: CellExtras } => r !== undefined);
  const run: CheckRunResult = { ms: now() - started, cells: done.map((r) => r.cell) };
  if (options.facts !== undefined) run.truthStale = staleTruthEntries(done.map((r) => r.extras.truthEntries ?? []));
  return { run, extras: done.map((r) => r.extras), replayed };
}

/**
 * Largest recording, its lane files' bytes together, that `checkCells` reads once and holds
 * from validation to comparison: 1 MiB (real recordings are under 100 KiB). A larger one is
 * validated streamed and read again by the walk, so memory does not grow with it.
 */
export const HELD_RECORDING_BYTES = 1024 * 1024;

/** A recording that passed validation, with what its replay starts from. */
type CheckedRecording = ValidatedRecording & { source: Recording | CountedRecordingDir };

/**
 * Validates one recording (spec 10 §4): read and parsed once and held when its lane files
 * together are at most {@link HELD_RECORDING_BYTES}, else streamed with the replay plan's counts
 * taken on the way (the walk then streams it again).
 *
 * @throws InputError as `readRecording`
 */
async function checkRecording(location: RecordingLocation): Promise<CheckedRecording> {
  const expect = { provider: location.provider, cell: location.cell };
  if ((await laneBytes(location.dir)) <= HELD_RECORDING_BYTES) {
    const recording = await readRecording(location.dir, { expect });
    return { dir: location.dir, manifest: recording.manifest, hasCurrentBridgeLane: recording.currentBridgeLane !== null, source: recording };
  }
  const counter = createPlanCounter();
  const validated = await validateRecording(location.dir, { expect, onEntry: counter.take });
  return { ...validated, source: { dir: location.dir, counts: counter.result() } };
}

/** The bytes of a recording directory's `.ndjson` files together (0 for a directory that cannot be listed: validation names it). */
async function laneBytes(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const sizes = await Promise.all(names.filter((name) => name.endsWith(".ndjson")).map(async (name) => (await stat(path.join(dir, name)).catch(() => undefined))?.size ?? 0));
  return sizes.reduce((a, b) => a + b, 0);
}

/** A batch's cells share one bridge only when each is held: a streamed one is read whole here. */
async function heldSource(source: Recording | CountedRecordingDir, location: RecordingLocation): Promise<Recording> {
  return isRecording(source) ? source : readRecording(location.dir, { expect: { provider: location.provider, cell: location.cell } });
}

/** What a rerecord takes from a cell's replay besides its live thread lane (`ReplayedCell`). */
function replayedParts(replay: Omit<ReplayResult, "lane">): Omit<ReplayedCell, "live"> {
  const { ok, infrastructureTimeout, divergences, divergenceCount, notes, bridgeLane } = replay;
  return { ok, infrastructureTimeout, divergences, divergenceCount, notes, bridgeLane };
}

/** A cell whose recording or oracle could not be read (status `error`, see `erroredCell`). */
function inputErrorCell(location: RecordingLocation, error: InputError, ms: number): CellResult {
  return erroredCell({
    provider: location.provider,
    cell: location.cell,
    message: error.message,
    ms,
    ...(error.file !== undefined ? { file: error.file } : {}),
    ...(error.line !== undefined ? { line: error.line } : {}),
  });
}

/** Why a cell is not replayed (process-scoped, or no replay profile), or undefined. */
function skipReason(location: RecordingLocation, recording: Pick<ValidatedRecording, "manifest">, options: CheckCellsOptions): string | undefined {
  if (recording.manifest.scope === "process") return "process-scoped: no thread lane";
  if (options.replay?.modulePath !== undefined) return undefined;
  try {
    replayProfileFor(location.provider, options.replay?.adapters);
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}

/** A thread lane as a comparison leg: its events normalized, its unhandled count and grammar drops. */
function legOf(lane: Pick<ReplayResult["lane"], "events" | "unhandled" | "grammarDrops">): ParityLeg {
  return { events: normalizeThreadLane(lane.events), unhandled: lane.unhandled, grammarDrops: grammarDropKeys(lane.grammarDrops) };
}
