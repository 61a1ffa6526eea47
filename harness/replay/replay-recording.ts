import { buildThreadLane } from "../lanes/index.js";
import type { Recording } from "../recording/reader.js";
import { runLiveReplay, type LiveReplay, type ReplayOptions } from "./live-replay.js";

export type { ReplayOptions } from "./live-replay.js";

/** The result of one replay: the live replay plus its assembled thread lane. */
export interface ReplayResult extends LiveReplay {
  /** The live thread lane: events after the host grammar (not normalized), unhandled count, grammar drops. */
  lane: ReturnType<typeof buildThreadLane>;
}

/** Options of {@link replayRecording}: the live replay's plus the lane assembler's. */
export interface ReplayRecordingOptions extends ReplayOptions {
  /** Assembler options of the live thread lane (defaults: throttle 500 ms, text flush 0). */
  lane?: { progressThrottleMs?: number; textDeltaFlushMs?: number };
}

/**
 * Replays one recording through a live bridge and assembles the bridge's `thread/delta`
 * output into the live thread lane with the host grammar (00-product.md flow 2; spec 10 §5;
 * public testing API `replayRecording`). The assembler's clock is the recording's `ts` of
 * the expectation each live line met (or the last entry walked), never the wall clock, so
 * the same recording yields the same lane on every run. See {@link runLiveReplay} for the
 * walk, the divergences and the process handling.
 *
 * @param source a recording directory or an already read {@link Recording}
 * @throws as {@link runLiveReplay}; a misbehaving bridge never throws (divergences instead)
 */
export async function replayRecording(source: string | Recording, options: ReplayRecordingOptions = {}): Promise<ReplayResult> {
  const live = await runLiveReplay(source, options);
  const lane = buildThreadLane(live.liveRecording, {
    useCurrent: false,
    ...(options.lane?.progressThrottleMs !== undefined ? { progressThrottleMs: options.lane.progressThrottleMs } : {}),
    ...(options.lane?.textDeltaFlushMs !== undefined ? { textDeltaFlushMs: options.lane.textDeltaFlushMs } : {}),
  });
  return { ...live, lane };
}
