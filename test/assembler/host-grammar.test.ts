import { describe, expect, it } from "vitest";
import { createThreadEventGrammar, MAX_GRAMMAR_ITEM_IDS } from "../../stack/assembler/index.js";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";

const turn = (turnId: string) => ({ kind: "turn" as const, turnId });
const ev = (type: string, fields: object, threadId = "t1", scope: object = turn("T1")): ThreadEvent => ({ type, threadId, providerThreadId: "", scope, ...fields }) as unknown as ThreadEvent;
const started = (turnId: string, threadId = "t1") => ev("turn/started", {}, threadId, turn(turnId));
const completed = (turnId: string, threadId = "t1") => ev("turn/completed", { status: "completed" }, threadId, turn(turnId));
const itemStarted = (id: string) => ev("item/started", { item: { type: "toolCall", id, tool: "x", status: "pending" } });
const itemCompleted = (id: string, type = "item/completed") => ev(type, { item: { type: "toolCall", id, tool: "x", status: "completed" } });
const delta = (type: string, itemId: string) => ev(type, { itemId, delta: "x" });

function rules(events: ThreadEvent[]): string[] {
  const grammar = createThreadEventGrammar();
  return events.map((event) => {
    const verdict = grammar.observe(event);
    return verdict.ok ? "ok" : verdict.rule;
  });
}

describe("host grammar (spec 10 §3)", () => {
  it("turn/starts-once: a turn starts once, whether still open or completed", () => {
    expect(rules([started("A"), started("A"), completed("A"), started("A")])).toEqual(["ok", "turn/starts-once", "ok", "turn/starts-once"]);
  });

  it("turn/settles-once and turn/known", () => {
    expect(rules([completed("X"), started("A"), completed("A"), completed("A")])).toEqual(["turn/known", "ok", "ok", "turn/settles-once"]);
  });

  it("turn rules ignore events that are not turn-scoped", () => {
    const threadScoped = ev("turn/completed", { status: "completed" }, "t1", { kind: "thread" });
    expect(rules([threadScoped, threadScoped])).toEqual(["ok", "ok"]);
  });

  it("item/settles-once covers the three completion types; a completion without a start is kept", () => {
    expect(rules([itemCompleted("i1"), itemCompleted("i1"), itemCompleted("i2", "item/backgroundTask/completed"), itemCompleted("i2", "item/delegation/completed")])).toEqual([
      "ok",
      "item/settles-once",
      "ok",
      "item/settles-once",
    ]);
  });

  it("item/started always passes and makes a reopen legal", () => {
    expect(rules([itemStarted("i"), itemStarted("i"), itemCompleted("i"), itemStarted("i"), itemCompleted("i")])).toEqual(["ok", "ok", "ok", "ok", "ok"]);
  });

  it("item/opens-before-delta checks the six stream deltas and tool/mcp progress on itemId, snapshots on item.id", () => {
    const streamTypes = [
      "item/agentMessage/delta",
      "item/reasoning/textDelta",
      "item/reasoning/summaryTextDelta",
      "item/plan/delta",
      "item/fileChange/outputDelta",
      "item/commandExecution/outputDelta",
      "item/toolCall/progress",
      "item/mcpToolCall/progress",
    ];
    for (const type of streamTypes) {
      expect(rules([delta(type, "i"), itemStarted("i"), delta(type, "i"), itemCompleted("i"), delta(type, "i")]), type).toEqual([
        "item/opens-before-delta",
        "ok",
        "ok",
        "ok",
        "item/opens-before-delta",
      ]);
    }
    for (const type of ["item/backgroundTask/progress", "item/delegation/progress"]) {
      const progress = ev(type, { item: { id: "b" } }, "t1", { kind: "thread" });
      expect(rules([progress, itemStarted("b"), progress]), type).toEqual(["item/opens-before-delta", "ok", "ok"]);
    }
  });

  it("a violation does not advance state", () => {
    const grammar = createThreadEventGrammar();
    expect(grammar.observe(completed("A"))).toMatchObject({ ok: false, rule: "turn/known" });
    // The rejected completion did not mark A completed, so A may still start and complete.
    expect(grammar.observe(started("A"))).toEqual({ ok: true });
    expect(grammar.observe(completed("A"))).toEqual({ ok: true });
    const verdict = grammar.observe(completed("A"));
    expect(verdict).toMatchObject({ ok: false, rule: "turn/settles-once" });
    expect(verdict.ok ? "" : verdict.reason).toContain("A");
  });

  it("state is per threadId; clearThread and clear forget it", () => {
    const grammar = createThreadEventGrammar();
    grammar.observe(started("A", "t1"));
    expect(grammar.observe(started("A", "t2")).ok).toBe(true);
    expect(grammar.observe(started("A", "t1")).ok).toBe(false);
    grammar.clearThread("t1");
    expect(grammar.observe(started("A", "t1")).ok).toBe(true);
    expect(grammar.observe(started("A", "t2")).ok).toBe(false);
    grammar.clear();
    expect(grammar.observe(started("A", "t2")).ok).toBe(true);
  });

  it("remembers at most 512 settled item ids, forgetting the oldest", () => {
    const grammar = createThreadEventGrammar();
    for (let i = 0; i <= MAX_GRAMMAR_ITEM_IDS; i++) expect(grammar.observe(itemCompleted(`i${i}`)).ok).toBe(true);
    // i0 was forgotten (more permissive); i1 is still remembered.
    expect(grammar.observe(itemCompleted("i0")).ok).toBe(true);
    expect(grammar.observe(itemCompleted("i2")).ok).toBe(false);
  });
});
