/**
 * Rerecord (docs/design/00-product.md flow 4; spec 10 §6.6): replay recordings through today's bridge and
 * write `bridge→runtime.current.ndjson` beside them plus fresh oracles, never touching the
 * recorded lanes.
 */
export {
  anchorAfterRuntime,
  buildCurrentBridgeLane,
  isHarnessInitializeAnswer,
  mapRequestIdsToRecorded,
  recordedRequestIds,
  runtimeAnchors,
  serializeLaneEntries,
  type CurrentLaneSource,
  type LiveBridgeLine,
} from "./current-lane.js";
export { MIN_SECRET_VALUE_CHARS, rerecordRedactor, type RerecordRedactionOptions } from "./redaction.js";
export { liveLinesOf, rerecordCell, rerecordFromReplay, withCurrentBridgeLane, type FileChange, type RerecordCellOptions, type RerecordCellOutcome } from "./rerecord-cell.js";
export { liveThreadLaneOf, liveThreadLaneOfLeg, replayedCellOf, type LiveThreadLane, type ReplayedCell } from "./replayed-cell.js";
export { rerecordCells, rerecordExitCode, skipReason, type RerecordCellsOptions, type RerecordOutcome, type RerecordSkip } from "./rerecord-cells.js";
export { formatRerecordOutcome, formatRerecordSummary, type RerecordReportOptions } from "./report.js";
export { isReadOnlyDir, refuseInCi, rerecordTargets, type CiWriteCheck, type RerecordTargets, type TargetOptions } from "./targets.js";
