/**
 * An oracle file (`lanes/<provider>/<cell>.json`, a JSON array of normalized events as
 * `serializeThreadLane` writes it) read one event at a time, so a long oracle is compared
 * without holding it or its text. The top-level array is split into its elements by a scanner
 * that tracks strings and nesting; each element's text goes to `JSON.parse`, which gives exactly
 * the element `JSON.parse` of the whole file would. Anything else (the `{events, …}` form, or a
 * file that is not valid JSON) is not streamed: the caller reads it whole, with its errors.
 */
import { createReadStream } from "node:fs";
import { MAX_JSON_DEPTH } from "../recording/json-text.js";

/** What one streamed pass found besides the events. */
export interface OracleScan {
  /** Number of events. */
  events: number;
  /**
   * 1-based line of each event's first line when the file is laid out as `serializeThreadLane`
   * writes it (the rule of harness/report/oracle-lines.ts), else undefined.
   */
  eventLines: number[] | undefined;
}

/** Splits the text of a top-level JSON array, fed in chunks, into element texts. */
class ArraySplitter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private element = "";
  private seenAny = false;
  /** Set when the text is not a single array (the caller reads the file whole instead). */
  broken = false;
  /** True once the closing bracket of the top-level array was seen. */
  closed = false;

  /** Feeds one chunk; calls `onElement` with each complete element's text. */
  feed(chunk: string, onElement: (text: string) => void): void {
    let from = 0;
    for (let i = 0; i < chunk.length && !this.broken; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
        continue;
      }
      if (this.closed) {
        if (!isSpace(c)) this.broken = true;
        continue;
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x5b || c === 0x7b) {
        this.depth++;
        // Deeper than any reader accepts (the top-level array is depth 1): read whole, which names the place (json-text.ts).
        if (this.depth > MAX_JSON_DEPTH) this.broken = true;
        if (this.depth === 1) {
          if (c !== 0x5b) this.broken = true;
          from = i + 1;
        }
      } else if (c === 0x5d || c === 0x7d) {
        this.depth--;
        if (this.depth < 0 || (this.depth === 0 && c !== 0x5d)) this.broken = true;
        else if (this.depth === 0) {
          this.element += chunk.slice(from, i);
          this.take(onElement, true);
          this.closed = true;
        }
      } else if (c === 0x2c && this.depth === 1) {
        this.element += chunk.slice(from, i);
        this.take(onElement, false);
        from = i + 1;
      } else if (this.depth === 0 && !isSpace(c)) this.broken = true;
    }
    if (this.depth >= 1 && !this.closed) this.element += chunk.slice(from);
  }

  /** True when the whole text was one array. */
  finish(): boolean {
    return !this.broken && this.closed;
  }

  private take(onElement: (text: string) => void, last: boolean): void {
    const text = this.element;
    this.element = "";
    // `[]` and the text after the last comma of `[1, ]` (invalid JSON) are told apart by whether anything was seen.
    if (last && text.trim() === "" && !this.seenAny) return;
    this.seenAny = true;
    onElement(text);
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The event-start rule of `oracleEventLines` (harness/report/oracle-lines.ts: a line that is two
 * spaces, then a character other than a space, `]` or `}`), applied one chunk at a time. Each
 * character is looked at once, and of a line only its first three characters are kept: an
 * oracle holding a 30 MB string on one line used to be re-split from that line's start on every
 * 64 KiB chunk (quadratic: 77 s, issue 42). `work` counts the characters examined (every scan
 * goes through {@link EventLineCounter.feed}'s one loop), so a test can hold it linear.
 */
export class EventLineCounter {
  private line = 1;
  /** The current line's first characters (at most {@link HEAD}) and its length so far. */
  private head = "";
  private length = 0;
  private readonly starts: number[] = [];
  private firstLine: string | undefined;
  /** Characters examined so far (one per character fed). */
  work = 0;

  feed(chunk: string): void {
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", from);
      const end = newline === -1 ? chunk.length : newline;
      this.work += end - from + (newline === -1 ? 0 : 1);
      if (this.head.length < HEAD) this.head += chunk.slice(from, Math.min(end, from + HEAD - this.head.length));
      this.length += end - from;
      if (newline === -1) return;
      this.endLine();
      from = newline + 1;
    }
  }

  result(events: number): number[] | undefined {
    this.endLine();
    if (this.firstLine !== "[" && !(events === 0 && this.firstLine === "[]")) return undefined;
    return this.starts.length === events ? this.starts : undefined;
  }

  private endLine(): void {
    // A first line longer than its head is neither "[" nor "[]".
    if (this.firstLine === undefined) this.firstLine = this.length > HEAD ? `${this.head}…` : this.head;
    const h = this.head;
    if (h.length === HEAD && h[0] === " " && h[1] === " " && h[2] !== " " && h[2] !== "]" && h[2] !== "}") this.starts.push(this.line);
    this.line += 1;
    this.head = "";
    this.length = 0;
  }
}

/** Characters of a line the event-start rule reads. */
const HEAD = 3;

/**
 * Streams the events of an oracle file that is a JSON array, one parsed element at a time.
 * Yields nothing further and returns false when the file is not one valid JSON array (then read
 * it whole to get its error or its other form); returns true after the last event.
 */
export async function* readOracleEvents(file: string, onLine?: (chunk: string) => void): AsyncGenerator<unknown, boolean> {
  const splitter = new ArraySplitter();
  const input = createReadStream(file, { encoding: "utf8" });
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      onLine?.(chunk);
      const parsed: unknown[] = [];
      let bad = false;
      splitter.feed(chunk, (text) => {
        try {
          parsed.push(JSON.parse(text));
        } catch {
          bad = true;
        }
      });
      if (bad || splitter.broken) return false;
      yield* parsed;
    }
  } finally {
    input.destroy();
  }
  return splitter.finish();
}

/**
 * One pass over an oracle file: its event count and event lines when it is one valid JSON
 * array, or undefined when it is not (read it whole instead). Holds no event.
 */
export async function scanOracle(file: string): Promise<OracleScan | undefined> {
  const lines = new EventLineCounter();
  const events = readOracleEvents(file, (chunk) => lines.feed(chunk));
  let count = 0;
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value ? { events: count, eventLines: lines.result(count) } : undefined;
    count += 1;
  }
}
