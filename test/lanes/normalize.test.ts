import { describe, expect, it } from "vitest";
import { normalizeThreadLane, ROW_ID_FIELDS, serializeThreadLane } from "../../harness/lanes/index.js";

describe("normalizeThreadLane (spec 10 §6.3 steps 1–5)", () => {
  it("round-trips JSON, drops providerCheckpointId and blanks thread ids (null stays null)", () => {
    const list = [
      { type: "turn/completed", threadId: "thr", providerThreadId: "prov", scope: { kind: "turn", turnId: "t" }, status: "completed", providerCheckpointId: "ck", skipped: undefined },
      { type: "x", threadId: null, providerThreadId: null },
      { type: "thread/started", threadId: "thr", scope: { kind: "thread" } },
    ];
    expect(normalizeThreadLane(list)).toEqual([
      { type: "turn/completed", threadId: "", providerThreadId: "", scope: { kind: "turn", turnId: "#1" }, status: "completed" },
      { type: "x", threadId: null, providerThreadId: null },
      { type: "thread/started", threadId: "", scope: { kind: "thread" } },
    ]);
    expect(Object.keys(normalizeThreadLane(list)[0] as object)).not.toContain("skipped");
  });

  it("interns id fields at any depth with one interner, in order of first appearance", () => {
    const list = [
      { scope: { turnId: "T" }, item: { id: "I", parentToolCallId: "P", nested: [{ itemId: "I" }] } },
      { scope: { turnId: "P" }, itemId: "Z" },
    ];
    expect(normalizeThreadLane(list)).toEqual([
      { scope: { turnId: "#1" }, item: { id: "#2", parentToolCallId: "#3", nested: [{ itemId: "#2" }] } },
      { scope: { turnId: "#3" }, itemId: "#4" },
    ]);
  });

  it("interns rawEvent.id (numeric too) but not clientRequestId, childRef or familyId", () => {
    const list = [
      { rawEvent: { jsonrpc: "2.0", id: 42, method: "m" }, clientRequestId: "creq_x", item: { childRef: "c", familyId: "f", id: "i" } },
      { rawEvent: { jsonrpc: "2.0", id: 42, method: "m" } },
    ];
    expect(normalizeThreadLane(list)).toEqual([
      { rawEvent: { jsonrpc: "2.0", id: "#1", method: "m" }, clientRequestId: "creq_x", item: { childRef: "c", familyId: "f", id: "#2" } },
      { rawEvent: { jsonrpc: "2.0", id: "#1", method: "m" } },
    ]);
  });

  it("zeroes time fields holding numbers or strings, at any depth", () => {
    const list = [{ rateLimits: { windows: [{ resetsAt: "2026-01-01", resetsAtMs: 5, expiresAt: null }] }, ts: 9, createdAt: "x" }];
    expect(normalizeThreadLane(list)).toEqual([{ rateLimits: { windows: [{ resetsAt: 0, resetsAtMs: 0, expiresAt: null }] }, ts: 0, createdAt: 0 }]);
  });

  it("each list has its own interner; row id fields are opt-in", () => {
    expect(normalizeThreadLane([{ id: "b" }])).toEqual([{ id: "#1" }]);
    expect(normalizeThreadLane([{ id: "a" }, { id: "b" }])).toEqual([{ id: "#1" }, { id: "#2" }]);
    expect(normalizeThreadLane([{ callId: "c" }])).toEqual([{ callId: "c" }]);
    expect(normalizeThreadLane([{ callId: "c" }], { idFields: ROW_ID_FIELDS })).toEqual([{ callId: "#1" }]);
  });

  it("does not modify its input; serialization is indented and newline-terminated", () => {
    const list = [{ threadId: "t", id: "x" }];
    normalizeThreadLane(list);
    expect(list).toEqual([{ threadId: "t", id: "x" }]);
    expect(serializeThreadLane([{ a: 1 }])).toBe('[\n  {\n    "a": 1\n  }\n]\n');
    expect(serializeThreadLane([])).toBe("[]\n");
  });
});
