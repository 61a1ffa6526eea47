/**
 * The bridge side of bb dynamic tools (spec 20 §2.6): a loopback TCP server (127.0.0.1, port 0),
 * started lazily once per bridge, that takes one proxied call per connection, checks the token and
 * answers with one JSON line. Bad JSON or a bad token → `{ok:false, error}`.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { DynamicToolHost } from "../state/runtime.js";
import { DYNAMIC_TOOL_HOST, DYNAMIC_TOOL_MAX_LINE_BYTES, ToolCallMessageSchema, type ToolCallMessage, type ToolCallReply } from "./protocol.js";

// A running tool host: its shape is the bridge state's (state/runtime.ts), which holds it.
export type { DynamicToolHost };

/** Serves one call; never rejects (failures are `{ok:false, error}`). */
export type DynamicToolCallHandler = (call: ToolCallMessage) => Promise<ToolCallReply>;

function answer(socket: Socket, reply: ToolCallReply): void {
  if (!socket.destroyed) socket.end(`${JSON.stringify(reply)}\n`);
}

/**
 * Starts the host on an ephemeral loopback port with `token`; resolves once listening.
 * @throws the listen error (e.g. no loopback interface).
 */
export function startDynamicToolHost(token: string, handle: DynamicToolCallHandler): Promise<DynamicToolHost> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let buffered = "";
    let taken = false;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      if (taken) return;
      buffered += chunk;
      if (buffered.length > DYNAMIC_TOOL_MAX_LINE_BYTES) {
        taken = true;
        answer(socket, { ok: false, error: "tool call message too large" });
        return;
      }
      const newline = buffered.indexOf("\n");
      if (newline === -1) return;
      taken = true;
      let value: unknown;
      try {
        value = JSON.parse(buffered.slice(0, newline));
      } catch {
        answer(socket, { ok: false, error: "tool call message is not JSON" });
        return;
      }
      const parsed = ToolCallMessageSchema.safeParse(value);
      if (!parsed.success) {
        answer(socket, { ok: false, error: "tool call message is malformed" });
        return;
      }
      if (parsed.data.token !== token) {
        answer(socket, { ok: false, error: "bad dynamic tool token" });
        return;
      }
      void handle(parsed.data).then((reply) => answer(socket, reply));
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, DYNAMIC_TOOL_HOST, () => {
      server.off("error", reject);
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        host: DYNAMIC_TOOL_HOST,
        port,
        token,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
