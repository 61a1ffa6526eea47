import { afterEach, describe, expect, it } from "vitest";
import { parseThreadDeltaParams, type ThreadDelta } from "../../stack/protocol/thread-delta.js";
import { createEchoBridge } from "../../stack/echo/bridge.js";
import { chunkText, planPrompt } from "../../stack/echo/answer.js";
import { openInProcessBridge } from "../../harness/runtime/in-process.js";
import { createJsonRpcClient, type JsonRpcClient } from "../../harness/runtime/json-rpc-client.js";
import { checkInitializeResult } from "../../harness/runtime/handshake.js";
import { BridgeRpcError } from "../../harness/runtime/errors.js";

/** One observed line of the bridge: a delta batch, another notification, or an answer. */
type Observed = { kind: "deltas"; deltas: ThreadDelta[] } | { kind: "notification"; method: string; params: unknown } | { kind: "answer"; line: string };

const open: JsonRpcClient[] = [];

function startEcho(entropy?: (n: number) => Uint8Array) {
  const bridge = createEchoBridge(entropy ? { entropy } : {});
  const client = createJsonRpcClient(openInProcessBridge(bridge, { providerId: "echo" }));
  open.push(client);
  const observed: Observed[] = [];
  client.onLine((line, direction) => {
    if (direction !== "bridge→runtime") return;
    const message = JSON.parse(line) as { method?: string; params?: unknown };
    if (message.method === "thread/delta") observed.push({ kind: "deltas", deltas: parseThreadDeltaParams(message.params).deltas });
    else if (message.method) observed.push({ kind: "notification", method: message.method, params: message.params });
    else observed.push({ kind: "answer", line });
  });
  return { client, observed };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.channel.close()));
});

const counterBytes = (seed: number) => (n: number) => Uint8Array.from({ length: n }, (_, i) => (seed + i) % 256);
const thread = { threadId: "thr_echo_1", cwd: "/tmp" };
const text = (value: string) => [{ type: "text", text: value }];
const kinds = (observed: Observed[]) => observed.map((o) => (o.kind === "deltas" ? o.deltas.map((d) => d.kind).join("+") : o.kind === "answer" ? "ANSWER" : o.method));

