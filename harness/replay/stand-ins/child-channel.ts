import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { ChildToSchedulerFrameSchema, encodeFrame } from "./child-frames.js";
import { CONNECT_FLAG, MAX_LINE_FLAG } from "./child-wire.js";
import { readSocketLines, STAND_IN_LINE_BOUND_BYTES, standInLineTooLong } from "./socket-lines.js";

/** One connected replay child, in connection order (`index` 0 = the first agent process). */
export interface ReplayChildLink {
  /** 0-based connection order; the scheduler plays segment `index` to it. */
  index: number;
  /** The child's pid from its `hello` frame (or a relay's announcement). */
  pid: number;
  /**
   * True for a relay served inside the bridge process (relay-channel.ts): its pid names no
   * process, so nothing signals it or looks it up; it ends with the bridge or its socket.
   */
  readonly inProcess?: boolean;
  /** Makes the child write `line` to its stdout (to the bridge). */
  send(line: string): void;
  /** Bytes sent to the child that still sit in this process's buffers. */
  readonly buffered: number;
  /** Tells the child to exit. Idempotent. */
  end(): void;
  /** True once the child's socket closed (the child exited or is exiting). */
  readonly closed: boolean;
  /** Resolves when the child's socket closes. */
  whenClosed(): Promise<void>;
}

/** Bytes a frame adds to its line besides escaping (`{"t":"line","line":""}` and the newline, with room to spare). */
const FRAME_OVERHEAD_BYTES = 64;

/** What the private channel reports to the scheduler, in arrival order. */
export type ChildChannelEvent =
  | { type: "child-hello"; child: ReplayChildLink }
  | { type: "child-line"; child: ReplayChildLink; line: string }
  | { type: "child-eof"; child: ReplayChildLink }
  | { type: "child-closed"; child: ReplayChildLink }
  | { type: "child-protocol-error"; reason: string }
  /** A line over the stand-in's bound (what the bridge wrote to its agent); the stand-in is stopped (socket-lines.ts). */
  | { type: "child-line-too-long"; child: ReplayChildLink | undefined; maxLineBytes: number; message: string };

/** The scheduler's end of the private channel (a Unix domain socket). */
export interface ChildChannel {
  /** Socket path to pass as the child's `--connect` argument. */
  readonly address: string;
  /** Every child that said hello, in order. */
  readonly children: readonly ReplayChildLink[];
  /**
   * Connections accepted whose announcement (hello) has not been read yet. A child writes it
   * right after connecting and then sleeps, so such a connection is input of this process still
   * unread, which a look at the bridge's process tree cannot see: the accept and the first read
   * of a new socket take two turns of this process's event loop (walk-settle.ts).
   */
  readonly unannounced: number;
  /** Stops accepting, ends every child and closes the server. */
  close(): Promise<void>;
}

/**
 * Opens the private channel replay children report to (docs/design/00-product.md flow 2): a Unix
 * domain socket `<dir>/child.sock`. Every frame becomes one event passed to `onEvent`
 * synchronously, so the scheduler sees children's lines in the order they arrived. A line over
 * `maxLineBytes` (met by the child on its stdin, or a frame over it here) is one
 * `child-line-too-long` event naming the child, and the child is stopped (socket-lines.ts);
 * {@link childArgs} passes the same bound to the child.
 *
 * @param dir a private temporary directory (its path must be short: Unix socket paths are
 *   limited to about 100 bytes)
 */
export async function openChildChannel(dir: string, onEvent: (event: ChildChannelEvent) => void, maxLineBytes = STAND_IN_LINE_BOUND_BYTES): Promise<ChildChannel> {
  const address = join(dir, "child.sock");
  const children: ReplayChildLink[] = [];
  const sockets = new Set<Socket>();
  let unannounced = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    unannounced += 1;
    let announced = false;
    const announce = (): void => {
      if (!announced) unannounced -= 1;
      announced = true;
    };
    let link: (ReplayChildLink & { closed: boolean; markClosed(): void }) | undefined;
    const who = (): string => (link ? `agent #${link.index + 1} (Node replay child, pid ${link.pid})` : "a Node replay child not yet announced");
    const tooLong = (bytesSeen: number, bound = maxLineBytes, what = "bridge→provider"): void =>
      onEvent({ type: "child-line-too-long", child: link, maxLineBytes: bound, message: standInLineTooLong(who(), what, bytesSeen, bound) });
    const onFrame = (text: string): void => {
      announce();
      let frame;
      try {
        frame = ChildToSchedulerFrameSchema.parse(JSON.parse(text));
      } catch {
        onEvent({ type: "child-protocol-error", reason: `malformed frame from a replay child: ${text.slice(0, 80)}` });
        return;
      }
      if (frame.t === "hello") {
        if (link) return;
        let ended = false;
        let markClosed: () => void = () => undefined;
        const closedPromise = new Promise<void>((resolve) => {
          markClosed = resolve;
        });
        const created = {
          markClosed: () => markClosed(),
          whenClosed: () => closedPromise,
          index: children.length,
          pid: frame.pid,
          closed: false,
          get buffered() {
            return socket.destroyed ? 0 : socket.writableLength;
          },
          send(line: string) {
            if (!created.closed && !ended) socket.write(encodeFrame({ t: "line", line }));
          },
          end() {
            if (ended || created.closed) return;
            ended = true;
            socket.end(encodeFrame({ t: "end" }));
          },
        };
        link = created;
        children.push(created);
        onEvent({ type: "child-hello", child: created });
      } else if (!link) {
        onEvent({ type: "child-protocol-error", reason: "a replay child sent a frame before hello" });
      } else if (frame.t === "line") {
        onEvent({ type: "child-line", child: link, line: frame.line });
      } else if (frame.t === "too-long") {
        // The child met the line on its stdin and dropped it; it is stopped as the relay is.
        tooLong(frame.bytes);
        socket.destroy();
      } else {
        onEvent({ type: "child-eof", child: link });
      }
    };
    // A frame holds one line of at most `maxLineBytes`, JSON-escaped: quotes and backslashes
    // double, so a frame over twice the bound did not come from a well-behaved child (or held raw
    // control characters, six bytes each). It is reported the same way; the socket is destroyed
    // and the child exits on its close.
    const frameBound = 2 * maxLineBytes + FRAME_OVERHEAD_BYTES;
    readSocketLines(socket, frameBound, { onLine: onFrame, onOverflow: (bytesSeen) => tooLong(bytesSeen, frameBound, "its socket (a frame)"), onEnd: () => undefined });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      announce();
      sockets.delete(socket);
      if (link) {
        link.closed = true;
        link.markClosed();
        onEvent({ type: "child-closed", child: link });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    address,
    children,
    get unannounced() {
      return unannounced;
    },
    async close() {
      for (const child of children) child.end();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The replay child's arguments after its module: the channel's socket and the line bound (child-wire.ts). */
export function childArgs(channel: ChildChannel, maxLineBytes = STAND_IN_LINE_BOUND_BYTES): string[] {
  return [CONNECT_FLAG, channel.address, MAX_LINE_FLAG, String(maxLineBytes)];
}
