/**
 * Text batching (spec 10 §2.11): text and output deltas of one stream (`type` + U+001F +
 * `itemId`) are joined while they arrive inside the window; any other event flushes every
 * buffer of the thread first, so batching never reorders events. A window of 0 disables it.
 */
import { KEY_PART_SEPARATOR } from "../protocol/thread-delta.js";
import { STREAM_DELTA_EVENT_TYPES, type ThreadEvent } from "../protocol/thread-events.js";
import type { ThreadState } from "./thread-state.js";

const BATCHABLE_TYPES: ReadonlySet<string> = new Set(STREAM_DELTA_EVENT_TYPES);

type StreamEvent = ThreadEvent & { itemId: string; delta: string; reset?: true };

/** Whether `event` is one of the six text/output delta events. */
export function isBatchableEvent(event: ThreadEvent): event is StreamEvent {
  return BATCHABLE_TYPES.has(event.type);
}

/** Where a thread's events go: the thread state, the window in ms, the clock reading and the output list. */
export interface TextSink {
  state: ThreadState;
  windowMs: number;
  now: number;
  out: ThreadEvent[];
}

/** Emits every buffered stream in arrival order with its joined delta and restarts its window. */
export function flushAllText(sink: TextSink): void {
  const { state, now, out } = sink;
  if (state.pendingText.size === 0) return;
  for (const [streamKey, pending] of state.pendingText) {
    out.push({ ...pending.event, delta: pending.deltas.join("") } as ThreadEvent);
    state.textLastEmit.set(streamKey, now);
  }
  state.pendingText.clear();
}

/** At the start of `assemble`: flushes all buffers when any buffer's window has elapsed or it has none. */
export function flushElapsedText(sink: TextSink): void {
  const { state, now, windowMs } = sink;
  for (const streamKey of state.pendingText.keys()) {
    const last = state.textLastEmit.get(streamKey);
    if (last === undefined || now - last >= windowMs) {
      flushAllText(sink);
      return;
    }
  }
}

/** Passes one event through the batcher into `sink.out` (spec 10 §2.11 table). */
export function acceptEvent(sink: TextSink, event: ThreadEvent): void {
  const { state, now, windowMs, out } = sink;
  if (windowMs <= 0 || !isBatchableEvent(event)) {
    flushAllText(sink);
    out.push(event);
    return;
  }
  const streamKey = `${event.type}${KEY_PART_SEPARATOR}${event.itemId}`;
  const last = state.textLastEmit.get(streamKey);
  if (event.reset === true || last === undefined) {
    flushAllText(sink);
    out.push(event);
    state.textLastEmit.set(streamKey, now);
    return;
  }
  const pending = state.pendingText.get(streamKey);
  if (pending) pending.deltas.push(event.delta);
  else state.pendingText.set(streamKey, { event, deltas: [event.delta] });
  if (now - last >= windowMs) flushAllText(sink);
}
