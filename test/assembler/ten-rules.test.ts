/**
 * The ten rules of spec 10 §8, one test each, named after the rule.
 */
import { describe, expect, it } from "vitest";
import { normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";
import { CREQ, d, filterByGrammar, kinds, presentation, raw, Rig, scopeOf } from "./harness.js";

const tool = (extra: object = {}) => ({ type: "tool", tool: "read", ...extra });

describe("spec 10 §8: the ten rules most likely to be implemented wrong", () => {
  it("rule 1: there are two turn spaces", () => {
    const rig = new Rig();
    const keyedOpen = rig.feed([d.turnOpen({ providerTurnId: "p1" })]);
    expect(kinds(keyedOpen)).toEqual(["turn/started"]);
    const keyedTurn = scopeOf(keyedOpen[0]!);
    expect(rig.assembler.getBbTurnId("thr_test", "p1")).toBe(keyedTurn);
    expect(rig.assembler.getOpenTurnId("thr_test")).toBeUndefined();

    // Only a keyed turn is open: unkeyed deltas are turnless, unkeyed input is queued.
    expect(rig.feed([d.text({ channel: "assistant" }, "agentMessage", "hi")])).toEqual([]);
    expect(rig.feed([d.accepted(CREQ[0])])).toEqual([]);

    const unkeyed = rig.feed([d.turnOpen()]);
    expect(kinds(unkeyed)).toEqual(["turn/started", "turn/input/accepted"]);
    const cur = scopeOf(unkeyed[0]!);
    expect(cur).not.toBe(keyedTurn);
    expect(rig.assembler.getOpenTurnId("thr_test")).toBe(cur);

    // A keyed boundary completes only the keyed turn and leaves cur and its items alone.
    rig.feed([d.open({ providerItemId: "a" }, tool())]);
    const keyedClose = rig.feed([d.boundary("completed", { providerTurnId: "p1" })]);
    expect(kinds(keyedClose)).toEqual(["turn/completed"]);
    expect(scopeOf(keyedClose[0]!)).toBe(keyedTurn);
    expect(rig.assembler.getOpenTurnId("thr_test")).toBe(cur);
    expect(kinds(rig.feed([d.close({ providerItemId: "a" }, tool())]))).toEqual(["item/completed:toolCall"]);

    // The exception: a keyed settling provider.error still runs finishTurn on the unkeyed state.
    rig.feed([d.open({ providerItemId: "b" }, tool())]);
    const error = rig.feed([{ kind: "provider.error", message: "boom", settlesTurn: true, providerTurnId: "p2" }]);
    expect(kinds(error)).toEqual(["provider/error", "turn/completed"]);
    expect(error.map(scopeOf)).toEqual([scopeOf(error[0]!), scopeOf(error[0]!)]);
    expect(scopeOf(error[0]!)).not.toBe(cur);
    expect(rig.assembler.getOpenTurnId("thr_test")).toBeUndefined();
    // The open item was wiped: progress for it is now turnless, and usage lands in `last`.
    expect(rig.feed([d.progress({ providerItemId: "b" }, { message: "x", flush: true })])).toEqual([]);
    const usage = rig.feed([{ kind: "usage", total: usageBreakdown, last: usageBreakdown, modelContextWindow: null }]);
    expect(scopeOf(usage[0]!)).toBe(cur);
  });

  it("rule 2: only three things open an unkeyed turn", () => {
    const rig = new Rig();
    rig.feed([d.accepted(CREQ[0])]);
    // Turnless item and stream deltas never claim pending input.
    expect(rig.feed([d.open({ providerItemId: "t1" }, tool())])).toEqual([]);
    expect(rig.feed([d.text({ channel: "assistant" }, "agentMessage", "x")])).toEqual([]);
    const fallback = rig.feed([
      d.text({ channel: "assistant", parentRef: "parent-1" }, "agentMessage", "x", {
        noTurnFallback: { raw: raw("acp/update"), rawType: "acp/update:agent_message_chunk" },
      }),
    ]);
    expect(kinds(fallback)).toEqual(["provider/unhandled"]);
    expect(fallback[0]).toMatchObject({ scope: { kind: "thread" }, rawType: "acp/update:agent_message_chunk" });
    // usage, turn.diff and context.cleared are dropped silently.
    expect(rig.feed([{ kind: "usage", total: usageBreakdown, last: usageBreakdown, modelContextWindow: 1 }, { kind: "turn.diff", diff: "x" }, { kind: "context.cleared" }])).toEqual([]);
    // contextWindow, modelFallback, warning and unhandled go to thread scope.
    const threadScoped = rig.feed([
      { kind: "contextWindow", used: 5, estimated: false, attach: "currentOrLast" },
      { kind: "provider.modelFallback", originalModel: "a", fallbackModel: "b", reason: "provider", message: "m" },
      { kind: "provider.warning", summary: "w", vouchedTurn: true },
      { kind: "unhandled", raw: raw("x"), rawType: "x", vouchedTurn: true },
    ]);
    expect(kinds(threadScoped)).toEqual(["thread/contextWindowUsage/updated", "provider/modelFallback", "provider/warning", "provider/unhandled"]);
    expect(threadScoped.map(scopeOf)).toEqual(["thread", "thread", "thread", "thread"]);
    // A boundary without claimIfIdle does nothing, even with input pending.
    expect(rig.feed([d.boundary()])).toEqual([]);
    // 1. a claiming boundary.
    expect(kinds(rig.feed([d.boundary("completed", { claimIfIdle: true })]))).toEqual(["turn/started", "turn/input/accepted", "turn/completed"]);
    // 2. provider.error (not thread-scoped) while idle with input pending.
    rig.feed([d.accepted(CREQ[1])]);
    expect(kinds(rig.feed([{ kind: "provider.error", message: "m", threadScoped: true }]))).toEqual(["provider/error"]);
    expect(kinds(rig.feed([{ kind: "provider.error", message: "m" }]))).toEqual(["turn/started", "turn/input/accepted", "provider/error"]);
    rig.feed([d.boundary()]);
    // 3. session.ended while idle with input pending.
    rig.feed([d.accepted(CREQ[2])]);
    expect(kinds(rig.feed([{ kind: "session.ended" }]))).toEqual(["turn/started", "turn/input/accepted", "turn/completed"]);
    // ...and turn.open, the third way.
    expect(kinds(rig.feed([d.turnOpen(), d.turnOpen()]))).toEqual(["turn/started"]);
  });

  it("rule 3: session.reset settles nothing", () => {
    const rig = new Rig();
    const first = rig.feed([d.turnOpen(), d.open({ providerItemId: "a" }, tool()), d.text({ channel: "assistant" }, "agentMessage", "partial")]);
    const oldTurn = scopeOf(first[0]!);
    rig.feed([d.accepted(CREQ[0], { providerTurnId: "p" })]);
    rig.feed([d.accepted(CREQ[1])]);
    expect(rig.feed([{ kind: "session.reset" }])).toEqual([]);
    expect(rig.assembler.getOpenTurnId("thr_test")).toBeUndefined();
    expect(rig.assembler.getBbItemId("thr_test", "a")).toBeUndefined();
    // A later boundary settles nothing, and the pending input was forgotten too.
    expect(rig.feed([d.boundary("completed", { claimIfIdle: true })])).toEqual([]);
    expect(rig.feed([{ kind: "session.ended" }])).toEqual([]);
    // The id counters are never reset.
    const next = rig.feed([d.turnOpen(), d.open({ providerItemId: "a" }, tool())]);
    expect(kinds(next)).toEqual(["turn/started", "item/started:toolCall"]);
    expect(scopeOf(next[0]!)).not.toBe(oldTurn);
    const ids = new Set(rig.all.flatMap((event) => ("item" in event ? [event.item.id] : [])));
    expect(ids.size).toBe(3);
  });

  it("rule 4: dual-settle emits two completions under one id, and the host drops the second", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    const opened = rig.feed([
      d.open({ providerItemId: "edit-1" }, tool({ tool: "edit", server: "fs", error: "e", durationMs: 3, args: { path: "p" } }), {
        presentation: presentation("Edit"),
      }),
    ]);
    const closed = rig.feed([
      d.close(
        { providerItemId: "edit-1" },
        { type: "fileChange", changes: [{ path: "/w/a.txt", kind: "update", diff: "D" }] },
        {
          resultText: "ok",
        },
      ),
    ]);
    expect(kinds(closed)).toEqual(["item/completed:toolCall", "item/completed:fileChange"]);
    const [echo, terminal] = closed as [Extract<ThreadEvent, { type: "item/completed" }>, Extract<ThreadEvent, { type: "item/completed" }>];
    expect(echo.item.id).toBe(terminal.item.id);
    expect(echo.item).toEqual({
      type: "toolCall",
      id: echo.item.id,
      tool: "edit",
      arguments: { path: "p" },
      status: "completed",
      result: "ok",
      presentation: presentation("Edit"),
    });
    // The terminal fileChange keeps the opened presentation when the close has none.
    expect(terminal.item).toMatchObject({ type: "fileChange", changes: [{ path: "/w/a.txt", kind: "update", diff: "D" }], presentation: presentation("Edit") });
    const { kept, drops } = filterByGrammar([...opened, ...closed]);
    expect(drops).toEqual(["item/settles-once:item/completed"]);
    expect(kinds(kept)).toEqual(["item/started:toolCall", "item/completed:toolCall"]);
  });

  it("rule 5: close precedence is asymmetric", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    const command = { type: "command", command: "ls", cwd: "/w", aggregatedOutput: "shape-out", exitCode: 1, durationMs: 9 };
    rig.feed([d.open({ providerItemId: "c" }, command)]);
    const [cmd] = rig.feed([d.close({ providerItemId: "c" }, command, { aggregatedOutput: "close-out", exitCode: 0 })]);
    expect((cmd as { item: object }).item).toEqual({
      type: "commandExecution",
      id: (cmd as { item: { id: string } }).item.id,
      command: "ls",
      cwd: "/w",
      aggregatedOutput: "close-out",
      exitCode: 0,
      durationMs: 9,
      status: "completed",
      approvalStatus: null,
    });
    const [toolDone] = rig.feed([d.close({ providerItemId: "t" }, tool({ result: "from-shape" }), { resultText: "from-close" })]);
    expect((toolDone as { item: { result: unknown } }).item.result).toBe("from-shape");
    const [toolText] = rig.feed([d.close({ providerItemId: "t2" }, tool(), { resultText: "from-close" })]);
    expect((toolText as { item: { result: unknown } }).item.result).toBe("from-close");
    // Status-less items ignore the close's status.
    const [message] = rig.feed([d.close({ providerItemId: "m" }, { type: "agentMessage", text: "done" }, { status: "failed" })]);
    expect((message as { item: object }).item).toEqual({ type: "agentMessage", id: expect.any(String), text: "done" });
    // A delegation summary falls back to the opened item's summary, never to one from progress.
    const delegation = { type: "delegation", childRef: "child", label: "L", background: false };
    rig.feed([d.open({ providerItemId: "g1" }, { ...delegation, summary: "opened" })]);
    rig.feed([d.progress({ providerItemId: "g1" }, { snapshot: { ...delegation, summary: "progress" }, flush: true })]);
    const [g1] = rig.feed([d.close({ providerItemId: "g1" }, delegation)]);
    expect((g1 as { item: { summary?: string } }).item.summary).toBe("opened");
    rig.feed([d.open({ providerItemId: "g2" }, delegation)]);
    rig.feed([d.progress({ providerItemId: "g2" }, { snapshot: { ...delegation, summary: "progress" }, flush: true })]);
    const [g2] = rig.feed([d.close({ providerItemId: "g2" }, delegation)]);
    expect((g2 as { item: object }).item).not.toHaveProperty("summary");
  });

  it("rule 6: presentation is kept unevenly", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    rig.feed([d.open({ providerItemId: "a" }, tool(), { presentation: presentation("Open") })]);
    const [closeWins] = rig.feed([d.close({ providerItemId: "a" }, tool(), { presentation: presentation("Close") })]);
    expect((closeWins as { item: { presentation: unknown } }).item.presentation).toEqual(presentation("Close"));
    rig.feed([d.open({ providerItemId: "b" }, tool(), { presentation: presentation("Open") })]);
    const [echoed] = rig.feed([d.close({ providerItemId: "b" }, tool())]);
    expect((echoed as { item: { presentation: unknown } }).item.presentation).toEqual(presentation("Open"));
    // Synthesized text items carry none.
    const [started] = rig.feed([d.text({ providerItemId: "msg" }, "agentMessage", "x")]);
    expect((started as { item: object }).item).toEqual({ type: "agentMessage", id: expect.any(String), text: "" });
    // Background-task progress carries none, even when the open had one.
    const task = {
      type: "backgroundTask",
      familyId: "f",
      taskType: "shell",
      description: "d",
      status: "pending",
      taskStatus: "running",
      skipTranscript: false,
    };
    rig.feed([d.open({ providerItemId: "bg" }, task, { presentation: presentation("Task") })]);
    const [bgProgress] = rig.feed([d.progress({ providerItemId: "bg" }, { snapshot: task, flush: true })]);
    expect(bgProgress!.type).toBe("item/backgroundTask/progress");
    expect((bgProgress as { item: object }).item).not.toHaveProperty("presentation");
    // Interruption by session.ended drops it everywhere except extension.
    rig.feed([
      d.open({ providerItemId: "c" }, { type: "command", command: "ls", cwd: "/" }, { presentation: presentation("Cmd") }),
      d.open({ providerItemId: "x" }, { type: "extension", kind: "acme/widget", payload: { n: 1 } }, { presentation: presentation("Ext") }),
      d.open({ providerItemId: "s" }, { type: "search", mode: "content", query: "q" }, { presentation: presentation("Search") }),
    ]);
    const ended = rig.feed([{ kind: "session.ended" }]);
    expect(kinds(ended)).toEqual(["item/completed:agentMessage", "item/completed:commandExecution", "item/completed:extension", "item/completed:search", "turn/completed"]);
    const items = ended.slice(1, 4).map((event) => (event as { item: Record<string, unknown> }).item);
    expect(items.map((item) => "presentation" in item)).toEqual([false, true, false]);
    expect(items.map((item) => item.status)).toEqual(["interrupted", "interrupted", "interrupted"]);
    expect((ended[0] as { item: object }).item).toMatchObject({ type: "agentMessage", text: "x" });
    expect(ended.at(-1)).toMatchObject({ status: "interrupted" });
    // The thread-attached background task survives.
    expect(kinds(rig.feed([d.close({ providerItemId: "bg" }, { ...task, status: "completed", taskStatus: "completed" })]))).toEqual(["item/backgroundTask/completed:backgroundTask"]);
  });

  it("rule 7: dedup and release", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    const [opened] = rig.feed([d.open({ providerItemId: "a" }, tool())]);
    expect(rig.feed([d.close({ providerItemId: "a" }, tool())])).toHaveLength(1);
    // Keys with a providerItemId are deduped by the full key string...
    expect(rig.feed([d.close({ providerItemId: "a" }, tool())])).toEqual([]);
    expect(rig.feed([d.close({ providerItemId: "a", channel: "other" }, tool())])).toHaveLength(1);
    // ...channel-only keys never are.
    expect(rig.feed([d.close({ channel: "c" }, tool()), d.close({ channel: "c" }, tool())])).toHaveLength(2);
    // A reopen reuses the same bb id and is legal again.
    const [reopened] = rig.feed([d.open({ providerItemId: "a" }, tool())]);
    expect((reopened as { item: { id: string } }).item.id).toBe((opened as { item: { id: string } }).item.id);
    expect(rig.feed([d.close({ providerItemId: "a" }, tool())])).toHaveLength(1);

    // textClose always releases its key: text:"" leaves the item started but never completed.
    const empty = rig.feed([d.text({ channel: "e" }, "agentMessage", "hello"), d.textClose({ channel: "e" }, "agentMessage", { text: "" })]);
    expect(kinds(empty)).toEqual(["item/started:agentMessage", "item/agentMessage/delta"]);
    const again = rig.feed([d.text({ channel: "e" }, "agentMessage", "x")]);
    expect(kinds(again)).toEqual(["item/started:agentMessage", "item/agentMessage/delta"]);
    // Whitespace-only accumulated text settles nothing; provider-final whitespace is emitted as given.
    const ws = rig.feed([d.text({ channel: "w" }, "agentMessage", "  \n"), d.textClose({ channel: "w" }, "agentMessage")]);
    expect(kinds(ws)).toEqual(["item/started:agentMessage", "item/agentMessage/delta"]);
    const wsFinal = rig.feed([d.text({ channel: "w2" }, "agentMessage", "a"), d.textClose({ channel: "w2" }, "agentMessage", { text: " " })]);
    expect((wsFinal[2] as { item: { text: string } }).item.text).toBe(" ");

    // A tool open detaches anonymous assistant streams that share its parentRef.
    const before = rig.feed([d.text({ channel: "assistant" }, "agentMessage", "one")]);
    rig.feed([d.open({ providerItemId: "tool-2" }, tool())]);
    const after = rig.feed([d.text({ channel: "assistant" }, "agentMessage", "two")]);
    expect(kinds(after)).toEqual(["item/started:agentMessage", "item/agentMessage/delta"]);
    expect((after[0] as { item: { id: string } }).item.id).not.toBe((before[0] as { item: { id: string } }).item.id);
    // A different parentRef is not detached.
    rig.feed([d.text({ channel: "assistant", parentRef: "P" }, "agentMessage", "nested")]);
    rig.feed([d.open({ providerItemId: "tool-3" }, tool())]);
    expect(kinds(rig.feed([d.text({ channel: "assistant", parentRef: "P" }, "agentMessage", "more")]))).toEqual(["item/agentMessage/delta"]);
  });

  it("rule 8: the progress throttle uses the clock and is seeded by item.open", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen(), d.open({ providerItemId: "a" }, tool())]);
    // Inside the 500 ms window seeded by the open: pending, nothing emitted.
    expect(rig.feed([d.progress({ providerItemId: "a" }, { message: "one" })], 100)).toEqual([]);
    expect(rig.feed([d.progress({ providerItemId: "a" }, { message: "two" })], 100)).toEqual([]);
    // Later traffic inside the window flushes nothing.
    expect(rig.feed([d.turnOpen()], 100)).toEqual([]);
    // Later traffic after the window flushes the latest pending progress first.
    const flushed = rig.feed([d.turnOpen()], 300);
    expect(kinds(flushed)).toEqual(["item/toolCall/progress"]);
    expect(flushed[0]).toMatchObject({ message: "two" });
    // A key with progress in the current batch is skipped by the trailing flush.
    expect(rig.feed([d.progress({ providerItemId: "a" }, { message: "three" })], 100)).toEqual([]);
    expect(rig.feed([d.progress({ providerItemId: "a" }, { message: "four" })], 1000)).toMatchObject([{ message: "four" }]);
    // flush:true emits at once; a close discards pending progress.
    expect(rig.feed([d.progress({ providerItemId: "a" }, { message: "five", flush: true })])).toMatchObject([{ message: "five" }]);
    expect(rig.feed([d.progress({ providerItemId: "a" }, { message: "six" })], 10)).toEqual([]);
    expect(kinds(rig.feed([d.close({ providerItemId: "a" }, tool())], 10))).toEqual(["item/completed:toolCall"]);
    expect(rig.feed([d.turnOpen()], 5000)).toEqual([]);
    // A key with no window (no open) emits immediately.
    expect(kinds(rig.feed([d.progress({ providerItemId: "never-opened" }, { message: "m" })]))).toEqual(["item/toolCall/progress"]);
  });

  it("rule 9: text batching flushes at barriers, not on timers", () => {
    const rig = new Rig({ textDeltaFlushMs: 100 });
    const key = { channel: "assistant" };
    // A fresh stream emits immediately.
    const first = rig.feed([d.turnOpen(), d.text(key, "agentMessage", "a")]);
    expect(kinds(first)).toEqual(["turn/started", "item/started:agentMessage", "item/agentMessage/delta"]);
    // Inside the window deltas are buffered, across batches.
    expect(rig.feed([d.text(key, "agentMessage", "b")], 10)).toEqual([]);
    expect(rig.feed([d.text(key, "agentMessage", "c")], 10)).toEqual([]);
    // Any non-text event (here a synthesized item/started) flushes every buffer before itself.
    const fresh = rig.feed([d.text({ channel: "thought" }, "reasoningText", "r")], 10);
    expect(fresh.map((event) => [event.type, (event as { delta?: string }).delta])).toEqual([
      ["item/agentMessage/delta", "bc"],
      ["item/started", undefined],
      ["item/reasoning/textDelta", "r"],
    ]);
    expect(rig.feed([d.text(key, "agentMessage", "d"), d.text({ channel: "thought" }, "reasoningText", "s")], 10)).toEqual([]);
    const barrier = rig.feed([{ kind: "provider.warning", summary: "w" }], 10);
    expect(barrier.map((event) => [event.type, (event as { delta?: string }).delta])).toEqual([
      ["item/agentMessage/delta", "d"],
      ["item/reasoning/textDelta", "s"],
      ["provider/warning", undefined],
    ]);
    // An elapsed window appends, then flushes.
    // A delta whose stream window has elapsed is appended and flushed at once.
    expect(rig.feed([d.text(key, "agentMessage", "e")], 200).map((e) => (e as { delta?: string }).delta)).toEqual(["e"]);
    // The start of assemble flushes all buffers when one window has elapsed, even for an empty batch.
    rig.feed([d.text(key, "agentMessage", "f"), d.text(key, "agentMessage", "g")], 10);
    expect(rig.feed([], 50)).toEqual([]);
    expect(rig.feed([], 500).map((e) => (e as { delta?: string }).delta)).toEqual(["fg"]);
    // A command reset flushes everything and is emitted at once.
    // (The command hangs under another parent so its open does not detach the assistant stream.)
    const cmd = { providerItemId: "cmd", parentRef: "P" };
    rig.feed([d.open(cmd, { type: "command", command: "ls", cwd: "/" }), d.snapshot(cmd, "abc")]);
    expect(rig.feed([d.text(key, "agentMessage", "h")], 10)).toEqual([]);
    const reset = rig.feed([d.snapshot(cmd, "xyz")], 10);
    expect(reset.map((e) => [(e as { delta?: string }).delta, (e as { reset?: boolean }).reset])).toEqual([
      ["h", undefined],
      ["xyz", true],
    ]);
    // With a window of 0 every delta passes straight through.
    const plain = new Rig({ textDeltaFlushMs: 0 });
    plain.feed([d.turnOpen(), d.text(key, "agentMessage", "a")]);
    expect(plain.feed([d.text(key, "agentMessage", "b"), d.text(key, "agentMessage", "c")], 1).map((e) => (e as { delta?: string }).delta)).toEqual(["b", "c"]);
  });

  it("rule 10: parity compares with an order- and key-order-sensitive LCS over normalized JSON", () => {
    const rig = new Rig();
    const events = [
      ...rig.feed([d.turnOpen(), d.accepted(CREQ[0])]),
      // Progress for an unknown item leaks the raw provider id...
      ...rig.feed([d.progress({ providerItemId: "raw-provider-id" }, { message: "m" })]),
      // ...and an unknown parentRef is minted, never leaked, and reused by the parent's later open.
      ...rig.feed([d.open({ providerItemId: "child", parentRef: "parent-call" }, tool())]),
      ...rig.feed([d.open({ providerItemId: "parent-call" }, tool())]),
    ];
    const progress = events.find((event) => event.type === "item/toolCall/progress") as { itemId: string };
    expect(progress.itemId).toBe("raw-provider-id");
    const { drops } = filterByGrammar(events);
    expect(drops).toEqual(["item/opens-before-delta:item/toolCall/progress"]);
    const child = events.find((event) => event.type === "item/started" && event.item.parentToolCallId !== undefined) as {
      item: { parentToolCallId: string };
    };
    const parent = events.at(-1) as { item: { id: string } };
    expect(child.item.parentToolCallId).toBe(parent.item.id);
    expect(JSON.stringify(events)).not.toContain("parent-call");

    // Ids are interned per list in order of first appearance; clientRequestId is not an id field.
    const normalized = normalizeThreadLane(events) as Array<Record<string, unknown>>;
    expect(normalized[0]).toEqual({ type: "turn/started", threadId: "", providerThreadId: "", scope: { kind: "turn", turnId: "#1" } });
    expect(normalized[1]).toMatchObject({ clientRequestId: CREQ[0] });
    expect(normalized[2]).toMatchObject({ itemId: "#2" });
    // Key order is part of the comparison: the same fields in another order serialize differently.
    const reordered = normalized.map((event) => Object.fromEntries(Object.entries(event).reverse()));
    expect(reordered).toEqual(normalized);
    expect(serializeThreadLane(reordered)).not.toBe(serializeThreadLane(normalized));
  });
});

const usageBreakdown = { totalTokens: 3, inputTokens: 1, cachedInputTokens: 0, outputTokens: 2, reasoningOutputTokens: 0 };
