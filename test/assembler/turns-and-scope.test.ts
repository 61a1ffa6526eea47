import { describe, expect, it } from "vitest";
import { CREQ, d, kinds, Rig, scopeOf } from "./harness.js";

describe("turn resolution and scopes (spec 10 §2.5–2.6, §2.12)", () => {
  it("provider.error resolves vouched, then none if threadScoped, then cur, then a claimed turn, then thread", () => {
    const rig = new Rig();
    const [cur] = rig.feed([d.turnOpen()]);
    const curTurn = scopeOf(cur!);
    const vouched = rig.feed([{ kind: "provider.error", message: "v", providerTurnId: "p", threadScoped: true }]);
    expect(scopeOf(vouched[0]!)).toBe(rig.assembler.getBbTurnId("thr_test", "p"));
    expect(scopeOf(rig.feed([{ kind: "provider.error", message: "t", threadScoped: true }])[0]!)).toBe("thread");
    expect(scopeOf(rig.feed([{ kind: "provider.error", message: "c" }])[0]!)).toBe(curTurn);
    rig.feed([d.boundary()]);
    expect(scopeOf(rig.feed([{ kind: "provider.error", message: "none" }])[0]!)).toBe("thread");
    // willRetry has no lifecycle effect; category is not forwarded.
    rig.feed([d.turnOpen()]);
    const [retry] = rig.feed([{ kind: "provider.error", message: "r", willRetry: true, category: "overloaded" }]);
    expect(retry).not.toHaveProperty("category");
    expect(rig.assembler.getOpenTurnId("thr_test")).toBeDefined();
  });

  it("contextWindow attaches to vouched, cur (open), cur ?? last (currentOrLast), else thread", () => {
    const rig = new Rig();
    const cw = (attach: string, extra: object = {}) => ({ kind: "contextWindow", used: null, estimated: true, attach, ...extra });
    const [t1] = rig.feed([d.turnOpen()]);
    rig.feed([d.boundary()]);
    const events = rig.feed([cw("open"), cw("currentOrLast"), cw("open", { providerTurnId: "k" })]);
    expect(events.map(scopeOf)).toEqual(["thread", scopeOf(t1!), rig.assembler.getBbTurnId("thr_test", "k")]);
    expect(events[0]).toMatchObject({ contextWindowUsage: { usedTokens: null, modelContextWindow: null, estimated: true } });
  });

  it("session.ended with only keyed turns open does nothing", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen({ providerTurnId: "k" }), d.open({ providerItemId: "a" }, { type: "tool", tool: "x" }, { providerTurnId: "k" })]);
    expect(rig.feed([{ kind: "session.ended" }])).toEqual([]);
    // The keyed item is still open: its close is a plain completion in the keyed turn.
    expect(kinds(rig.feed([d.close({ providerItemId: "a" }, { type: "tool", tool: "x" }, { providerTurnId: "k" })]))).toEqual(["item/completed:toolCall"]);
  });

  it("session.ended settles streamed text with what it has and scopes everything to cur", () => {
    const rig = new Rig();
    const [keyed] = rig.feed([d.turnOpen({ providerTurnId: "k" })]);
    const [cur] = rig.feed([d.turnOpen()]);
    rig.feed([
      d.text({ providerItemId: "r" }, "reasoningSummary", "sum"),
      d.text({ providerItemId: "r" }, "reasoningText", "body"),
      d.open({ providerItemId: "kt" }, { type: "tool", tool: "x", server: "s" }, { providerTurnId: "k" }),
    ]);
    const ended = rig.feed([{ kind: "session.ended" }]);
    expect(kinds(ended)).toEqual(["item/completed:reasoning", "item/completed:toolCall", "turn/completed"]);
    expect(ended.map(scopeOf)).toEqual([scopeOf(cur!), scopeOf(cur!), scopeOf(cur!)]);
    expect(scopeOf(cur!)).not.toBe(scopeOf(keyed!));
    expect((ended[0] as { item: object }).item).toMatchObject({ summary: ["sum"], content: ["body"] });
    expect((ended[1] as { item: object }).item).toEqual({ type: "toolCall", id: expect.any(String), tool: "x", status: "interrupted" });
  });

  it("input accepted in a keyed turn is emitted at once; a keyed open with parentRef names the parent", () => {
    const rig = new Rig();
    const events = rig.feed([d.accepted(CREQ[0], { providerTurnId: "k" }), d.turnOpen({ providerTurnId: "k2", parentRef: "tool-call" })]);
    expect(kinds(events)).toEqual(["turn/input/accepted", "turn/started"]);
    expect(events[1]).toMatchObject({ parentToolCallId: rig.assembler.getBbItemId("thr_test", "tool-call") });
    expect(rig.assembler.getProviderTurnId("thr_test", scopeOf(events[0]!))).toBe("k");
  });

  it("usage and compaction use cur ?? last; turn.diff uses cur only", () => {
    const rig = new Rig();
    const usage = { totalTokens: 1, inputTokens: 1, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 };
    const [t1] = rig.feed([d.turnOpen()]);
    rig.feed([d.boundary()]);
    const after = rig.feed([{ kind: "usage", total: usage, last: usage, modelContextWindow: null }, { kind: "context.compacted" }, { kind: "context.cleared" }, { kind: "turn.diff", diff: "x" }]);
    expect(kinds(after)).toEqual(["thread/tokenUsage/updated", "thread/compacted", "thread/context/cleared"]);
    expect(after.map(scopeOf)).toEqual([scopeOf(t1!), scopeOf(t1!), scopeOf(t1!)]);
  });
});

describe("text flush barriers (spec 10 §2.11, §2.13)", () => {
  it("item.textClose, item.close and session.ended flush text even when they emit nothing", () => {
    for (const barrier of [d.textClose({ channel: "none" }, "agentMessage"), d.close({ providerItemId: "dup" }, { type: "tool", tool: "x" }), { kind: "session.ended" }]) {
      const rig = new Rig({ textDeltaFlushMs: 100 });
      rig.feed([d.turnOpen(), d.close({ providerItemId: "dup" }, { type: "tool", tool: "x" }), d.text({ providerItemId: "m" }, "agentMessage", "a")]);
      rig.feed([d.text({ providerItemId: "m" }, "agentMessage", "b")], 1);
      const out = rig.feed([barrier], 1);
      expect(out[0], JSON.stringify(barrier)).toMatchObject({ type: "item/agentMessage/delta", delta: "b" });
    }
  });

  it("session.reset flushes buffered text, then forgets the thread (pending progress is discarded)", () => {
    const rig = new Rig({ textDeltaFlushMs: 100 });
    rig.feed([d.turnOpen(), d.open({ providerItemId: "t" }, { type: "tool", tool: "x" }), d.text({ providerItemId: "m" }, "agentMessage", "a")]);
    rig.feed([d.text({ providerItemId: "m" }, "agentMessage", "b"), d.progress({ providerItemId: "t" }, { message: "held" })], 1);
    expect(rig.feed([{ kind: "session.reset" }], 1000)).toMatchObject([{ type: "item/agentMessage/delta", delta: "b" }]);
    expect(rig.feed([d.turnOpen()], 1000)).toMatchObject([{ type: "turn/started" }]);
  });
});
