/**
 * A lane's events kept on disk instead of in memory while the lane is being made (a live
 * replay's thread lane): each event is written as one JSON line to a file of the caller's
 * temporary directory as it comes, and read back in order, one at a time, as often as needed.
 * Memory stays one write buffer, whatever the lane's length.
 */
import { closeSync, createReadStream, openSync, writeSync } from "node:fs";
import { createInterface } from "node:readline";

/** Characters of JSON gathered before one write to the file. */
const WRITE_BUFFER_BYTES = 1 << 16;

/** Events spilled to one file (see the module comment). */
export interface EventSpill {
  /** The file the events are written to. */
  readonly file: string;
  /** Events pushed so far. */
  readonly count: number;
  /** Appends one event (a JSON value: it comes back as `JSON.parse(JSON.stringify(event))`). */
  push(event: unknown): void;
  /** Writes what is buffered and closes the file; `push` is then refused. Idempotent. */
  close(): void;
  /** The events in push order, parsed one line at a time; only after {@link close}. */
  events(): AsyncGenerator<unknown>;
}

/**
 * Creates (truncates) `file` and returns its spill.
 * @throws Error from the file system (the file cannot be created or written)
 */
export function createEventSpill(file: string): EventSpill {
  const fd = openSync(file, "w");
  let open = true;
  let buffer = "";
  let count = 0;
  const flush = () => {
    if (buffer !== "") writeSync(fd, buffer);
    buffer = "";
  };
  return {
    file,
    get count() {
      return count;
    },
    push(event) {
      if (!open) throw new Error(`event spill ${file} is closed`);
      buffer += `${JSON.stringify(event) ?? "null"}\n`;
      count += 1;
      if (buffer.length >= WRITE_BUFFER_BYTES) flush();
    },
    close() {
      if (!open) return;
      open = false;
      flush();
      closeSync(fd);
    },
    async *events() {
      if (open) throw new Error(`event spill ${file} is still being written`);
      const input = createReadStream(file, { encoding: "utf8" });
      try {
        // JSON.stringify escapes every line break, so each line is one event.
        for await (const line of createInterface({ input, crlfDelay: Infinity })) yield JSON.parse(line) as unknown;
      } finally {
        input.destroy();
      }
    },
  };
}
