/**
 * Thread lanes: a recording's `bridge→runtime` deltas assembled into canonical thread events and
 * filtered by the host grammar (docs/design/00-product.md, Words "thread lane"; spec 10 §3, §6.4 recorded
 * view). Time inside the assembler is each entry's own `ts`, so the same recording gives the same
 * lane on every run.
 */
import { createDeltaAssembler, createThreadEventGrammar, type DeltaAssembler, type ThreadEventGrammar } from "../../stack/assembler/index.js";
import { DEFAULT_PROGRESS_THROTTLE_MS } from "../../stack/assembler/limits.js";
import { InvalidThreadDeltaError } from "../../stack/protocol/thread-delta.js";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";
import { parseLineObject, type LaneEntry } from "../recording/lane-entry.js";
import type { Manifest } from "../recording/manifest.js";
import { readMergedEntries, type Recording } from "../recording/reader.js";

/** Text batching window of every thread lane: off, as in all parity harnesses (spec 10 §2.11). */
export const THREAD_LANE_TEXT_DELTA_FLUSH_MS = 0;

/** One event the host grammar dropped (spec 10 §3). */
export interface GrammarDrop {
  rule: string;
  eventType: string;
  reason: string;
}

/** A `thread/delta` notification the assembler rejected; its whole batch is skipped. */
export interface InvalidDeltaNotice {
  /** `(run, seq)` of the lane entry that carried it. */
  run: number;
  seq: number;
  message: string;
}

/** The events of one thread lane before normalization, with the parity counts (spec 10 §3). */
export interface ThreadLaneResult {
  /** Surviving events, in order, with `threadId` stamped from the `thread/delta` params as a runtime would. */
  events: ThreadEvent[];
  /** Surviving `provider/unhandled` events. */
  unhandled: number;
  /** Events the host grammar dropped, in order. */
  grammarDrops: GrammarDrop[];
  /** Batches the assembler rejected as invalid grammar v3. */
  invalidDeltas: InvalidDeltaNotice[];
}

/** A built thread lane (harness/lanes/README.md). A process-scoped recording has no events. */
export interface ThreadLane extends ThreadLaneResult {
  scope: "thread" | "process";
}

/** Options of {@link createThreadLaneBuilder}. */
export interface ThreadLaneBuilderOptions {
  /** Stamped on `provider/unhandled` events. */
  providerId: string;
  /** Progress throttle window in ms (default 500, spec 10 §2.10). */
  progressThrottleMs?: number;
  /** Text batching window in ms (default 0, spec 10 §2.11). */
  textDeltaFlushMs?: number;
  /** Id prefix of the assembler; a fixed default keeps lanes byte-identical across runs. */
  idPrefix?: string;
  /**
   * Keep the surviving events in `result().events` (default true). False streams them: each
   * `feed` still returns the events it added, `result()` keeps only the counts, so a lane of any
   * length is built in memory that does not grow with it.
   */
  keepEvents?: boolean;
}

/** The streaming form: feed merged lane entries in `(run, seq)` order, read the lane at any point. */
export interface ThreadLaneBuilder {
  /**
   * Takes one lane entry. `bridge→runtime` `thread/delta` lines are assembled at clock `entry.ts`
   * and filtered by the grammar; a `runtime→bridge` `thread/stop{intent:"release"}` clears the
   * grammar's state for its thread; every other entry is ignored.
   * Returns the events this entry added to the lane.
   */
  feed(entry: Pick<LaneEntry, "ts" | "run" | "seq" | "dir" | "line">): ThreadEvent[];
  /**
   * Takes one raw `bridge→runtime` line (no lane entry around it) assembled at clock `ts` (ms):
   * the form a live replay or a benchmark feeds. Returns the events it added.
   */
  feedBridgeLine(line: string, ts: number): ThreadEvent[];
  /** Takes one raw `runtime→bridge` line; only a release `thread/stop` has an effect. */
  feedRuntimeLine(line: string): void;
  /** The lane so far (live arrays; do not mutate). */
  result(): ThreadLaneResult;
}

/** Default id prefix of lane assemblers: ids are interned on normalization, so any fixed value will do. */
export const THREAD_LANE_ID_PREFIX = "lane";

interface JsonRpcLike {
  method?: unknown;
  params?: unknown;
}

function isReleaseStop(message: JsonRpcLike): string | undefined {
  if (message.method !== "thread/stop") return undefined;
  const params = message.params as { threadId?: unknown; intent?: unknown } | undefined;
  if (params?.intent !== "release" || typeof params.threadId !== "string") return undefined;
  return params.threadId;
}

/**
 * Creates a streaming thread-lane builder: one assembler (clock = the fed entry's `ts`) and one
 * fresh host grammar (spec 10 §3 "Parity counts", §6.4 recorded view).
 * @throws DeltaAssemblerOptionsError on an empty provider id or a negative window.
 */
