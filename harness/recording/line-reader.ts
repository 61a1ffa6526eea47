import { createReadStream } from "node:fs";
import { createBoundedLineSplitter } from "../../stack/bridge-kit/line-splitter.js";
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
  let lineNo = 0;
  // Lines (or the error that ends the file) in file order, taken from the splitter chunk by chunk.
  const ready: Array<NumberedLine | InputError> = [];
  let stopped = false;
  const stop = (error: InputError): void => {
    ready.push(error);
    stopped = true;
  };

  const finish = (bytes: Buffer): NumberedLine | InputError => {
    lineNo += 1;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const body = bytes.subarray(0, end);
    if (body.includes(0)) return new InputError("binary data (NUL bytes), not a text lane line", { file, line: lineNo });
    try {
      return { lineNo, text: decoder.decode(body) };
    } catch {
      return new InputError("binary data (not valid UTF-8), not a text lane line", { file, line: lineNo });
    }
  };
  const splitter = createBoundedLineSplitter({
    maxLineBytes,
    onLineBytes(bytes) {
      if (stopped) return;
      const line = finish(bytes);
      if (line instanceof InputError) stop(line);
      else ready.push(line);
    },
    onOverflow() {
      if (stopped) return;
      stop(new InputError(`line is longer than ${maxLineBytes} bytes (the limit for one lane entry); not read further`, { file, line: lineNo + 1 }));
    },
  });
  function* takeReady(): Generator<NumberedLine> {
    for (const item of ready.splice(0)) {
      if (item instanceof InputError) throw item;
      yield item;
    }
  }

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      splitter.push(chunk);
      yield* takeReady();
    }
    splitter.end();
    yield* takeReady();
  } catch (thrown) {
    if (thrown instanceof InputError) throw thrown;
    const code = (thrown as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a directory, not a file" : `cannot read (${code ?? String(thrown)})`;
    throw new InputError(reason, { file });
  } finally {
    stream.destroy();
  }
}
