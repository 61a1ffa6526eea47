import { describe, expect, it } from "vitest";
import { classifyJsonRpcMessage, jsonRpcError, jsonRpcIdKey, jsonRpcKindOf, jsonRpcNotification, jsonRpcRequest, jsonRpcResult, parseJsonRpcLine } from "../../stack/protocol/json-rpc.js";

describe("classifyJsonRpcMessage (spec 10 §1.1)", () => {
  it("tells request, notification and response apart by method and id", () => {
    expect(classifyJsonRpcMessage({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }).kind).toBe("request");
    expect(classifyJsonRpcMessage({ jsonrpc: "2.0", id: "a", method: "x" }).kind).toBe("request");
    expect(classifyJsonRpcMessage({ jsonrpc: "2.0", method: "thread/delta", params: {} }).kind).toBe("notification");
    expect(classifyJsonRpcMessage({ jsonrpc: "2.0", id: 3, result: null }).kind).toBe("response");
    expect(classifyJsonRpcMessage({ jsonrpc: "2.0", id: 3, error: { code: -32000, message: "x" } }).kind).toBe("response");
  });

  it("never reads a result shaped like a request as a request", () => {
    const looksLikeRequest = { jsonrpc: "2.0", id: 9, result: { method: "turn/start", id: 1, params: {} } };
    const classified = classifyJsonRpcMessage(looksLikeRequest);
    expect(classified.kind).toBe("response");
  });

  it("keeps unknown envelope keys", () => {
    const classified = classifyJsonRpcMessage({ jsonrpc: "2.0", method: "m", extra: 1 });
    expect(classified).toEqual({ kind: "notification", message: { jsonrpc: "2.0", method: "m", extra: 1 } });
  });

  it("rejects what is not a protocol message, with a reason", () => {
    for (const value of [
      null,
      [],
      "x",
      { id: 1, method: "m" },
      { jsonrpc: "1.0", method: "m" },
      { jsonrpc: "2.0", id: 1, method: 5 },
      { jsonrpc: "2.0", id: { a: 1 }, method: "m" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: 1, result: 1, error: { code: 1, message: "" } },
      { jsonrpc: "2.0", id: 1, error: { code: "x", message: "" } },
      { jsonrpc: "2.0" },
    ]) {
      const classified = classifyJsonRpcMessage(value);
      expect(classified.kind, JSON.stringify(value)).toBe("invalid");
      if (classified.kind === "invalid") expect(classified.reason.length).toBeGreaterThan(0);
    }
  });

  it("parses lines, ignoring a trailing CR and refusing non-JSON", () => {
    expect(parseJsonRpcLine('{"jsonrpc":"2.0","method":"m"}\r').kind).toBe("notification");
    expect(parseJsonRpcLine("not json")).toEqual({ kind: "invalid", reason: "not JSON" });
    expect(parseJsonRpcLine("   ")).toEqual({ kind: "invalid", reason: "blank line" });
  });

  it("builds messages that classify back to their kind", () => {
    expect(classifyJsonRpcMessage(jsonRpcRequest(1, "m")).kind).toBe("request");
    expect(jsonRpcRequest(1, "m")).not.toHaveProperty("params");
    expect(classifyJsonRpcMessage(jsonRpcNotification("m", { a: 1 })).kind).toBe("notification");
    expect(jsonRpcResult(2, undefined)).toEqual({ jsonrpc: "2.0", id: 2, result: null });
    expect(jsonRpcError(2, -32601, "nope")).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32601, message: "nope" } });
    expect(jsonRpcError(2, -32602, "bad", { issues: [] }).error.data).toEqual({ issues: [] });
  });

  it("keys ids by type so 1 and '1' differ", () => {
    expect(jsonRpcIdKey(1)).toBe("number:1");
    expect(jsonRpcIdKey("1")).toBe("string:1");
  });
});

describe("jsonRpcKindOf (spec 10 §1.1)", () => {
  it("decides by method and id alone, never by the result's shape or the jsonrpc member", () => {
    expect(jsonRpcKindOf({ method: "turn/start", id: 0 })).toBe("request");
    expect(jsonRpcKindOf({ method: "thread/delta", params: {} })).toBe("notification");
    expect(jsonRpcKindOf({ method: 7, id: null })).toBe("request");
    expect(jsonRpcKindOf({ id: 3, result: { method: "x" } })).toBe("response");
    expect(jsonRpcKindOf({ id: 3 })).toBe("response");
    expect(jsonRpcKindOf({ jsonrpc: "2.0", result: 1 })).toBeUndefined();
  });
});
