/**
 * Replay (docs/design/00-product.md flow 2; spec 10 §5): drive a bridge from a recording in causal
 * order, with the replay child standing in for the agent, and assemble the live thread lane.
 * The public testing API is {@link replayRecording}; the gate behind `parity check`, which
 * composes replay, compare and report, is `harness/check`.
 */
export { replayRecording, type ReplayRecordingOptions, type ReplayResult } from "./replay-recording.js";
export { runLiveReplay, type LiveReplay, type ReplayOptions } from "./live-replay.js";
export { formatDivergenceSummary, type ReplayDivergence, type ReplayDivergenceKind, type ReplayNote } from "./walk/divergence.js";
export { buildReplayPlan, type ReplayPlan, type ReplayStep } from "./plan/plan.js";
export { replayProfileFor, type ReplayProfile } from "./bridge/profiles.js";
export { createReplaySandbox, CELL_FIXTURE_DIR, type ReplaySandbox, type ReplaySandboxOptions } from "./sandbox/sandbox.js";
export { createPathMap, type PathMap, type PathRewriteRule } from "./sandbox/path-map.js";
