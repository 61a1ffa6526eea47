import { afterEach, describe, expect, it } from "vitest";
import { openInProcessBridge } from "../../harness/runtime/in-process.js";
import { createJsonRpcClient, type JsonRpcClient } from "../../harness/runtime/json-rpc-client.js";
import { createCodexBridge } from "../../stack/codex/bridge.js";
import { parseThreadDeltaParams, type ThreadDelta } from "../../stack/protocol/thread-delta.js";

// The inputs that broke the bridge's order (both seen in soak runs of the real recordings): Codex
// writes an answer and the notifications after it in ONE read. A stand-in app-server that always
// does so: the steer's input.accepted must still come before the steered call's items, and a
// resumed thread's unprompted usage after the session.reset.

const APP_SERVER = `
const out = (...m) => process.stdout.write(m.map((x) => JSON.stringify(x) + "\\n").join(""));
const T = "th-1", U = "tu-1";
let buf = "";
process.stdin.on("data", (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
    if (m.method === "initialize") out({ id: m.id, result: {} });
    if (m.method === "thread/start") out({ id: m.id, result: { thread: { id: T } } });
    if (m.method === "thread/resume") out({ id: m.id, result: { thread: { id: T } } }, { method: "thread/tokenUsage/updated", params: { threadId: T, turnId: U, tokenUsage: { total: { totalTokens: 3, inputTokens: 2, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0 }, last: { totalTokens: 3, inputTokens: 2, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0 }, modelContextWindow: 100 } } });
    if (m.method === "turn/start") out({ id: m.id, result: { turn: { id: U, status: "inProgress" } } }, { method: "turn/started", params: { threadId: T, turn: { id: U, status: "inProgress" } } }, { method: "item/started", params: { threadId: T, turnId: U, item: { type: "agentMessage", id: "m1", text: "" } } });
    if (m.method === "turn/steer") out({ id: m.id, result: { turnId: U } }, { method: "item/started", params: { threadId: T, turnId: U, item: { type: "agentMessage", id: "m2", text: "" } } }, { method: "item/completed", params: { threadId: T, turnId: U, item: { type: "agentMessage", id: "m2", text: "steered" } } }, { method: "turn/completed", params: { threadId: T, turn: { id: U, status: "completed", error: null } } });
  }
});`;

const open: JsonRpcClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.channel.close()));
});

function start() {
  const client = createJsonRpcClient(openInProcessBridge(createCodexBridge(), { providerId: "codex", env: { PATH: process.env.PATH } }));
  open.push(client);
  const deltas: ThreadDelta[] = [];
  client.onNotification((n) => {
    if (n.method === "thread/delta") deltas.push(...parseThreadDeltaParams(n.params).deltas);
  });
  const options = { permissionMode: "full", providerOptions: { codexAppServer: { command: process.execPath, args: ["-e", APP_SERVER] } } };
  return { client, deltas, options };
}
const input = [{ type: "text", text: "x" }];

describe("codex bridge: an answer and the notifications after it in one read", () => {
  it("a steer's input.accepted comes before the steered call's items", async () => {
    const b = start();
    await b.client.request("thread/start", { threadId: "t", cwd: "/tmp", options: b.options });
    await b.client.request("turn/start", { threadId: "t", input, clientRequestId: "creq_2222222222", options: b.options });
    await b.client.request("turn/steer", { threadId: "t", input, clientRequestId: "creq_2222222223", options: b.options });
    await expect.poll(() => b.deltas.some((d) => d.kind === "turn.boundary")).toBe(true);
    const kinds = b.deltas.map((d) => (d.kind === "input.accepted" ? `accepted ${d.clientRequestId}` : d.kind === "item.open" ? `open ${d.key.providerItemId}` : d.kind));
    expect(kinds.indexOf("accepted creq_2222222223")).toBeLessThan(kinds.indexOf("open m2"));
  });

  it("a resumed thread's unprompted usage is handled after the session.reset", async () => {
    const b = start();
    await b.client.request("thread/resume", { threadId: "t", cwd: "/tmp", providerThreadId: "th-1", options: b.options });
    await expect.poll(() => b.deltas.some((d) => d.kind === "usage")).toBe(true);
    expect(b.deltas.map((d) => d.kind)).toEqual(["session.reset", "usage"]);
  });
});
