import type { Recording } from "../../recording/reader.js";
import { compareLaneEntries, type Direction, type LaneEntry } from "../../recording/lane-entry.js";
import { startsAgentProcess } from "../../families/replay-adapters.js";
import { alignCurrentLane } from "./current-lane.js";
import { shapeOfLine, type WireShape } from "./wire.js";

/**
 * Which boundary a step belongs to: `runtime` (the `runtime→bridge` / `bridge→runtime`
 * lanes) or `provider` (`provider→bridge` / `bridge→provider`).
 */
export type ReplaySide = "runtime" | "provider";

/**
 * One entry of the merged recording as the scheduler walks it (spec 10 §5.1 Planning;
 * docs/design/00-product.md flow 2). `role` is `input` for the lanes the harness writes
 * (`runtime→bridge`, `provider→bridge`) and `expect` for the lanes the bridge must produce
 * (`bridge→runtime`, `bridge→provider`).
 */
export interface ReplayStep {
  /** Position in {@link ReplayPlan.steps} (0-based). */
  index: number;
  entry: LaneEntry;
  role: "input" | "expect";
  side: ReplaySide;
  /**
   * Agent process the entry belongs to (0-based) for provider-side entries; -1 for the
   * runtime side. A new segment starts at each `bridge→provider` `initialize` request
   * (spec 10 §5.2, Segments).
   */
  segment: number;
  shape: WireShape;
}

/** The walk order of one recording plus what the scheduler needs to drive it. */
export interface ReplayPlan {
  steps: ReplayStep[];
  /** Number of provider segments (agent processes the recording saw). */
  segments: number;
  /**
   * True when the first runtime request of the recording is `initialize`; the scheduler
   * then sends no handshake of its own (a process-scoped or whole-process recording).
   */
  recordsInitialize: boolean;
}

/**
 * True when a current lane must be placed at the recorded lane's positions: the recording
 * has agent lanes, and every current line is anchored on a runtime line (the reference's
 * rerecord and this product's, spec 10 §6.6 step 4). A lane anchored after agent lines
 * too is already in causal order and is merged as it is.
 */
function needsAlignment(recording: Recording, current: readonly LaneEntry[]): boolean {
  if (recording.lanes["provider→bridge"].length === 0 && recording.lanes["bridge→provider"].length === 0) return false;
  const runtime = recording.lanes["runtime→bridge"];
  const anchors = new Set(runtime.map((e) => `${e.run}:${e.seq}`));
  const first = runtime[0];
  if (first) anchors.add(`${first.run}:${first.seq - 1}`);
  return current.every((e) => anchors.has(`${e.run}:${Math.floor(e.seq)}`));
}

/**
 * The recording merged by `(run, seq)`; with `useCurrent` and a current lane, the current
 * lane replaces the recorded bridge lane at the recorded lane's causal positions
 * (see {@link alignCurrentLane}).
 */
export function mergedForReplay(recording: Recording, useCurrent: boolean): LaneEntry[] {
  if (!useCurrent || recording.currentBridgeLane === null) return recording.merged({ useCurrent: false });
  if (!needsAlignment(recording, recording.currentBridgeLane)) return recording.merged({ useCurrent: true });
  const bridge = alignCurrentLane(recording.lanes["bridge→runtime"], recording.currentBridgeLane);
  const rest = recording.merged({ useCurrent: false }).filter((e) => e.dir !== "bridge→runtime");
  return [...rest, ...bridge].sort(compareLaneEntries);
}

const INPUT_DIRECTIONS: ReadonlySet<Direction> = new Set<Direction>(["runtime→bridge", "provider→bridge"]);

/**
 * Builds the replay plan of a recording: its lanes merged by `(run, seq)` (with the
 * current bridge lane when `useCurrent`, spec 10 §4), each entry classified, provider
 * entries cut into segments at every `bridge→provider` `initialize` request. Pure.
 *
 * @param useCurrent swap in `bridge→runtime.current.ndjson` when present (default true)
 */
export function buildReplayPlan(recording: Recording, useCurrent = true): ReplayPlan {
  const merged = mergedForReplay(recording, useCurrent);
  const classify = createStepClassifier();
  const steps = merged.map(classify);
  let segment = -1;
  for (const step of steps) segment = Math.max(segment, step.segment);
  const firstRuntimeRequest = steps.find((s) => s.entry.dir === "runtime→bridge" && s.shape.kind === "request")?.shape.method;
  return { steps, segments: segment + 1, recordsInitialize: firstRuntimeRequest === "initialize" };
}

/**
 * A replay plan read one step at a time, in walk order (docs/design/00-product.md flow 2): the scheduler
 * holds only the current window, so a 200 000-line recording is never held as steps. The
 * counts are known before the walk (from a pre-pass or the in-memory plan).
 */
export interface StepSource {
  /** Agent processes (provider segments) the recording saw. */
  readonly segments: number;
  /** See {@link ReplayPlan.recordsInitialize}. */
  readonly recordsInitialize: boolean;
  /** Number of expectations (`bridge→runtime` and `bridge→provider` entries). */
  readonly expectationsTotal: number;
  /** Recorded bridge requests per `side|method`, for telling out-of-order requests from new ones. */
  readonly requestCounts: ReadonlyMap<string, number>;
  /** The first entry in walk order (its `ts` starts the clock), or undefined for an empty recording. */
  readonly firstEntry: LaneEntry | undefined;
  /** The next step, or undefined after the last. @throws InputError on bad input met while reading. */
  next(): Promise<ReplayStep | undefined>;
}

/** The key of {@link StepSource.requestCounts}. */
export function requestCountKey(side: ReplaySide, method: string | undefined): string {
  return `${side}|${method ?? ""}`;
}

/** Counts a step into request counts and expectations (shared by both plan sources). */
export function countStep(step: Pick<ReplayStep, "role" | "side" | "shape">, counts: Map<string, number>): number {
  if (step.role !== "expect") return 0;
  if (step.shape.kind === "request") {
    const key = requestCountKey(step.side, step.shape.method);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return 1;
}

/** Serves an in-memory {@link ReplayPlan} as a {@link StepSource}. */
export function planSource(plan: ReplayPlan): StepSource {
  const requestCounts = new Map<string, number>();
  let expectationsTotal = 0;
  for (const step of plan.steps) expectationsTotal += countStep(step, requestCounts);
  let at = 0;
  return {
    segments: plan.segments,
    recordsInitialize: plan.recordsInitialize,
    expectationsTotal,
    requestCounts,
    firstEntry: plan.steps[0]?.entry,
    next: () => Promise.resolve(plan.steps[at++]),
  };
}

/**
 * Classifies entries in walk order into steps, numbering them and cutting provider
 * segments at each `bridge→provider` `initialize` (the incremental form of {@link buildReplayPlan}).
 */
export function createStepClassifier(): (entry: LaneEntry) => ReplayStep {
  let segment = -1;
  let index = 0;
  return (entry) => {
    const shape = shapeOfLine(entry.line);
    const side: ReplaySide = entry.dir === "runtime→bridge" || entry.dir === "bridge→runtime" ? "runtime" : "provider";
    if (side === "provider") {
      const startsAgent = entry.dir === "bridge→provider" && startsAgentProcess(entry.line, shape.kind === "request" && shape.method === "initialize");
      if (segment === -1 || startsAgent) segment += 1;
    }
    const step: ReplayStep = {
      index,
      entry,
      role: INPUT_DIRECTIONS.has(entry.dir) ? "input" : "expect",
      side,
      segment: side === "provider" ? segment : -1,
      shape,
    };
    index += 1;
    return step;
  };
}
