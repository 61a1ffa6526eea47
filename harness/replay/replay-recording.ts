import { join } from "node:path";
import { createThreadLaneBuilder, type ThreadLane } from "../lanes/index.js";
import { MANIFEST_FILE, readManifest } from "../recording/manifest.js";
import type { Recording } from "../recording/reader.js";
import { runLiveReplay, type LiveReplay, type ReplayOptions } from "./live-replay.js";

export type { ReplayOptions } from "./live-replay.js";

/** The result of one replay: the live replay plus its assembled thread lane. */
export interface ReplayResult extends LiveReplay {
  /** The live thread lane: events after the host grammar (not normalized), unhandled count, grammar drops. */
  lane: ThreadLane;
  /**
   * Wall time this cell took, in ms, when `replayBatch` (harness/check/batch.ts) measured it
   * (for a batched cell: from the previous cell's last met output to this cell's last).
   */
  ms?: number;
}

/** Options of {@link replayRecording}: the live replay's plus the lane assembler's. */
export interface ReplayRecordingOptions extends Omit<ReplayOptions, "sink"> {
  /** Assembler options of the live thread lane (defaults: throttle 500 ms, text flush 0). */
  lane?: { progressThrottleMs?: number; textDeltaFlushMs?: number };
}

/**
 * Replays one recording through a live bridge and assembles the bridge's `thread/delta`
 * output, as it arrives, into the live thread lane with the host grammar (00-product.md
 * flow 2; spec 10 §5; public testing API `replayRecording`; the streaming builder of
 * harness/lanes). The assembler's clock is the recording's `ts` of the expectation each live
 * line met (or the last entry walked), never the wall clock, and a recorded release
 * `thread/stop` clears the grammar's thread state when it is written, so the same recording
 * yields the same lane on every run. See {@link runLiveReplay} for the walk, divergences and
 * process handling.
 *
 * @param source a recording directory (streamed when it has no current lane) or an already
 *   read {@link Recording}
 * @throws as {@link runLiveReplay}; a misbehaving bridge never throws (divergences instead)
 */
export async function replayRecording(source: string | Recording, options: ReplayRecordingOptions = {}): Promise<ReplayResult> {
  const manifest = typeof source === "string" ? await readManifest(join(source, MANIFEST_FILE)) : source.manifest;
  const builder = createThreadLaneBuilder({
    providerId: manifest.provider,
    ...(options.lane?.progressThrottleMs !== undefined ? { progressThrottleMs: options.lane.progressThrottleMs } : {}),
    ...(options.lane?.textDeltaFlushMs !== undefined ? { textDeltaFlushMs: options.lane.textDeltaFlushMs } : {}),
  });
  const live = await runLiveReplay(source, {
    ...options,
    sink: {
      bridgeLine: (line, clock) => void builder.feedBridgeLine(line, clock),
      runtimeLine: (line) => builder.feedRuntimeLine(line),
    },
  });
  return { ...live, lane: { scope: "thread", ...builder.result() } };
}
