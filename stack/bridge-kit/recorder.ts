/**
 * The bridge recorder (spec 10 §4, spec 30 §6.7; docs/design/00-product.md flow 1): appends every line
 * crossing either boundary of a bridge process to
 * `<dir>/<providerId>/<scope>/<direction>.ndjson` as `{ts, run, seq, dir, line}`.
 *
 * Each entry is written with one synchronous `writeSync` on an append-mode fd before the
 * line is acted on, so a crash (even SIGKILL) loses nothing already recorded. One `seq`
 * counter runs across all four lanes of the process; `run` is the recorder's creation time
 * and tells a second run apart from the first when both append to the same files.
 */
import fs from "node:fs";
import path from "node:path";
import { createScopeRouter, scopeForThreadId, PROCESS_SCOPE, type RecordDirection } from "./record-scope.js";

/** The file-system calls the recorder makes (injectable for tests). */
export interface RecorderFs {
  mkdirSync(dir: string, options: { recursive: true }): unknown;
  openSync(file: string, flags: "a"): number;
  writeSync(fd: number, text: string): number;
  closeSync(fd: number): void;
}

/** Options of {@link createBridgeRecorder}. */
export interface BridgeRecorderOptions {
  /** The record root (the value of `BB_PROVIDER_BRIDGE_RECORD_DIR`, trimmed). */
  dir: string;
  /** The bridge's provider id: the first directory level under `dir`. */
  providerId: string;
  /** Clock in ms since the epoch; gives `ts` and, at creation, `run`. */
  now: () => number;
  /** Reports a write error; recording goes on (spec 10 §4 "logged and ignored"). */
  onWriteError?: (error: unknown, file: string) => void;
  /** File-system calls; default `node:fs`. */
  fs?: RecorderFs;
}

/** One recorder per bridge process. */
export interface BridgeRecorder {
  /** `<dir>/<providerId>`: where the scope directories go. */
  readonly root: string;
  /** The recorder's creation time, written as `run` in every entry. */
  readonly run: number;
  /** Records a line of the runtime wire (`runtime→bridge` or `bridge→runtime`), routed by its content. */
  recordRuntimeLine(direction: "runtime→bridge" | "bridge→runtime", line: string): void;
  /** Records a line of a child's stdio in the caller's scope: a thread id, or null for `_process`. */
  recordProviderLine(direction: "provider→bridge" | "bridge→provider", line: string, threadId: string | null): void;
  /** The last `seq` written (0 before the first entry). */
  readonly lastSeq: number;
  /** Closes every open lane file. Later lines reopen them. */
  close(): void;
}

/** Creates a recorder; nothing touches the disk until the first line. */
export function createBridgeRecorder(options: BridgeRecorderOptions): BridgeRecorder {
  const files: RecorderFs = options.fs ?? fs;
  const root = path.join(options.dir, options.providerId);
  const run = options.now();
  const router = createScopeRouter();
  const fds = new Map<string, number>();
  let seq = 0;

  const append = (direction: RecordDirection, scope: string, rawLine: string) => {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    seq += 1;
    const entry = { ts: options.now(), run, seq, dir: direction, line };
    const file = path.join(root, scope, `${direction}.ndjson`);
    try {
      let fd = fds.get(file);
      if (fd === undefined) {
        files.mkdirSync(path.dirname(file), { recursive: true });
        fd = files.openSync(file, "a");
        fds.set(file, fd);
      }
      files.writeSync(fd, `${JSON.stringify(entry)}\n`);
    } catch (error) {
      options.onWriteError?.(error, file);
    }
  };

  return {
    root,
    run,
    recordRuntimeLine(direction, line) {
      append(direction, router.route(direction, line), line);
    },
    recordProviderLine(direction, line, threadId) {
      append(direction, threadId === null ? PROCESS_SCOPE : scopeForThreadId(threadId), line);
    },
    get lastSeq() {
      return seq;
    },
    close() {
      for (const fd of fds.values()) {
        try {
          files.closeSync(fd);
        } catch {
          // Already closed or the disk is gone; nothing left to lose.
        }
      }
      fds.clear();
    },
  };
}
