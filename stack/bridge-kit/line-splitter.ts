/**
 * The one bounded line splitter of the project, for every newline-delimited wire: the
 * bootstrap's stdin (spec 20 §1.1: "the bootstrap caps lines at 64 MiB, oversized lines
 * discarded with a stderr note"), an ACP agent's stdout (spec 20 §2.2), a bridge's stdout as
 * the runtime reads it (spec 10 §4 child I/O).
 *
 * `\n` ends a line and a trailing `\r` is stripped. A line longer than the cap is never held
 * in memory: once it crosses the cap the bytes seen so far are released and the rest of the
 * line is counted and discarded as it streams.
 */

/** The largest line kept, in bytes (64 MiB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Options of {@link createBoundedLineSplitter}. */
export interface BoundedLineSplitterOptions {
  /** Called with each complete line, UTF-8 decoded, without `\n` and without a trailing `\r`. */
  onLine?(line: string): void;
  /**
   * Called instead of `onLine` with each complete line's raw bytes, without `\n` (a trailing
   * `\r` kept), for a reader that checks the bytes itself. The buffer may be a view of the
   * pushed chunk: read it during the call, copy it to keep it.
   */
  onLineBytes?(bytes: Buffer): void;
  /** Called once per dropped line, when it ends, with its length in bytes (terminator excluded). */
  onOversize?(bytes: number): void;
  /**
   * Called once per dropped line as soon as it crosses the cap, with the bytes seen so far
   * (for a reader that stops the writer at once rather than waiting for the line to end).
   */
  onOverflow?(bytesSeen: number): void;
  /** Cap in bytes; default {@link MAX_LINE_BYTES}; `Infinity` keeps every line. */
  maxLineBytes?: number;
}

/** A splitter: feed chunks with `push`, flush a final unterminated line with `end`. */
export interface BoundedLineSplitter {
  push(chunk: Buffer | Uint8Array | string): void;
  end(): void;
}

const NEWLINE = 0x0a;

/** Creates a splitter; see {@link BoundedLineSplitterOptions}. Decoding is per whole line, so a multi-byte character split across chunks survives. */
export function createBoundedLineSplitter(options: BoundedLineSplitterOptions): BoundedLineSplitter {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  let parts: Buffer[] = [];
  let size = 0;
  let discarding = false;
  let discardedBytes = 0;

  const finishLine = () => {
    if (discarding) {
      const bytes = discardedBytes;
      discarding = false;
      discardedBytes = 0;
      options.onOversize?.(bytes);
      return;
    }
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    if (options.onLineBytes) {
      options.onLineBytes(bytes);
      return;
    }
    let text = bytes.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    options.onLine?.(text);
  };

  /** Adds a piece of the current line; `keep` when it outlives this push (the line goes on in a later chunk). */
  const take = (piece: Buffer, keep: boolean) => {
    if (piece.length === 0) return;
    if (discarding) {
      discardedBytes += piece.length;
    } else if (size + piece.length > maxLineBytes) {
      discarding = true;
      discardedBytes = size + piece.length;
      parts = [];
      size = 0;
      options.onOverflow?.(discardedBytes);
    } else {
      // Copy what is kept: a view would pin the whole incoming chunk until the line ends.
      parts.push(keep ? Buffer.from(piece) : piece);
      size += piece.length;
    }
  };

  return {
    push(chunk) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      let start = 0;
      while (start < buffer.length) {
        const newline = buffer.indexOf(NEWLINE, start);
        if (newline === -1) {
          take(buffer.subarray(start), true);
          return;
        }
        take(buffer.subarray(start, newline), false);
        finishLine();
        start = newline + 1;
      }
    },
    end() {
      if (discarding || size > 0) finishLine();
    },
  };
}
