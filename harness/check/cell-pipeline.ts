/**
 * One selected cell's way through the gate (check-cells.ts `checkCells`): its recording opened
 * (validated, and held when small), its skip reason, its place in a batch, and, once its batch
 * is replayed, its legs built and compared (compare-cell.ts) into its result.
 *
 * The data has a lifetime rather than being freed by hand: a {@link CheckCell} (and with it a held
 * recording) is owned by one holder at a time, the gate's queue of batches until its batch
 * starts, then its batch until its turn, then {@link finishCell}, which turns the recording into
 * the cell's legs ({@link cellLegs}) before comparing, so no one holds the recording while the
 * lanes are compared (a large cell never holds its recording and both lanes at once), and lets
 * go of the legs when it returns the cell's result.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { heldLeg, recordedLeg, type CellLeg, type LiveLaneSpills } from "../compare/cell-legs.js";
import { grammarDropKeys, type ParityLeg } from "../compare/parity.js";
import { InputError } from "../errors.js";
import { normalizeThreadLane } from "../lanes/index.js";
import { manifestCellOf } from "../recording/alternates.js";
import { readRecording, validateRecording, type Recording, type RecordingLocation, type ValidatedRecording } from "../recording/reader.js";
import { erroredCell, type CellResult } from "../report/check-report.js";
import { isRecording } from "../replay/live-replay.js";
import { replaySkipReason } from "../replay/bridge/profiles.js";
import { createPlanCounter, type CountedRecordingDir } from "../replay/plan/stream-plan.js";
import type { ReplayOptions, ReplayResult } from "../replay/replay-recording.js";
import { whyNotAcceptable } from "../rerecord/accept.js";
import { liveThreadLaneOfLeg, type ReplayedCell } from "../rerecord/replayed-cell.js";
import { agentSideOf } from "./cell-truth.js";
import { compareCell, emptyExtras, type CellExtras, type CompareCellOptions } from "./compare-cell.js";

/**
 * Largest recording, its lane files' bytes together, that `checkCells` reads once and holds
 * from validation to comparison: 1 MiB (real recordings are under 100 KiB). A larger one is
 * validated streamed and read again by the walk, so memory does not grow with it.
 */
export const HELD_RECORDING_BYTES = 1024 * 1024;

/** One selected cell whose recording passed validation. */
export interface CheckCell {
  /** Its index into the gate's `locations` (report order). */
  readonly index: number;
  readonly location: RecordingLocation;
  /** What validation learnt (manifest, whether a current bridge lane is there). */
  readonly recording: ValidatedRecording;
  /** What its replay starts from: the recording read and held, or its directory with the plan's counts (streamed). */
  readonly source: Recording | CountedRecordingDir;
}

/** A cell's report line and extras, and under a write policy other than `never` its replay when it changed and can be accepted. */
export interface FinishedCell {
  cell: CellResult;
  extras: CellExtras;
  replayed?: ReplayedCell;
}

/** What {@link finishCell} needs of the run besides the cell. */
export interface CellRun {
  options: CompareCellOptions;
  /** Where the batch's live lanes were spilled as they were assembled (cell-legs.ts). */
  spills: LiveLaneSpills;
  /** Keep the replay of a changed cell that can be accepted (the write policy is not `never`). */
  keepReplay: boolean;
  /** The cell's part of its batch's wall time (ms), when the replay does not say its own. */
  share: number;
  /** Monotonic clock in ms. */
  now(): number;
}

/**
 * Opens one cell (spec 10 §4): its recording validated, read and parsed once and held when its
 * lane files together are at most {@link HELD_RECORDING_BYTES}, else streamed with the replay
 * plan's counts taken on the way (the walk then streams it again).
 *
 * @throws InputError as `readRecording`
 */
export async function openCell(location: RecordingLocation, index: number): Promise<CheckCell> {
  const expect = { provider: location.provider, cell: manifestCellOf(location) };
  if ((await laneBytes(location.dir)) <= HELD_RECORDING_BYTES) {
    const recording = await readRecording(location.dir, { expect });
    return { index, location, recording: { dir: location.dir, manifest: recording.manifest, hasCurrentBridgeLane: recording.currentBridgeLane !== null }, source: recording };
  }
  const counter = createPlanCounter();
  const recording = await validateRecording(location.dir, { expect, onEntry: counter.take });
  return { index, location, recording, source: { dir: location.dir, counts: counter.result() } };
}

/** The bytes of a recording directory's `.ndjson` files together (0 for a directory that cannot be listed: validation names it). */
async function laneBytes(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const sizes = await Promise.all(names.filter((name) => name.endsWith(".ndjson")).map(async (name) => (await stat(path.join(dir, name)).catch(() => undefined))?.size ?? 0));
  return sizes.reduce((a, b) => a + b, 0);
}

