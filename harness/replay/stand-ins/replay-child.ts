/**
 * The replay child (docs/design/00-product.md flow 2; spec 10 §5.2): the process a bridge spawns in
 * place of the real agent during a replay. It decides nothing: it connects to the
 * scheduler's private socket (`--connect <path>`), forwards every stdin line (what the
 * bridge wrote to its agent) as a `line` frame, and writes every `line` frame it receives
 * to stdout. Both are read through the project's one bounded line splitter
 * (`stack/bridge-kit/line-splitter.ts`): a stdin line over `--max-line-bytes` (default 64 MiB)
 * is dropped unread and reported as a `too-long` frame, after which the scheduler stops the
 * child. It exits 0 when stdin closes, when the scheduler sends `end` or closes the
 * socket, or on SIGTERM; 1 when it cannot reach the scheduler. Other argv (an agent's own
 * flags) is ignored.
 */
import { createConnection } from "node:net";
import { createBoundedLineSplitter, MAX_LINE_BYTES } from "../../../stack/bridge-kit/line-splitter.js";
import { CONNECT_FLAG, decodeSchedulerFrame, encodeFrame, MAX_LINE_FLAG } from "./child-wire.js";

function flagValue(argv: string[], flag: string): string | undefined {
  const at = argv.indexOf(flag);
  return at === -1 ? undefined : argv[at + 1];
}

function run(): void {
  const argv = process.argv.slice(2);
  const path = flagValue(argv, CONNECT_FLAG);
  if (path === undefined || path === "") {
    process.stderr.write(`[replay-child] missing ${CONNECT_FLAG} <socket path>\n`);
    process.exit(1);
  }
  const bound = Number(flagValue(argv, MAX_LINE_FLAG) ?? MAX_LINE_BYTES);
  const maxLineBytes = Number.isSafeInteger(bound) && bound > 0 ? bound : MAX_LINE_BYTES;
  const socket = createConnection(path);
  socket.on("error", (error) => {
    process.stderr.write(`[replay-child] channel error: ${error.message}\n`);
    process.exit(1);
  });
  socket.on("close", () => process.exit(0));
  socket.on("connect", () => {
    socket.write(encodeFrame({ t: "hello", pid: process.pid }));
    const stdin = createBoundedLineSplitter({
      maxLineBytes,
      onLine: (line) => socket.write(encodeFrame({ t: "line", line })),
      onOverflow: (bytes) => socket.write(encodeFrame({ t: "too-long", bytes })),
    });
    process.stdin.on("data", (chunk: Buffer) => stdin.push(chunk));
    process.stdin.on("end", () => {
      stdin.end();
      socket.end(encodeFrame({ t: "eof" }));
    });
  });
  // Frames from the scheduler hold lines it read within its own bound, JSON-escaped (child-channel.ts).
  const frames = createBoundedLineSplitter({
    maxLineBytes: 2 * maxLineBytes + 64,
    onLine: (text) => {
      const frame = decodeSchedulerFrame(text);
      if (!frame) {
        process.stderr.write("[replay-child] ignoring a malformed frame\n");
        return;
      }
      if (frame.t === "end") process.exit(0);
      else process.stdout.write(`${frame.line}\n`);
    },
    onOversize: () => process.stderr.write("[replay-child] ignoring a frame over its bound\n"),
  });
  socket.on("data", (chunk: Buffer) => frames.push(chunk));
  process.on("SIGTERM", () => process.exit(0));
}

run();
