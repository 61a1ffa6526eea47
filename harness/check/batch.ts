import type { LaneEntry } from "../recording/lane-entry.js";
import type { Recording } from "../recording/reader.js";
import type { ReplayDivergence, ReplayNote } from "../replay/walk/divergence.js";
import { driveBridge, isRecording, type ReplaySource } from "../replay/live-replay.js";
import { createStepClassifier, mergedForReplay, planSource, type ReplayStep } from "../replay/plan/plan.js";
import { openLiveLane, replayRecording, type ReplayRecordingOptions, type ReplayResult } from "../replay/replay-recording.js";
import { anchorBridgeLines } from "../replay/walk/bridge-lane.js";
import type { LiveBridgeLine } from "../replay/walk/schedule-types.js";

const entryKey = (entry: { run: number; seq: number }): string => `${entry.run}:${entry.seq}`;

function threadIdOf(line: string): string | undefined {
  if (!line.includes('"threadId"')) return undefined;
  try {
    const threadId = (JSON.parse(line) as { params?: { threadId?: unknown } }).params?.threadId;
    return typeof threadId === "string" ? threadId : undefined;
  } catch {
    return undefined;
  }
}

/** First and last `(run, seq)` of a merged recording, or undefined when it is empty. */
function spanOf(entries: readonly LaneEntry[]): { first: LaneEntry; last: LaneEntry } | undefined {
  const first = entries[0];
  const last = entries[entries.length - 1];
  return first && last ? { first, last } : undefined;
}

const before = (a: { run: number; seq: number }, b: { run: number; seq: number }): boolean => a.run < b.run || (a.run === b.run && a.seq < b.seq);

/** One cell of a batch: its recording, its place in the order given, its merged entries. */
interface BatchCell {
  recording: Recording;
  given: number;
  entries: LaneEntry[];
}

/**
 * The cells of a batch in recorded order, or undefined when the sources cannot share one bridge:
 * fewer than two, not all loaded thread recordings of one provider, an empty one, two that
 * interleave in `(run, seq)`, or two of one thread.
 */
function batchableCells(sources: readonly ReplaySource[], useCurrent: boolean): BatchCell[] | undefined {
  if (!sources.every(isRecording)) return undefined;
  const recordings = sources as readonly Recording[];
  const provider = recordings[0]?.manifest.provider;
  if (recordings.length < 2 || recordings.some((r) => r.manifest.provider !== provider || r.manifest.scope !== "thread" || !r.manifest.threadId)) {
    return undefined;
  }
  const cells = recordings.map((recording, given) => ({ recording, given, entries: mergedForReplay(recording, useCurrent) }));
  if (cells.some((c) => c.entries.length === 0)) return undefined;
  cells.sort((a, b) => (before(spanOf(a.entries)!.first, spanOf(b.entries)!.first) ? -1 : 1));
  for (let i = 1; i < cells.length; i += 1) {
    if (!before(spanOf(cells[i - 1]!.entries)!.last, spanOf(cells[i]!.entries)!.first)) return undefined;
  }
  const threadIds = new Set(cells.map((c) => c.recording.manifest.threadId));
  return threadIds.size === cells.length ? cells : undefined;
}

/** The batch's one plan: every cell's steps in order, which cell each entry belongs to, expectations per cell. */
function planOfCells(cells: readonly BatchCell[]): { steps: ReplayStep[]; segments: number; cellOfEntry: Map<string, number>; expectations: number[] } {
  const cellOfEntry = new Map<string, number>();
  const classify = createStepClassifier();
  const steps: ReplayStep[] = [];
  const expectations = cells.map(() => 0);
  cells.forEach((cell, index) => {
    for (const entry of cell.entries) {
      cellOfEntry.set(entryKey(entry), index);
      const step = classify(entry);
      if (step.role === "expect") expectations[index]! += 1;
      steps.push(step);
    }
  });
  let segments = 0;
  for (const step of steps) segments = Math.max(segments, step.segment + 1);
  return { steps, segments, cellOfEntry, expectations };
}