export function createThreadLaneBuilder(options: ThreadLaneBuilderOptions): ThreadLaneBuilder {
  let clock = 0;
  const assembler: DeltaAssembler = createDeltaAssembler({
    providerId: options.providerId,
    entropyPrefix: options.idPrefix ?? THREAD_LANE_ID_PREFIX,
    progressThrottleMs: options.progressThrottleMs ?? DEFAULT_PROGRESS_THROTTLE_MS,
    textDeltaFlushMs: options.textDeltaFlushMs ?? THREAD_LANE_TEXT_DELTA_FLUSH_MS,
    now: () => clock,
  });
  const grammar: ThreadEventGrammar = createThreadEventGrammar();
  const lane: ThreadLaneResult = { events: [], unhandled: 0, grammarDrops: [], invalidDeltas: [] };
  const keepEvents = options.keepEvents ?? true;

  const feedDelta = (entry: Pick<LaneEntry, "ts" | "run" | "seq">, params: unknown): ThreadEvent[] => {
    clock = entry.ts;
    let assembled: ThreadEvent[];
    try {
      assembled = assembler.assemble(params as { threadId: string; deltas: unknown[] });
    } catch (error) {
      if (!(error instanceof InvalidThreadDeltaError)) throw error;
      lane.invalidDeltas.push({ run: entry.run, seq: entry.seq, message: error.message });
      return [];
    }
    const threadId = (params as { threadId: string }).threadId;
    const kept: ThreadEvent[] = [];
    for (const raw of assembled) {
      const event = { ...raw, threadId } as ThreadEvent;
      const verdict = grammar.observe(event);
      if (!verdict.ok) {
        lane.grammarDrops.push({ rule: verdict.rule, eventType: event.type, reason: verdict.reason });
        continue;
      }
      if (event.type === "provider/unhandled") lane.unhandled++;
      if (keepEvents) lane.events.push(event);
      kept.push(event);
    }
    return kept;
  };

  let fedLines = 0;
  const builder: ThreadLaneBuilder = {
    feedBridgeLine: (line, ts) => builder.feed({ ts, run: 0, seq: ++fedLines, dir: "bridge→runtime", line }),
    feedRuntimeLine: (line) => void builder.feed({ ts: clock, run: 0, seq: ++fedLines, dir: "runtime→bridge", line }),
    feed(entry) {
      if (entry.dir !== "bridge→runtime" && entry.dir !== "runtime→bridge") return [];
      const message = parseLineObject(entry.line);
      if (!message) return [];
      if (entry.dir === "runtime→bridge") {
        const released = isReleaseStop(message);
        if (released !== undefined) grammar.clearThread(released);
        return [];
      }
      if (message.method !== "thread/delta") return [];
      return feedDelta(entry, message.params);
    },
    result: () => lane,
  };
  return builder;
}

/**
 * Assembles merged lane entries (in `(run, seq)` order) into a thread lane: the lower-level,
 * synchronous form of {@link buildThreadLane} for replay and benchmarks.
 */
export function assembleBridgeLines(entries: Iterable<Pick<LaneEntry, "ts" | "run" | "seq" | "dir" | "line">>, options: ThreadLaneBuilderOptions): ThreadLaneResult {
  const builder = createThreadLaneBuilder(options);
  for (const entry of entries) builder.feed(entry);
  return builder.result();
}

/** Options of {@link buildThreadLane}. */
export interface BuildThreadLaneOptions {
  /** Use `bridge→runtime.current.ndjson` in place of the recorded bridge lane when present (default true). */
  useCurrent?: boolean;
  /** Progress throttle window in ms (default 500). */
  progressThrottleMs?: number;
  /** Text batching window in ms (default 0). */
  textDeltaFlushMs?: number;
}

/**
 * Builds the thread lane of a recording (harness/lanes/README.md; spec 10 §6.4 recorded view):
 * the merged lanes (current bridge lane by default), text batching 0, the 500 ms progress
 * throttle on each entry's `ts`, the host grammar, and grammar state cleared on release stops.
 * A process-scoped recording (manifest `scope: "process"`) yields `scope: "process"` and no events.
 */
export function buildThreadLane(recording: Recording, options: BuildThreadLaneOptions = {}): ThreadLane {
  if (recording.manifest.scope === "process") {
    return { scope: "process", events: [], unhandled: 0, grammarDrops: [], invalidDeltas: [] };
  }
  const result = assembleBridgeLines(recording.merged({ useCurrent: options.useCurrent ?? true }), {
    providerId: recording.manifest.provider,
    ...(options.progressThrottleMs === undefined ? {} : { progressThrottleMs: options.progressThrottleMs }),
    ...(options.textDeltaFlushMs === undefined ? {} : { textDeltaFlushMs: options.textDeltaFlushMs }),
  });
  return { scope: "thread", ...result };
}

/** A thread lane streamed from a recording directory by {@link streamThreadLane}. */
export interface ThreadLaneStream {
  /** The surviving events in lane order, as {@link buildThreadLane} returns them; iterate once. */
  events: AsyncIterable<ThreadEvent>;
  /** The lane's counts with `events` empty; complete once `events` has been iterated to its end. */
  result(): ThreadLaneResult;
}

/**
 * The streaming form of {@link buildThreadLane} for a recording directory that passed
 * `validateRecording`: the merged entries are read one at a time (`readMergedEntries`) and each
 * assembled event is handed on as it is made, so memory does not grow with the recording. The
 * events and counts are those `buildThreadLane(readRecording(dir), options)` gives.
 *
 * @throws InputError (while iterating) for a bad lane line
 */
export function streamThreadLane(dir: string, manifest: Pick<Manifest, "provider" | "scope">, options: BuildThreadLaneOptions = {}): ThreadLaneStream {
  const builder = createThreadLaneBuilder({
    providerId: manifest.provider,
    keepEvents: false,
    ...(options.progressThrottleMs === undefined ? {} : { progressThrottleMs: options.progressThrottleMs }),
    ...(options.textDeltaFlushMs === undefined ? {} : { textDeltaFlushMs: options.textDeltaFlushMs }),
  });
  async function* events(): AsyncGenerator<ThreadEvent> {
    if (manifest.scope === "process") return;
    for await (const entry of readMergedEntries(dir, { useCurrent: options.useCurrent ?? true })) yield* builder.feed(entry);
  }
  return { events: events(), result: () => builder.result() };
}
