import { existsSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../errors.js";
import { CURRENT_BRIDGE_LANE_FILE, LANE_DIRECTIONS, compareLaneEntries, laneFileName, type Direction, type LaneEntry } from "../../recording/lane-entry.js";
import { MANIFEST_FILE, readManifest, type Manifest } from "../../recording/manifest.js";
import { mergeLaneStreams, readLaneEntries } from "../../recording/reader.js";
import { startsAgentProcess } from "../../families/replay-adapters.js";
import { countStep, createStepClassifier, type ReplayStep, type StepSource } from "./plan.js";
import { shapeOfLine } from "./wire.js";

/** A recording opened for a streaming replay: its manifest and its steps, read as the walk goes. */
export interface StreamingPlan {
  manifest: Manifest;
  source: StepSource;
}

/**
 * True when a recording directory can be replayed without loading it: it has no current
 * bridge lane (aligning one needs both bridge lanes in memory, see `alignCurrentLane`).
 */
export function canStreamRecording(dir: string): boolean {
  return !existsSync(join(dir, CURRENT_BRIDGE_LANE_FILE));
}

/**
 * A recording directory that already passed `validateRecording`, with the plan counts taken on
 * the way ({@link createPlanCounter}): replayed streamed without a second counting pass.
 */
export interface CountedRecordingDir {
  dir: string;
  counts: PlanCounts;
}

/** What a streaming replay needs to know of a recording before its walk (see {@link createPlanCounter}). */
export type PlanCounts = Pick<StepSource, "segments" | "recordsInitialize" | "expectationsTotal" | "requestCounts" | "firstEntry">;

/**
 * Counts a recording's plan from its recorded lane entries, fed lane by lane (each lane in file
 * order, the lanes in any order): expectations, bridge requests per `side|method`, the first
 * entry, the agent segments and whether the first runtime request is `initialize`. Shared by
 * {@link openStreamingPlan}'s own pass and by a caller that already streams the lanes while
 * validating them (`validateRecording`'s `onEntry`), so the walk need not read them twice.
 */
export function createPlanCounter(): { take(entry: LaneEntry, direction: Direction): void; result(): PlanCounts } {
  const requestCounts = new Map<string, number>();
  let expectationsTotal = 0;
  let firstEntry: LaneEntry | undefined;
  let firstProvider: LaneEntry | undefined;
  let firstInitialize: LaneEntry | undefined;
  let initializes = 0;
  let firstRuntimeRequest: string | undefined;
  return {
    take(entry, direction) {
      const role = direction === "runtime→bridge" || direction === "provider→bridge" ? "input" : "expect";
      const side = direction === "runtime→bridge" || direction === "bridge→runtime" ? "runtime" : "provider";
      if (!firstEntry || compareLaneEntries(entry, firstEntry) < 0) firstEntry = entry;
      const shape = shapeOfLine(entry.line);
      expectationsTotal += countStep({ role, side, shape }, requestCounts);
      if (side === "provider" && (!firstProvider || compareLaneEntries(entry, firstProvider) < 0)) firstProvider = entry;
      if (direction === "bridge→provider" && startsAgentProcess(entry.line, shape.kind === "request" && shape.method === "initialize")) {
        initializes += 1;
        firstInitialize ??= entry;
      }
      if (direction === "runtime→bridge" && shape.kind === "request") firstRuntimeRequest ??= shape.method;
    },
    result() {
      const leadingAgentLines = firstProvider !== undefined && (firstInitialize === undefined || compareLaneEntries(firstProvider, firstInitialize) < 0);
      return { segments: initializes + (leadingAgentLines ? 1 : 0), recordsInitialize: firstRuntimeRequest === "initialize", expectationsTotal, requestCounts, firstEntry };
    },
  };
}

/**
 * Opens a recording directory as a {@link StepSource} whose memory does not grow with the
 * recording (docs/design/00-product.md flow 2; the 200 000-line benchmark in README.md). A first streamed
 * pass validates every lane entry (spec 10 §4, Reading: `file:line` errors), checks that each
 * lane is in `(run, seq)` order and that the manifest's line counts match, and counts the
 * expectations and bridge requests; the walk then merges the four lanes by `(run, seq)`
 * one entry at a time. Given `counted` (the counts of a directory that already passed
 * `validateRecording`, taken with {@link createPlanCounter} on the way), the first pass is skipped.
 *
 * @throws InputError naming file and line for any bad input, as `readRecording` does
 */
export async function openStreamingPlan(dir: string, counted?: PlanCounts): Promise<StreamingPlan> {
  const manifestFile = join(dir, MANIFEST_FILE);
  const manifest = await readManifest(manifestFile);
  const files = new Map<Direction, string>();
  for (const direction of LANE_DIRECTIONS) {
    const file = join(dir, laneFileName(direction));
    if (existsSync(file)) files.set(direction, file);
  }
  const counts = counted ?? (await countLanes(manifest, manifestFile, files));
  const merged = mergeLaneStreams([...files].map(([direction, file]) => readLaneEntries(file, direction)));
  const classify = createStepClassifier();
  const next = async (): Promise<ReplayStep | undefined> => {
    const { value, done } = await merged.next();
    return done ? undefined : classify(value);
  };
  return { manifest, source: { ...counts, next } };
}

/** The first pass of {@link openStreamingPlan}: every entry validated and counted. */
async function countLanes(manifest: Manifest, manifestFile: string, files: ReadonlyMap<Direction, string>): Promise<PlanCounts> {
  const counter = createPlanCounter();
  for (const [direction, file] of files) {
    let previous: LaneEntry | undefined;
    let count = 0;
    for await (const { entry, lineNo } of readLaneEntries(file, direction)) {
      if (previous && compareLaneEntries(previous, entry) >= 0) {
        throw new InputError(`entry (run ${entry.run}, seq ${entry.seq}) is out of (run, seq) order in its lane`, { file, line: lineNo });
      }
      previous = entry;
      count += 1;
      counter.take(entry, direction);
    }
    if (manifest.lines[direction] !== count) {
      throw new InputError(`lines["${direction}"] is ${manifest.lines[direction]} but ${laneFileName(direction)} has ${count} entries`, { file: manifestFile });
    }
  }
  for (const direction of LANE_DIRECTIONS) {
    if (!files.has(direction) && manifest.lines[direction] !== 0) {
      throw new InputError(`lines["${direction}"] is ${manifest.lines[direction]} but ${laneFileName(direction)} is missing`, { file: manifestFile });
    }
  }
  return counter.result();
}