/** The batch's divergences and notes, each given to the cell whose recorded entry it names (one naming none: every cell, notes the first). */
function perCell(
  outcome: { divergences: readonly ReplayDivergence[]; notes: readonly ReplayNote[] },
  cellCount: number,
  cellOfEntry: ReadonlyMap<string, number>,
  steps: readonly ReplayStep[],
): { divergences: ReplayDivergence[][]; notes: ReplayNote[][] } {
  const divergences: ReplayDivergence[][] = Array.from({ length: cellCount }, () => []);
  const notes: ReplayNote[][] = Array.from({ length: cellCount }, () => []);
  const indexesOf = (at: { run: number | null; seq: number | null }): number[] => {
    const index = at.run === null || at.seq === null ? undefined : cellOfEntry.get(entryKey({ run: at.run, seq: at.seq }));
    return index === undefined ? divergences.map((_, i) => i) : [index];
  };
  for (const d of outcome.divergences) for (const i of indexesOf(d)) divergences[i]!.push(d);
  for (const n of outcome.notes) for (const i of n.seq === null ? [0] : indexesOf({ run: steps.find((s) => s.entry.seq === n.seq)?.entry.run ?? null, seq: n.seq })) notes[i]!.push(n);
  return { divergences, notes };
}

/**
 * The batch's live bridge lines as one `bridge→runtime` lane per cell, each anchored as a replay
 * of that cell alone anchors its own (`anchorBridgeLines` from the cell's first entry): a line
 * goes to the cell its `threadId` names, else to the cell of the input it is anchored after (a line
 * before any input: the first cell). A rerecord takes a changed cell's lane from here
 * (harness/check/pending.ts), and checks it as it checks its own: it must assemble to the cell's
 * live thread lane, and a lane to be written must replay.
 */
function bridgeLanesOf(lines: readonly LiveBridgeLine[], cells: readonly BatchCell[], cellOfEntry: ReadonlyMap<string, number>, cellOfThread: ReadonlyMap<string, number>): LaneEntry[][] {
  const perCell: LiveBridgeLine[][] = cells.map(() => []);
  for (const live of lines) {
    const threadId = threadIdOf(live.line);
    const index = (threadId === undefined ? undefined : cellOfThread.get(threadId)) ?? (live.anchor === null ? 0 : (cellOfEntry.get(entryKey(live.anchor)) ?? 0));
    perCell[index]!.push(live);
  }
  return perCell.map((own, index) => anchorBridgeLines(cells[index]!.entries[0], own));
}

/** Replays every cell from the first one the batch failed on again alone, each with a note saying why. */
async function replayFailedAlone(results: ReplayResult[], cells: readonly BatchCell[], timedAlone: (recording: Recording) => Promise<ReplayResult>): Promise<void> {
  const firstBad = results.findIndex((r) => !r.ok || r.expectationsMet !== r.expectationsTotal);
  if (firstBad === -1) return;
  const bad = results[firstBad]!;
  const why = bad.divergences[0]
    ? `${bad.cell}: ${bad.divergences[0].seq === null ? "" : `seq ${bad.divergences[0].seq}: `}${bad.divergences[0].message}`
    : `${bad.cell}: ${bad.expectationsMet} of ${bad.expectationsTotal} recorded outputs met`;
  for (let i = firstBad; i < cells.length; i += 1) {
    const alone = await timedAlone(cells[i]!.recording);
    alone.notes.unshift({ seq: null, message: `replayed alone: the batch through one bridge diverged (${why})` });
    results[i] = alone;
  }
}

/**
 * Replays several thread cells of one provider through ONE bridge process, in recorded order
 * (docs/design/00-product.md flow 2; the check-time benchmark in README.md): the real recordings of a provider
 * were made by one bridge process (they share a `run`), so one bridge replaying them one
 * after another is the recording's own situation, and it saves a bridge start per cell. The
 * cells' merged lanes must not interleave in `(run, seq)`; otherwise, or with fewer than two
 * cells, each is replayed alone. Each live bridge line goes to its cell's lane by its
 * `threadId`; divergences and notes go to the cell whose recorded entry they name (one that
 * names none, to every cell). When the batch diverges, every cell from the first divergent
 * one on is replayed again alone, so a cell's report never depends on another cell's
 * failure. Each cell keeps its own sandbox workspace, seeded with its own fixture (a step's
 * lines are path-mapped to its cell's workspace). Results come back in the order given.
 * Batched results carry a `bridgeLane` only when `keepBridgeLane: true` is asked (one per cell,
 * see `bridgeLanesOf`); a cell replayed again alone carries its own. A recording given as its directory (see
 * `ReplaySource`) is streamed (`replayRecording`), so a batch holding one replays alone.
 *
 * @throws as `replayRecording`
 */
