import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BridgeJsonRpcError } from "../../stack/protocol/errors.js";
import { BridgeRecoveryError } from "../../stack/protocol/recovery.js";
import { sanitizeInheritedChildProcessEnv, RECORD_DIR_ENV_VAR } from "../../stack/bridge-kit/child-env.js";
import { defineProviderBridge, isProviderBridge } from "../../stack/bridge-kit/define.js";
import { BridgeIoClosedError, createBridgeIo } from "../../stack/bridge-kit/io.js";
import { createBoundedLineSplitter } from "../../stack/bridge-kit/line-splitter.js";
import { defineRequestHandler, runBridgeRequest } from "../../stack/bridge-kit/run-request.js";
import { addTokenUsage } from "../../stack/bridge-kit/usage.js";
import * as kit from "../../stack/bridge-kit/index.js";

function capture() {
  const lines: string[] = [];
  const io = createBridgeIo((line) => lines.push(line));
  const messages = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { io, lines, messages };
}

describe("createBoundedLineSplitter", () => {
  it("splits across chunks, strips CR and keeps multi-byte characters split between chunks", () => {
    const lines: string[] = [];
    const splitter = createBoundedLineSplitter({ onLine: (line) => lines.push(line) });
    const bytes = Buffer.from("héllo\r\nwörld\n\nlast", "utf8");
    for (const byte of bytes) splitter.push(Buffer.from([byte]));
    splitter.end();
    expect(lines).toEqual(["héllo", "wörld", "", "last"]);
  });

  it("drops a line over the cap, reports its size once, and keeps going", () => {
    const lines: string[] = [];
    const dropped: number[] = [];
    const splitter = createBoundedLineSplitter({ maxLineBytes: 10, onLine: (line) => lines.push(line), onOversize: (bytes) => dropped.push(bytes) });
    splitter.push("short\n0123456");
    splitter.push("789abcdef");
    splitter.push("ghij\nafter\n");
    splitter.push("0123456789\n");
    expect(lines).toEqual(["short", "after", "0123456789"]);
    expect(dropped).toEqual([20]);
  });

  it("takes Buffer and string chunks alike, decodes UTF-8 cut between chunks and flushes the tail on end", () => {
    const lines: string[] = [];
    const splitter = createBoundedLineSplitter({ onLine: (line) => lines.push(line), maxLineBytes: Infinity });
    const bytes = Buffer.from("a→b\r\nsecond", "utf8");
    splitter.push(bytes.subarray(0, 2)); // cuts the 3-byte arrow in two
    splitter.push(bytes.subarray(2));
    splitter.push("\nthird");
    expect(lines).toEqual(["a→b", "second"]);
    splitter.end();
    expect(lines).toEqual(["a→b", "second", "third"]);
  });

  it("tells onOverflow as soon as a line crosses the cap, once per line, and onOversize when it ends", () => {
    const events: string[] = [];
    const splitter = createBoundedLineSplitter({
      maxLineBytes: 4,
      onLine: (line) => events.push(`line ${line}`),
      onOverflow: (seen) => events.push(`overflow ${seen}`),
      onOversize: (bytes) => events.push(`oversize ${bytes}`),
    });
    splitter.push("ok\n123");
    splitter.push("45");
    expect(events).toEqual(["line ok", "overflow 5"]);
    splitter.push("678\nnext\n");
    expect(events).toEqual(["line ok", "overflow 5", "oversize 8", "line next"]);
  });

  it("reports an oversized unterminated tail at end", () => {
    const dropped: number[] = [];
    const splitter = createBoundedLineSplitter({ maxLineBytes: 4, onLine: () => undefined, onOversize: (bytes) => dropped.push(bytes) });
    splitter.push("123456");
    splitter.end();
    expect(dropped).toEqual([6]);
  });
});

