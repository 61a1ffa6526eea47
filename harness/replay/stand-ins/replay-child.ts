/**
 * The replay child (00-product.md flow 2; spec 10 §5.2): the process a bridge spawns in
 * place of the real agent during a replay. It decides nothing: it connects to the
 * scheduler's private socket (`--connect <path>`), forwards every stdin line (what the
 * bridge wrote to its agent) as a `line` frame, and writes every `line` frame it receives
 * to stdout. It exits 0 when stdin closes, when the scheduler sends `end` or closes the
 * socket, or on SIGTERM; 1 when it cannot reach the scheduler. Other argv (an agent's own
 * flags) is ignored.
 */
import { createConnection } from "node:net";
import { createInterface } from "node:readline";
import { CONNECT_FLAG, decodeSchedulerFrame, encodeFrame } from "./child-wire.js";

function socketPathFrom(argv: string[]): string | undefined {
  const at = argv.indexOf(CONNECT_FLAG);
  return at === -1 ? undefined : argv[at + 1];
}

function run(): void {
  const path = socketPathFrom(process.argv.slice(2));
  if (path === undefined || path === "") {
    process.stderr.write(`[replay-child] missing ${CONNECT_FLAG} <socket path>\n`);
    process.exit(1);
  }
  const socket = createConnection(path);
  socket.setEncoding("utf8");
  socket.on("error", (error) => {
    process.stderr.write(`[replay-child] channel error: ${error.message}\n`);
    process.exit(1);
  });
  socket.on("close", () => process.exit(0));
  socket.on("connect", () => {
    socket.write(encodeFrame({ t: "hello", pid: process.pid }));
    const stdin = createInterface({ input: process.stdin, crlfDelay: Infinity });
    stdin.on("line", (line) => socket.write(encodeFrame({ t: "line", line })));
    stdin.on("close", () => {
      socket.end(encodeFrame({ t: "eof" }));
    });
  });
  const frames = createInterface({ input: socket, crlfDelay: Infinity });
  frames.on("line", (text) => {
    const frame = decodeSchedulerFrame(text);
    if (!frame) {
      process.stderr.write("[replay-child] ignoring a malformed frame\n");
      return;
    }
    if (frame.t === "end") process.exit(0);
    else process.stdout.write(`${frame.line}\n`);
  });
  process.on("SIGTERM", () => process.exit(0));
}

run();
