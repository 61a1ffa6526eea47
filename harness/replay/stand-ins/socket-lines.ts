/**
 * How both stand-in channels read their Unix sockets: through the project's one bounded line
 * splitter (`stack/bridge-kit/line-splitter.ts`, 64 MiB by default), as the bridge's stdout is
 * read (harness/runtime/bridge-process.ts). A line over the bound is never held in memory: the
 * first time one crosses it the reader reports it once, delivers no later line and destroys the
 * socket (its stand-in then ends: the relay and the Node replay child exit when their socket closes).
 */
import type { Socket } from "node:net";
import { createBoundedLineSplitter, MAX_LINE_BYTES } from "../../../stack/bridge-kit/line-splitter.js";

/** The bound on one line of a stand-in's socket by default, in bytes (the bridge's own bound). */
export const STAND_IN_LINE_BOUND_BYTES = MAX_LINE_BYTES;

/** What {@link readSocketLines} reports, synchronously and in arrival order. */
export interface SocketLineHandlers {
  /** Each whole line, UTF-8 decoded per line (a character split across chunks comes out whole), without `\n` or a trailing `\r`. */
  onLine(line: string): void;
  /** Once, when a line crosses `maxLineBytes`, with the bytes of it seen so far; the socket is destroyed right after. */
  onOverflow(bytesSeen: number): void;
  /** When the peer ended the socket, after its last (unterminated) line. */
  onEnd(): void;
}

/** Reads `socket` as newline-delimited lines bounded at `maxLineBytes` bytes (see the module comment). */
export function readSocketLines(socket: Socket, maxLineBytes: number, handlers: SocketLineHandlers): void {
  let overflowed = false;
  const splitter = createBoundedLineSplitter({
    maxLineBytes,
    onLine: (line) => overflowed || handlers.onLine(line),
    onOverflow: (bytesSeen) => {
      if (overflowed) return;
      overflowed = true;
      handlers.onOverflow(bytesSeen);
      socket.destroy();
    },
  });
  socket.on("data", (chunk: Buffer) => splitter.push(chunk));
  socket.on("end", () => {
    splitter.end();
    handlers.onEnd();
  });
}

/** The one sentence of a stand-in line over the bound (the walk's `line-too-long` divergence). */
export function standInLineTooLong(standIn: string, lane: string, bytesSeen: number, maxLineBytes: number): string {
  return `${standIn} got a line on ${lane} longer than ${maxLineBytes} bytes (${bytesSeen} bytes of it read); the stand-in was stopped`;
}
