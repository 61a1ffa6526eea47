/**
 * The process's recorder slot and the child tee (spec 10 §4, spec 30 §6.7):
 * `isProviderBridgeRecording()` and `recordProviderChildIo(child, {threadId})`.
 */
import type { Readable, Writable } from "node:stream";
import { createBoundedLineSplitter } from "./line-splitter.js";
import type { BridgeRecorder } from "./recorder.js";

/**
 * The process-wide slot holding the recorder the bootstrap created.
 *
 * Why global, against the no-module-level-state rule: spec 10 §4 requires one recorder per
 * process at `globalThis[Symbol.for("bb.providerBridgeRecorder")]`, so a bridge bundle that
 * carries its own copy of this module still tees into the bootstrap's recorder. Only the
 * bootstrap writes the slot (through {@link installProcessRecorder}); everything else reads.
 */
export const PROCESS_RECORDER_SLOT: unique symbol = Symbol.for("bb.providerBridgeRecorder") as never;

type RecorderSlotHolder = { [PROCESS_RECORDER_SLOT]?: BridgeRecorder | undefined };

/** Installs (or, with null, removes) the process's recorder. Returns the previous one. */
export function installProcessRecorder(recorder: BridgeRecorder | null): BridgeRecorder | null {
  const holder = globalThis as RecorderSlotHolder;
  const previous = holder[PROCESS_RECORDER_SLOT] ?? null;
  if (recorder) holder[PROCESS_RECORDER_SLOT] = recorder;
  else delete holder[PROCESS_RECORDER_SLOT];
  return previous;
}

/** The process's recorder, or null when this process does not record. */
export function getProcessRecorder(): BridgeRecorder | null {
  return (globalThis as RecorderSlotHolder)[PROCESS_RECORDER_SLOT] ?? null;
}

/**
 * Whether this bridge process records (spec 30 §6.7). A bridge whose child pipes belong to
 * an SDK checks this to decide whether to take the spawn over and tee it itself.
 */
export function isProviderBridgeRecording(): boolean {
  return getProcessRecorder() !== null;
}

/** The child stdio the tee needs (a `ChildProcess` fits). */
export interface RecordableChild {
  stdin?: Writable | null;
  stdout?: Readable | null;
}

/** Options of {@link recordProviderChildIo}. */
export interface RecordChildIoOptions {
  /** The bb thread the child serves, or null for `_process` (discovery, probes, model lists). */
  threadId: string | null;
}

type PushFn = Readable["push"];
type WriteFn = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown) => boolean;
type EndFn = (chunkOrCallback?: unknown, encodingOrCallback?: unknown, callback?: unknown) => Writable;

function toBytes(chunk: unknown, encoding: unknown): Buffer | null {
  if (typeof chunk === "string") return Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return null;
}

/**
 * Tees a freshly spawned child's stdio into the process recorder (spec 10 §4): its stdout
 * as `provider→bridge` lines, what the bridge writes to its stdin as `bridge→provider`
 * lines, both in the scope of `threadId`. Does nothing when recording is off. Call it right
 * after `spawn()`, before writing to the child.
 *
 * The stdout tee wraps the stream's `push` (where bytes enter it) instead of adding a
 * `data` listener, so the stream's flowing mode is unchanged and the bridge may attach its
 * own reader whenever it likes without losing early output. Lines are split with the same
 * 64 MiB cap as the bootstrap's reader.
 */
export function recordProviderChildIo(child: RecordableChild, options: RecordChildIoOptions): void {
  const recorder = getProcessRecorder();
  if (!recorder) return;
  const { threadId } = options;

  const stdout = child.stdout;
  if (stdout) {
    const splitter = createBoundedLineSplitter({
      onLine: (line) => recorder.recordProviderLine("provider→bridge", line, threadId),
    });
    const push: PushFn = stdout.push;
    stdout.push = function (this: Readable, chunk: unknown, encoding?: BufferEncoding): boolean {
      if (chunk === null) splitter.end();
      else {
        const bytes = toBytes(chunk, encoding);
        if (bytes) splitter.push(bytes);
      }
      return push.call(this, chunk, encoding);
    } as PushFn;
  }

  const stdin = child.stdin;
  if (stdin) {
    const splitter = createBoundedLineSplitter({
      onLine: (line) => recorder.recordProviderLine("bridge→provider", line, threadId),
    });
    const write = stdin.write as WriteFn;
    const end = stdin.end as EndFn;
    stdin.write = function (this: Writable, chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean {
      const bytes = toBytes(chunk, encodingOrCallback);
      if (bytes) splitter.push(bytes);
      return write.call(this, chunk, encodingOrCallback, callback);
    } as Writable["write"];
    // A final chunk goes through the tee'd write, so it is recorded exactly once whatever
    // `end` does internally; then the stream ends with only the callback.
    stdin.end = function (this: Writable, chunkOrCallback?: unknown, encodingOrCallback?: unknown, callback?: unknown): Writable {
      if (typeof chunkOrCallback === "function") return end.call(this, chunkOrCallback);
      if (chunkOrCallback !== undefined && chunkOrCallback !== null) {
        if (typeof encodingOrCallback === "function") {
          this.write(chunkOrCallback);
          callback = encodingOrCallback;
        } else {
          this.write(chunkOrCallback, encodingOrCallback as BufferEncoding);
        }
      }
      splitter.end();
      return callback === undefined ? end.call(this) : end.call(this, callback);
    } as Writable["end"];
  }
}
