import type { Recording } from "../recording/reader.js";
import { compareLaneEntries, type Direction, type LaneEntry } from "../recording/lane-entry.js";
import { alignCurrentLane } from "./current-lane.js";
import { shapeOfLine, type WireShape } from "./wire.js";

/**
 * Which boundary a step belongs to: `runtime` (the `runtime→bridge` / `bridge→runtime`
 * lanes) or `provider` (`provider→bridge` / `bridge→provider`).
 */
export type ReplaySide = "runtime" | "provider";

/**
 * One entry of the merged recording as the scheduler walks it (spec 10 §5.1 Planning;
 * 00-product.md flow 2). `role` is `input` for the lanes the harness writes
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
 * The recording merged by `(run, seq)`; with `useCurrent` and a current lane, the current
 * lane replaces the recorded bridge lane at the recorded lane's causal positions
 * (see {@link alignCurrentLane}).
 */
export function mergedForReplay(recording: Recording, useCurrent: boolean): LaneEntry[] {
  if (!useCurrent || recording.currentBridgeLane === null) return recording.merged({ useCurrent: false });
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
  const steps: ReplayStep[] = [];
  let segment = -1;
  let firstRuntimeRequest: string | undefined;
  for (const entry of merged) {
    const shape = shapeOfLine(entry.line);
    const side: ReplaySide = entry.dir === "runtime→bridge" || entry.dir === "bridge→runtime" ? "runtime" : "provider";
    if (side === "provider") {
      const startsAgent = entry.dir === "bridge→provider" && shape.kind === "request" && shape.method === "initialize";
      if (segment === -1 || startsAgent) segment += 1;
    }
    if (entry.dir === "runtime→bridge" && shape.kind === "request" && firstRuntimeRequest === undefined) {
      firstRuntimeRequest = shape.method;
    }
    steps.push({
      index: steps.length,
      entry,
      role: INPUT_DIRECTIONS.has(entry.dir) ? "input" : "expect",
      side,
      segment: side === "provider" ? segment : -1,
      shape,
    });
  }
  return { steps, segments: segment + 1, recordsInitialize: firstRuntimeRequest === "initialize" };
}
