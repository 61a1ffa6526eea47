import { createReadStream } from "node:fs";
import { InputError } from "../errors.js";

/**
 * Longest lane line the reader accepts, in bytes (8 MiB). Redacted recordings trim every
 * string over 2000 characters (spec 10 §4, Redaction), so real lines are far below this;
 * the bound keeps a corrupt file from being buffered whole.
 */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** One line of a text file: its 1-based number and its text without the terminator. */
export interface NumberedLine {
  /** 1-based line number. */
  lineNo: number;
  /** The line's text, UTF-8 decoded, without `\n` or a trailing `\r`. */
  text: string;
}

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** Name printed in errors (defaults to the path). */
  displayName?: string;
  /** Longest accepted line in bytes; defaults to {@link DEFAULT_MAX_LINE_BYTES}. */
  maxLineBytes?: number;
  /** Read chunk size in bytes (64 KiB by default). */
  chunkBytes?: number;
}

const NEWLINE = 0x0a;

/**
 * Streams a UTF-8 text file line by line (spec 10 §4, Reading) with memory bounded by
 * `maxLineBytes` plus one chunk: the file is read in chunks and no line longer than the
 * bound is ever buffered. A final line without a terminator is still yielded (a
 * truncated entry is then reported by the entry parser).
 *
 * @throws InputError `file:line` for a line over `maxLineBytes` (the content is not quoted),
 *   a line that is not valid UTF-8 or contains NUL bytes (binary data); plain I/O errors
 *   (missing file, permission) become InputError naming the file.
 */
export async function* readLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<NumberedLine> {
  const file = options.displayName ?? path;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const stream = createReadStream(path, { highWaterMark: options.chunkBytes ?? 64 * 1024 });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNo = 0;

  const finish = (bytes: Buffer): NumberedLine => {
    lineNo += 1;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const body = bytes.subarray(0, end);
    if (body.includes(0)) throw new InputError("binary data (NUL bytes), not a text lane line", { file, line: lineNo });
    let text: string;
    try {
      text = decoder.decode(body);
    } catch {
      throw new InputError("binary data (not valid UTF-8), not a text lane line", { file, line: lineNo });
    }
    return { lineNo, text };
  };
  const tooLong = (): InputError =>
    new InputError(`line is longer than ${maxLineBytes} bytes (the limit for one lane entry); not read further`, {
      file,
      line: lineNo + 1,
    });

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, nl);
        if (pendingBytes + piece.length > maxLineBytes) throw tooLong();
        const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        pendingBytes = 0;
        yield finish(bytes);
        start = nl + 1;
      }
      if (start < chunk.length) {
        const rest = chunk.subarray(start);
        if (pendingBytes + rest.length > maxLineBytes) throw tooLong();
        // Copy: the stream may reuse its buffer after we yield.
        pending.push(Buffer.from(rest));
        pendingBytes += rest.length;
      }
    }
    if (pendingBytes > 0) yield finish(Buffer.concat(pending));
  } catch (thrown) {
    if (thrown instanceof InputError) throw thrown;
    const code = (thrown as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a directory, not a file" : `cannot read (${code ?? String(thrown)})`;
    throw new InputError(reason, { file });
  } finally {
    stream.destroy();
  }
}