/** The cell as one of a batch: a batch's cells share one bridge only when each is held, so a streamed one is read whole here. */
export async function heldCell(cell: CheckCell): Promise<CheckCell> {
  if (isRecording(cell.source)) return cell;
  const { location } = cell;
  return { ...cell, source: await readRecording(location.dir, { expect: { provider: location.provider, cell: manifestCellOf(location) } }) };
}

/** Why a cell is not replayed (process-scoped, or no replay profile), or undefined (`replaySkipReason`). */
export function skipReason(cell: CheckCell, replay: ReplayOptions | undefined): string | undefined {
  return replaySkipReason({ scope: cell.recording.manifest.scope, provider: cell.location.provider }, replay);
}

/** A skipped cell's report line. */
export function skippedCell(location: RecordingLocation, reason: string): CellResult {
  return { provider: location.provider, cell: location.cell, status: "skip", ms: 0, events: 0, diffs: [], stale: [], divergences: [], detail: { skipReason: reason } };
}

/** A cell whose recording or oracle could not be read (status `error`, see `erroredCell`). */
export function inputErrorCell(location: RecordingLocation, error: InputError, ms: number): CellResult {
  return erroredCell({
    provider: location.provider,
    cell: location.cell,
    message: error.message,
    ms,
    ...(error.file !== undefined ? { file: error.file } : {}),
    ...(error.line !== undefined ? { line: error.line } : {}),
  });
}

/**
 * The legs a replayed cell is compared on, made from the cell and its live lane: the live leg
 * (spilled, or held), the recorded leg (built from a held recording, or streamed from its
 * directory) and the agent-side lines the truth check reads. What they keep of a held recording
 * is what they need (the recorded leg's events, the agent-side entries), not the recording.
 */
export function cellLegs(cell: CheckCell, lane: ReplayResult["lane"], spills: LiveLaneSpills): { live: CellLeg & { events: number }; recorded: CellLeg; agentSide: ReturnType<typeof agentSideOf> } {
  const { location, source } = cell;
  const held = isRecording(source) ? source : undefined;
  return {
    live: spills.leg(location.dir, lane) ?? { ...heldLeg(legOf(lane)), events: lane.events.length },
    recorded: recordedLeg(held ?? cell.recording),
    agentSide: agentSideOf(held, location.dir),
  };
}

/**
 * Finishes one replayed cell: its legs ({@link cellLegs}), its comparison (`compareCell`), its
 * time (its replay's, or its share of the batch's, plus its comparison), and, when the run keeps
 * them, its replay for pending results; its spilled lane released either way. A recording or
 * oracle that cannot be read makes the cell an `error`.
 *
 * @throws only what is not an InputError
 */
export async function finishCell(cell: CheckCell, replayResult: ReplayResult, run: CellRun): Promise<FinishedCell> {
  const { location } = cell;
  const { lane, ...replay } = replayResult;
  const compareStarted = run.now();
  const replayMs = replay.ms ?? run.share;
  try {
    const { live, recorded, agentSide } = cellLegs(cell, lane, run.spills);
    const compared: FinishedCell = await compareCell(location, replay, live, recorded, replayMs, run.options, agentSide);
    compared.cell.ms = replayMs + (run.now() - compareStarted);
    if (run.keepReplay && whyNotAcceptable(compared.cell) === undefined && compared.cell.detail?.missingOracle !== true) {
      compared.replayed = { ...replayedParts(replay), live: liveThreadLaneOfLeg(await live.load()) };
    }
    return compared;
  } catch (thrown) {
    if (!(thrown instanceof InputError)) throw thrown;
    return { cell: inputErrorCell(location, thrown, replayMs + (run.now() - compareStarted)), extras: emptyExtras(location) };
  } finally {
    run.spills.release(location.dir);
  }
}

/** What a rerecord takes from a cell's replay besides its live thread lane (`ReplayedCell`). */
function replayedParts(replay: Omit<ReplayResult, "lane">): Omit<ReplayedCell, "live"> {
  const { ok, infrastructureTimeout, divergences, divergenceCount, notes, bridgeLane } = replay;
  return { ok, infrastructureTimeout, divergences, divergenceCount, notes, bridgeLane };
}

/** A thread lane as a comparison leg: its events normalized, its unhandled count and grammar drops. */
function legOf(lane: Pick<ReplayResult["lane"], "events" | "unhandled" | "grammarDrops">): ParityLeg {
  return { events: normalizeThreadLane(lane.events), unhandled: lane.unhandled, grammarDrops: grammarDropKeys(lane.grammarDrops) };
}
