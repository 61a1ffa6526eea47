import { join } from "node:path";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";
import { createThreadLaneBuilder, type ThreadLane, type ThreadLaneBuilder } from "../lanes/index.js";
import { MANIFEST_FILE, readManifest } from "../recording/manifest.js";
import { isRecording, replaySourceDir, runLiveReplay, type LiveReplay, type ReplayOptions, type ReplaySource } from "./live-replay.js";

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
  /**
   * Streams a cell's live thread lane instead of keeping it: called with the recording
   * directory each time a replay of that cell starts (a batched cell replayed again alone is
   * started twice; the last call's events are the lane). When it returns a function, each
   * surviving event goes to it as it is assembled and the result's `lane.events` stays empty
   * (its counts are kept); `undefined` keeps the events as usual.
   */
  laneEvents?: (recordingDir: string) => LaneEventSink | undefined;
}

/** Receives a live thread lane's events, in order, as they are assembled (not normalized). */
export type LaneEventSink = (event: ThreadEvent) => void;

/**
 * The lane builder of one replayed cell and how to feed it a bridge line: events go to the
 * cell's {@link ReplayRecordingOptions.laneEvents} sink when there is one, else stay in the lane.
 */
export function openLiveLane(provider: string, recordingDir: string, options: ReplayRecordingOptions): { builder: ThreadLaneBuilder; feedBridgeLine: (line: string, clock: number) => void } {
  const sink = options.laneEvents?.(recordingDir);
  const builder = createThreadLaneBuilder({
    providerId: provider,
    ...(sink !== undefined ? { keepEvents: false } : {}),
    ...(options.lane?.progressThrottleMs !== undefined ? { progressThrottleMs: options.lane.progressThrottleMs } : {}),
    ...(options.lane?.textDeltaFlushMs !== undefined ? { textDeltaFlushMs: options.lane.textDeltaFlushMs } : {}),
  });
  const feedBridgeLine =
    sink === undefined
      ? (line: string, clock: number) => void builder.feedBridgeLine(line, clock)
      : (line: string, clock: number) => {
          for (const event of builder.feedBridgeLine(line, clock)) sink(event);
        };
  return { builder, feedBridgeLine };
}

/**
 * Replays one recording through a live bridge and assembles the bridge's `thread/delta`
 * output, as it arrives, into the live thread lane with the host grammar (docs/design/00-product.md
 * flow 2; spec 10 §5; public testing API `replayRecording`; the streaming builder of
 * harness/lanes). The assembler's clock is the recording's `ts` of the expectation each live
 * line met (or the last entry walked), never the wall clock, and a recorded release
 * `thread/stop` clears the grammar's thread state when it is written, so the same recording
 * yields the same lane on every run. See {@link runLiveReplay} for the walk, divergences and
 * process handling.
 *
 * @param source a recording directory (streamed when it has no current lane), one already
 *   validated with its plan counts, or an already read {@link Recording} (see `ReplaySource`)
 * @throws as {@link runLiveReplay}; a misbehaving bridge never throws (divergences instead)
 */
export async function replayRecording(source: ReplaySource, options: ReplayRecordingOptions = {}): Promise<ReplayResult> {
  const manifest = isRecording(source) ? source.manifest : await readManifest(join(replaySourceDir(source), MANIFEST_FILE));
  const { builder, feedBridgeLine } = openLiveLane(manifest.provider, replaySourceDir(source), options);
  const live = await runLiveReplay(source, {
    ...options,
    sink: {
      bridgeLine: feedBridgeLine,
      runtimeLine: (line) => builder.feedRuntimeLine(line),
    },
  });
  return { ...live, lane: { scope: "thread", ...builder.result() } };
}
