import { describe, expect, it } from "vitest";
import { createListeners, type BridgeChannel } from "../../harness/runtime/channel.js";
import { BridgeClosedError, BridgeRpcError, BridgeTimeoutError } from "../../harness/runtime/errors.js";
import { createJsonRpcClient, type BridgeNotification } from "../../harness/runtime/json-rpc-client.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";

/** A channel whose far end is the test: `sent` holds what the client wrote, `emit` plays the bridge. */
function fakeChannel() {
  const lines = createListeners<string>();
  const closes = createListeners<string>();
  const sent: string[] = [];
  let closed = false;
  const channel: BridgeChannel = {
    name: "fake",
    send: (line) => void sent.push(line),
    onLine: (l) => lines.add(l),
    onClose: (l) => closes.add(l),
    get closed() {
      return closed;
    },
    close: async () => {
      closed = true;
      closes.emit("closed by test");
    },
    kill: () => undefined,
  };
  return { channel, sent, emit: (value: unknown) => lines.emit(typeof value === "string" ? value : JSON.stringify(value)) };
}

describe("createJsonRpcClient", () => {
  it("numbers its requests from 1 and resolves each by id, whatever the order of answers", async () => {
    const { channel, sent, emit } = fakeChannel();
    const client = createJsonRpcClient(channel);
    const a = client.request("a", { x: 1 });
    const b = client.request("b");
    expect(sent.map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: "2.0", id: 1, method: "a", params: { x: 1 } },
      { jsonrpc: "2.0", id: 2, method: "b" },
    ]);
    emit({ jsonrpc: "2.0", id: 2, result: "second" });
    emit({ jsonrpc: "2.0", id: 1, result: "first" });
    expect(await Promise.all([a, b])).toEqual(["first", "second"]);
  });

  it("tells requests, notifications and responses apart by method and id, never by the result's shape", async () => {
    const { channel, sent, emit } = fakeChannel();
    const client = createJsonRpcClient(channel);
    const seen: BridgeNotification[] = [];
    client.onNotification((n) => seen.push(n));
    client.onRequest((method) => ({ handled: method }));
    const pending = client.request("ask");
    emit("not json at all");
    emit({ jsonrpc: "2.0", method: "thread/identity", params: { threadId: "t" } });
    // A result that looks like a request is still the answer to request 1.
    emit({ jsonrpc: "2.0", id: 1, result: { method: "turn/start", id: 7 } });
    emit({ jsonrpc: "2.0", id: 1, method: "interaction/request", params: {} });
    expect(await pending).toEqual({ method: "turn/start", id: 7 });
    expect(seen).toEqual([{ method: "thread/identity", params: { threadId: "t" }, position: 2 }]);
    await new Promise((resolve) => setImmediate(resolve));
    // The bridge's request id 1 is answered with its own id: the two id spaces are independent.
    expect(JSON.parse(sent.at(-1)!)).toEqual({ jsonrpc: "2.0", id: 1, result: { handled: "interaction/request" } });
  });

  it("rejects with BridgeRpcError on an error answer, BridgeTimeoutError on silence, BridgeClosedError on close", async () => {
    const { channel, emit } = fakeChannel();
    const clock = createFakeScheduler();
    const client = createJsonRpcClient(channel, clock);
    const refused = client.request("x");
    emit({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad", data: { issues: [] } } });
    await expect(refused).rejects.toMatchObject({ rpcCode: -32602, data: { issues: [] }, method: "x" });
    await expect(refused).rejects.toBeInstanceOf(BridgeRpcError);
    // Silence: the timeout fires when the (fake) clock reaches it, not before.
    let silent: unknown = "waiting";
    const unanswered = client.request("y", {}, { timeoutMs: 5_000 }).catch((error: unknown) => (silent = error));
    clock.advance(4_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(silent).toBe("waiting");
    clock.advance(1);
    await unanswered;
    expect(silent).toBeInstanceOf(BridgeTimeoutError);
    const pending = client.request("z");
    await channel.close();
    await expect(pending).rejects.toThrow(/bridge fake closed: while waiting for the answer to z: closed by test/);
    await expect(client.request("after")).rejects.toBeInstanceOf(BridgeClosedError);
    expect(await client.answerOf(client.send("late"), 1000)).toBeUndefined();
  });

  it("taps every line in both directions, protocol or not", () => {
    const { channel, emit } = fakeChannel();
    const client = createJsonRpcClient(channel);
    const tapped: string[] = [];
    client.onLine((line, direction) => tapped.push(`${direction}: ${line}`));
    client.sendLine("raw out");
    client.notify("n");
    emit("raw in");
    expect(tapped).toEqual(["runtime→bridge: raw out", 'runtime→bridge: {"jsonrpc":"2.0","method":"n"}', "bridge→runtime: raw in"]);
  });
});