describe("createBridgeIo", () => {
  it("writes results, errors and notifications as single JSON lines", () => {
    const { io, messages } = capture();
    io.sendResult(1, { ok: true });
    io.sendResult("a", undefined);
    io.sendError(2, -32001, "No active turn to steer", { recovery: { kind: "staleTurn", message: "x", retryable: false } });
    io.sendError(3, -32601, "nope");
    io.notify("thread/delta", { threadId: "t", deltas: [] });
    expect(messages()).toEqual([
      { jsonrpc: "2.0", id: 1, result: { ok: true } },
      { jsonrpc: "2.0", id: "a", result: null },
      { jsonrpc: "2.0", id: 2, error: { code: -32001, message: "No active turn to steer", data: { recovery: { kind: "staleTurn", message: "x", retryable: false } } } },
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "nope" } },
      { jsonrpc: "2.0", method: "thread/delta", params: { threadId: "t", deltas: [] } },
    ]);
  });

  it("numbers its own requests from 1 and settles them by numeric id only", async () => {
    const { io, messages } = capture();
    const first = io.request("interaction/request", { threadId: "t" });
    const second = io.request("item/tool/call", { threadId: "t" });
    expect(messages().map((m) => [m.id, m.method])).toEqual([
      [1, "interaction/request"],
      [2, "item/tool/call"],
    ]);
    expect(io.pendingCount).toBe(2);
    expect(io.acceptResponse({ jsonrpc: "2.0", id: "1", result: {} })).toBe(false);
    expect(io.acceptResponse({ jsonrpc: "2.0", id: 7, result: {} })).toBe(false);
    expect(io.acceptResponse({ jsonrpc: "2.0", id: 1, method: "x" })).toBe(false);
    expect(io.acceptResponse({ jsonrpc: "2.0", id: 2, error: { code: -32000, message: "denied", data: { a: 1 } } })).toBe(true);
    expect(io.acceptResponse({ jsonrpc: "2.0", id: 1, result: { decision: "allow_once" } })).toBe(true);
    expect(io.acceptResponse({ jsonrpc: "2.0", id: 1, result: { decision: "again" } })).toBe(false);
    await expect(first).resolves.toEqual({ decision: "allow_once" });
    const error = await second.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeJsonRpcError);
    expect(error).toMatchObject({ code: -32000, message: "denied", data: { a: 1 } });
    expect(io.pendingCount).toBe(0);
  });

  it("cancels an aborted request with notifications/cancelled and rejects the rest on close", async () => {
    const { io, messages } = capture();
    const controller = new AbortController();
    const aborted = io.request("item/tool/call", {}, { signal: controller.signal });
    const open = io.request("interaction/request", {});
    controller.abort(new Error("turn ended"));
    await expect(aborted).rejects.toThrow("turn ended");
    expect(messages().at(-1)).toEqual({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    expect(io.acceptResponse({ jsonrpc: "2.0", id: 1, result: {} })).toBe(false);
    io.rejectPending(new BridgeIoClosedError());
    await expect(open).rejects.toBeInstanceOf(BridgeIoClosedError);
  });
});

describe("runBridgeRequest", () => {
  const request = (method: string, params?: unknown, id: number | string = 5) => ({ jsonrpc: "2.0", id, method, params });

  it("answers an unknown method with -32601", async () => {
    const { io, messages } = capture();
    await expect(runBridgeRequest(io, request("thread/archive", {}), {})).resolves.toBe("error");
    expect(messages()).toEqual([{ jsonrpc: "2.0", id: 5, error: { code: -32601, message: 'Unknown method "thread/archive"' } }]);
  });

  it("does not take inherited properties for handlers", async () => {
    const { io, messages } = capture();
    await runBridgeRequest(io, request("toString"), {});
    expect(messages()[0]).toMatchObject({ error: { code: -32601 } });
  });

  it("validates params with the protocol schema and answers -32602 with the zod issues", async () => {
    const { io, messages } = capture();
    let called = false;
    const outcome = await runBridgeRequest(io, request("thread/stop", { threadId: "t", intent: "pause" }), {
      "thread/stop": () => {
        called = true;
        return { ok: true };
      },
    });
    expect(outcome).toBe("error");
    expect(called).toBe(false);
    const reply = messages()[0] as { error: { code: number; message: string; data: { issues: Array<{ path: unknown[] }> } } };
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toMatch(/^Invalid params for "thread\/stop": intent: /);
    expect(reply.error.data.issues.map((issue) => issue.path)).toEqual([["intent"]]);
  });

  it("uses a handler's own schema and passes parsed params", async () => {
    const { io, messages } = capture();
    const handlers = {
      "vendor/echo": defineRequestHandler(z.object({ n: z.number() }), (_id, params) => ({ doubled: params.n * 2 })),
    };
    await expect(runBridgeRequest(io, request("vendor/echo", { n: 2 }), handlers)).resolves.toBe("result");
    await expect(runBridgeRequest(io, request("vendor/echo", { n: "2" }, 6), handlers)).resolves.toBe("error");
    expect(messages()[0]).toEqual({ jsonrpc: "2.0", id: 5, result: { doubled: 4 } });
    expect(messages()[1]).toMatchObject({ id: 6, error: { code: -32602 } });
  });

  it("turns throws into -32000, keeps a typed error's code and data, and leaves undefined to the handler", async () => {
    const { io, messages } = capture();
    const handlers = {
      "turn/steer": () => {
        throw new BridgeRecoveryError({ code: -32001, message: "No active turn to steer", recovery: { kind: "staleTurn", message: "No active turn to steer", retryable: false } });
      },
      "model/list": async () => {
        throw new Error("spawn cursor-agent ENOENT");
      },
      "thread/discard": () => undefined,
    };
    const steer = { threadId: "t", input: [], clientRequestId: "creq_x" };
    await expect(runBridgeRequest(io, request("turn/steer", steer, 1), handlers)).resolves.toBe("error");
    await expect(runBridgeRequest(io, request("model/list", {}, 2), handlers)).resolves.toBe("error");
    await expect(runBridgeRequest(io, request("thread/discard", {}, 3), handlers)).resolves.toBe("deferred");
    expect(messages()).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -32001, message: "No active turn to steer", data: { recovery: { kind: "staleTurn", message: "No active turn to steer", retryable: false } } } },
      { jsonrpc: "2.0", id: 2, error: { code: -32000, message: "spawn cursor-agent ENOENT" } },
    ]);
  });

  it("accepts a raw line as well as a parsed message", async () => {
    const { io, messages } = capture();
    await expect(runBridgeRequest(io, '{"jsonrpc":"2.0","id":4,"method":"vendor/x"}', { "vendor/x": () => ({ fine: true }) })).resolves.toBe("result");
    expect(messages()).toEqual([{ jsonrpc: "2.0", id: 4, result: { fine: true } }]);
  });

  it("ignores notifications, responses and requests without jsonrpc", async () => {
    const { io, lines } = capture();
    const handlers = { initialize: () => ({}) };
    expect(await runBridgeRequest(io, { jsonrpc: "2.0", method: "initialize" }, handlers)).toBe("ignored");
    expect(await runBridgeRequest(io, { id: 1, method: "initialize", params: {} }, handlers)).toBe("ignored");
    expect(await runBridgeRequest(io, { jsonrpc: "2.0", id: 1, result: {} }, handlers)).toBe("ignored");
    expect(await runBridgeRequest(io, "garbage", handlers)).toBe("ignored");
    expect(await runBridgeRequest(io, '{"jsonrpc":"2.0","method":"initialize"}', handlers)).toBe("ignored");
    expect(lines).toEqual([]);
  });
});