describe("echo bridge", () => {
  it("answers initialize with protocol 2 and grammar [3,3], which passes the runtime's gate", async () => {
    const { client } = startEcho();
    const result = await client.request("initialize", { protocolVersion: 2, client: { name: "t", version: "1" }, grammarVersions: [3, 3] });
    const checked = checkInitializeResult("echo", result);
    expect(checked.grammarVersion).toBe(3);
    expect(checked.capabilities.grammarVersions).toEqual([3, 3]);
    expect(checked.capabilities.sessionRestore).toBe(true);
  });

  it("mints providerThreadId from the injected entropy and announces identity + session.reset before answering", async () => {
    const { client, observed } = startEcho(counterBytes(0xa0));
    const result = await client.request("thread/start", thread);
    expect(result).toEqual({ providerThreadId: "echo-a0a1a2a3a4a5a6a7", sessionRestorable: true });
    expect(kinds(observed)).toEqual(["thread/identity", "session.reset", "ANSWER"]);
    expect(observed[0]).toMatchObject({ params: { threadId: "thr_echo_1", providerThreadId: "echo-a0a1a2a3a4a5a6a7" } });
  });

  it("two instances with the default entropy never share a providerThreadId", async () => {
    const a = startEcho();
    const b = startEcho();
    const [ra, rb] = (await Promise.all([a.client.request("thread/start", thread), b.client.request("thread/start", thread)])) as Array<{
      providerThreadId: string;
    }>;
    expect(ra!.providerThreadId).toMatch(/^echo-[0-9a-f]{16}$/);
    expect(ra!.providerThreadId).not.toBe(rb!.providerThreadId);
  });

  it("streams the prompt back: input.accepted → turn.open → answer → textDelta… → textClose → turn.boundary", async () => {
    const { client, observed } = startEcho(counterBytes(1));
    await client.request("thread/start", thread);
    observed.length = 0;
    const completed = new Promise<void>((resolve) =>
      client.onNotification((n) => {
        if (n.method === "thread/delta" && JSON.stringify(n.params).includes("turn.boundary")) resolve();
      }),
    );
    const prompt = "Hello  echo,\nworld ";
    const answer = await client.request("turn/start", { ...thread, input: text(prompt), clientRequestId: "creq_2222222223" });
    expect(answer).toEqual({ threadId: "thr_echo_1" });
    await completed;
    const chunks = chunkText(prompt);
    expect(kinds(observed)).toEqual(["input.accepted", "turn.open", "ANSWER", ...chunks.map(() => "item.textDelta"), "item.textClose", "turn.boundary"]);
    const streamed = observed.flatMap((o) => (o.kind === "deltas" ? o.deltas : [])).filter((d) => d.kind === "item.textDelta");
    expect(streamed.map((d) => (d.kind === "item.textDelta" ? d.text : "")).join("")).toBe(prompt);
    expect(observed.at(-2)).toEqual({ kind: "deltas", deltas: [{ kind: "item.textClose", key: { channel: "assistant" }, channel: "agentMessage", text: prompt }] });
    expect(observed.at(-1)).toEqual({ kind: "deltas", deltas: [{ kind: "turn.boundary", status: "completed" }] });
  });

  it("a zero-work prompt (/clear) still emits turn.open and turn.boundary, and nothing else", async () => {
    const { client, observed } = startEcho();
    await client.request("thread/start", thread);
    observed.length = 0;
    await client.request("turn/start", { ...thread, input: text("/clear"), clientRequestId: "creq_2222222224" });
    await client.request("thread/discard", {}); // a barrier: everything before it has been written
    expect(kinds(observed)).toEqual(["input.accepted", "turn.open", "ANSWER", "turn.boundary", "ANSWER"]);
  });

  it("interrupt settles the held turn (message closed, boundary interrupted) before it answers the stop", async () => {
    const { client, observed } = startEcho();
    await client.request("thread/start", thread);
    await client.request("turn/start", { ...thread, input: text("/hold still working"), clientRequestId: "creq_2222222225" });
    await client.request("thread/discard", {});
    observed.length = 0;
    expect(await client.request("thread/stop", { ...thread, intent: "interrupt", activeTurnId: null })).toEqual({ ok: true });
    expect(kinds(observed)).toEqual(["item.textClose", "turn.boundary", "ANSWER"]);
    expect(observed[1]).toEqual({ kind: "deltas", deltas: [{ kind: "turn.boundary", status: "interrupted" }] });
    // The session ended with the stop: a new turn needs thread/resume.
    await expect(client.request("turn/start", { ...thread, input: text("again"), clientRequestId: "creq_2222222226" })).rejects.toMatchObject({
      rpcCode: -32000,
    });
  });

  it("release fabricates nothing, even with a turn held open, and resume adopts the given providerThreadId", async () => {
    const { client, observed } = startEcho();
    const { providerThreadId } = (await client.request("thread/start", thread)) as { providerThreadId: string };
    await client.request("turn/start", { ...thread, input: text("/hold"), clientRequestId: "creq_2222222227" });
    await client.request("thread/discard", {});
    observed.length = 0;
    await client.request("thread/stop", { ...thread, intent: "release", activeTurnId: null });
    expect(kinds(observed)).toEqual(["ANSWER"]);
    const resumed = await client.request("thread/resume", { ...thread, providerThreadId });
    expect(resumed).toEqual({ providerThreadId, sessionRestorable: true });
  });

  it("steer: -32001 without a turn; during a held turn it is accepted into the same turn, which then completes", async () => {
    const { client, observed } = startEcho();
    await client.request("thread/start", thread);
    const steer = { ...thread, input: text("change of plan"), clientRequestId: "creq_2222222228" };
    const refused = await client.request("turn/steer", steer).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BridgeRpcError);
    expect((refused as BridgeRpcError).rpcCode).toBe(-32001);
    await client.request("turn/start", { ...thread, input: text("/hold first"), clientRequestId: "creq_2222222229" });
    await client.request("thread/discard", {});
    observed.length = 0;
    await client.request("turn/steer", steer);
    await client.request("thread/discard", {});
    expect(kinds(observed)).toEqual(["ANSWER", "item.textClose", "input.accepted", "item.textDelta", "item.textDelta", "item.textDelta", "item.textClose", "turn.boundary", "ANSWER"]);
  });

  it("refuses a second turn while one is active, and unknown methods with -32601", async () => {
    const { client } = startEcho();
    await client.request("thread/start", thread);
    await client.request("turn/start", { ...thread, input: text("/hold"), clientRequestId: "creq_222222222a" });
    await expect(client.request("turn/start", { ...thread, input: text("x"), clientRequestId: "creq_222222222b" })).rejects.toMatchObject({
      rpcCode: -32000,
      message: expect.stringContaining("A turn is already active"),
    });
    await expect(client.request("no/such-method", {})).rejects.toMatchObject({ rpcCode: -32601 });
  });
});

describe("echo sessions end cleanly", () => {
  it("a second thread/start interrupts the held turn of the session it replaces, before the new identity", async () => {
    const { client, observed } = startEcho();
    await client.request("thread/start", thread);
    await client.request("turn/start", { ...thread, input: text("/hold"), clientRequestId: "creq_222222222c" });
    await client.request("thread/discard", {});
    observed.length = 0;
    await client.request("thread/start", thread);
    expect(kinds(observed)).toEqual(["item.textClose", "turn.boundary", "thread/identity", "session.reset", "ANSWER"]);
  });

  it("closing the bridge interrupts a held turn on the way out", async () => {
    const { client, observed } = startEcho();
    await client.request("thread/start", thread);
    await client.request("turn/start", { ...thread, input: text("/hold"), clientRequestId: "creq_222222222d" });
    await client.request("thread/discard", {});
    observed.length = 0;
    await client.channel.close();
    expect(kinds(observed)).toEqual(["item.textClose", "turn.boundary"]);
    expect(observed[1]).toEqual({ kind: "deltas", deltas: [{ kind: "turn.boundary", status: "interrupted" }] });
  });
});

describe("echo prompt plans", () => {
  it("classifies zero-work, hold and echo prompts", () => {
    expect(planPrompt("  /clear ")).toEqual({ kind: "zeroWork" });
    expect(planPrompt("")).toEqual({ kind: "zeroWork" });
    expect(planPrompt("/hold wait here")).toEqual({ kind: "hold", text: "wait here" });
    expect(planPrompt("/holdings report")).toEqual({ kind: "echo", text: "/holdings report" });
    expect(chunkText("  a b\n c")).toEqual(["  ", "a ", "b\n ", "c"]);
  });
});
