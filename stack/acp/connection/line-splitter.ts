/**
 * A bounded NDJSON line splitter for an agent's stdout (spec 20 §2.2).
 *
 * Bytes are buffered until a newline; a trailing `\r` is stripped. A line longer than
 * `maxLineBytes` is never materialized: the splitter reports it once through `onOversized`
 * and skips bytes up to the next newline, so a runaway agent cannot exhaust memory.
 */

/** Default cap on one agent stdout line, in bytes (16 MiB). Named so tests and docs agree. */
export const DEFAULT_MAX_AGENT_LINE_BYTES = 16 * 1024 * 1024;

/** Callbacks of {@link createLineSplitter}. */
export interface LineSplitterHandlers {
  /** One complete line, UTF-8 decoded, without its terminator. */
  onLine(line: string): void;
  /** A line passed `maxLineBytes` (bytes seen so far); called once per such line. */
  onOversized(bytesSeen: number): void;
}

/** Feeds chunks (`push`) and flushes a final unterminated line (`end`). */
export interface LineSplitter {
  push(chunk: Buffer): void;
  end(): void;
}

/** Creates a splitter with a byte cap per line (default {@link DEFAULT_MAX_AGENT_LINE_BYTES}). */
export function createLineSplitter(handlers: LineSplitterHandlers, maxLineBytes = DEFAULT_MAX_AGENT_LINE_BYTES): LineSplitter {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;

  const emit = (buffer: Buffer): void => {
    let text = buffer.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    handlers.onLine(text);
  };

  const take = (piece: Buffer): void => {
    if (skipping) return;
    if (size + piece.length > maxLineBytes) {
      skipping = true;
      handlers.onOversized(size + piece.length);
      parts = [];
      size = 0;
      return;
    }
    parts.push(piece);
    size += piece.length;
  };

  return {
    push(chunk) {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl === -1) {
          if (start < chunk.length) take(chunk.subarray(start));
          return;
        }
        take(chunk.subarray(start, nl));
        if (!skipping) emit(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
        parts = [];
        size = 0;
        skipping = false;
        start = nl + 1;
      }
    },
    end() {
      if (!skipping && size > 0) emit(Buffer.concat(parts, size));
      parts = [];
      size = 0;
      skipping = false;
    },
  };
}