describe("sanitizeInheritedChildProcessEnv (spec 30 §6.5)", () => {
  it("drops undefined values, NODE_ENV and every BB_ key, record variable included", () => {
    const env = { PATH: "/bin", HOME: "/h", NODE_ENV: "test", BB_X: "1", [RECORD_DIR_ENV_VAR]: "/rec", EMPTY: "", GONE: undefined };
    expect(sanitizeInheritedChildProcessEnv({ env })).toEqual({ PATH: "/bin", HOME: "/h", EMPTY: "" });
    expect(sanitizeInheritedChildProcessEnv(env)).toEqual({ PATH: "/bin", HOME: "/h", EMPTY: "" });
  });

  it("replaces PATH with shellPath and leaves the input alone", () => {
    const env = { PATH: "/bin", BB_X: "1" };
    expect(sanitizeInheritedChildProcessEnv({ env, shellPath: "/usr/local/bin:/bin" })).toEqual({ PATH: "/usr/local/bin:/bin" });
    expect(env).toEqual({ PATH: "/bin", BB_X: "1" });
  });
});

describe("addTokenUsage", () => {
  it("adds field by field, missing counting as 0", () => {
    const a = { totalTokens: 10, inputTokens: 6, cachedInputTokens: 2, outputTokens: 4, reasoningOutputTokens: 1 };
    expect(addTokenUsage(a, { totalTokens: 5, outputTokens: 5 })).toEqual({ totalTokens: 15, inputTokens: 6, cachedInputTokens: 2, outputTokens: 9, reasoningOutputTokens: 1 });
    expect(addTokenUsage(null, undefined)).toEqual({ totalTokens: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 });
    expect(a.totalTokens).toBe(10);
  });
});

describe("defineProviderBridge", () => {
  it("validates hooks and names the wrong one", () => {
    expect(() => defineProviderBridge({} as never)).toThrow(/handleLine/);
    expect(() => defineProviderBridge({ handleLine: () => undefined, start: 3 } as never)).toThrow(/start/);
    const bridge = defineProviderBridge({ handleLine: () => undefined });
    expect(bridge.protocolVersion).toBe(2);
    expect(isProviderBridge(bridge)).toBe(true);
    expect(isProviderBridge({ handleLine: 1 })).toBe(false);
  });

  it("exports the kit's names and experimental_ aliases", () => {
    expect(kit.PROVIDER_BRIDGE_PROTOCOL_VERSION).toBe(2);
    expect(kit.THREAD_DELTA_GRAMMAR_V2).toBe(2);
    expect(kit.THREAD_DELTA_GRAMMAR_V3).toBe(3);
    expect(kit.BRIDGE_REQUEST_METHODS.threadStart).toBe("thread/start");
    expect(kit.BRIDGE_JSON_RPC_ERRORS.invalidParams).toBe(-32602);
    expect(kit.PROVIDER_BRIDGE_EXPORT_NAME).toBe("experimental_providerBridge");
    expect(kit.experimental_defineProviderBridge).toBe(kit.defineProviderBridge);
    expect(kit.experimental_recordProviderChildIo).toBe(kit.recordProviderChildIo);
    expect(kit.experimental_isProviderBridgeRecording).toBe(kit.isProviderBridgeRecording);
    expect(typeof kit.createBridgeIo).toBe("function");
    expect(typeof kit.runBridgeRequest).toBe("function");
    expect(typeof kit.addTokenUsage).toBe("function");
    expect(typeof kit.sanitizeInheritedChildProcessEnv).toBe("function");
  });
});