export async function replayBatch(sources: readonly ReplaySource[], options: ReplayRecordingOptions = {}, now: () => number = () => performance.now()): Promise<ReplayResult[]> {
  const timedAlone = async (recording: ReplaySource): Promise<ReplayResult> => {
    const started = now();
    const result = await replayRecording(recording, options);
    return { ...result, ms: now() - started };
  };
  const cells = batchableCells(sources, options.useCurrent ?? true);
  if (!cells) {
    const results: ReplayResult[] = [];
    for (const source of sources) results.push(await timedAlone(source));
    return results;
  }
  const provider = cells[0]!.recording.manifest.provider;
  const { steps, segments, cellOfEntry, expectations } = planOfCells(cells);

  const lanes = cells.map((cell) => openLiveLane(cell.recording.manifest.provider, cell.recording.dir, options));
  const cellOfThread = new Map(cells.map((cell, index) => [cell.recording.manifest.threadId as string, index]));
  const laneFor = (line: string): (typeof lanes)[number] | undefined => {
    const threadId = threadIdOf(line);
    const index = threadId === undefined ? undefined : cellOfThread.get(threadId);
    return index === undefined ? undefined : lanes[index];
  };
  const met = cells.map(() => 0);
  // Cells replay one after another, so a cell's time runs from the previous cell's last met
  // output (or the batch start) to its own last one; the last cell also gets the bridge's exit.
  const lastMetAt = cells.map(() => undefined as number | undefined);
  const batchStarted = now();
  const keepBridgeLane = options.keepBridgeLane === true;
  const { outcome, pids, stderr } = await driveBridge(planSource({ steps, segments, recordsInitialize: false }), provider, {
    ...options,
    keepBridgeLane,
    cells: cells.map((cell) => cell.recording.manifest.cell),
    recordingDirs: cells.map((cell) => cell.recording.dir),
    cellOfStep: (step) => cellOfEntry.get(entryKey(step.entry)) ?? 0,
    sink: {
      bridgeLine: (line, clock) => laneFor(line)?.feedBridgeLine(line, clock),
      runtimeLine: (line) => laneFor(line)?.builder.feedRuntimeLine(line),
    },
    onMet: (step) => {
      const index = cellOfEntry.get(entryKey(step.entry));
      if (index !== undefined) {
        met[index]! += 1;
        lastMetAt[index] = now();
      }
    },
  });

  const batchEnded = now();
  const cellMs = cells.map((_, index) => {
    const from = index === 0 ? batchStarted : (lastMetAt[index - 1] ?? batchStarted);
    const to = index === cells.length - 1 ? batchEnded : (lastMetAt[index] ?? from);
    return Math.max(0, to - from);
  });
  const { divergences, notes } = perCell(outcome, cells.length, cellOfEntry, steps);
  const bridgeLanes = keepBridgeLane ? bridgeLanesOf(outcome.bridgeLines, cells, cellOfEntry, cellOfThread) : undefined;
  const results: ReplayResult[] = cells.map((cell, index) => ({
    provider,
    cell: cell.recording.manifest.cell,
    recordingDir: cell.recording.dir,
    ok: divergences[index]!.length === 0 && outcome.infrastructureTimeout === null,
    infrastructureTimeout: outcome.infrastructureTimeout,
    divergences: divergences[index]!,
    divergenceCount: divergences[index]!.length,
    notes: notes[index]!,
    bridgeLane: bridgeLanes?.[index] ?? [],
    manifest: cell.recording.manifest,
    expectationsMet: met[index]!,
    expectationsTotal: expectations[index]!,
    exit: outcome.exit,
    pids,
    stderr,
    lane: { scope: "thread", ...lanes[index]!.builder.result() },
    ms: cellMs[index]!,
  }));
  await replayFailedAlone(results, cells, timedAlone);
  const byGiven: ReplayResult[] = new Array(cells.length);
  cells.forEach((cell, index) => (byGiven[cell.given] = results[index]!));
  return byGiven;
}
