import { describe, expect, it } from "vitest";
import { createDeltaAssembler, DeltaAssemblerOptionsError, MAX_ASSEMBLER_THREADS, MAX_ID_MAP_ENTRIES, MAX_SETTLED_ITEM_KEYS } from "../../stack/assembler/index.js";
import { InvalidThreadDeltaError } from "../../stack/protocol/thread-delta.js";
import { CREQ, d, kinds, presentation, raw, Rig, scopeOf } from "./harness.js";

const tool = { type: "tool", tool: "read" };
const itemOf = (event: unknown) => (event as { item: Record<string, unknown> }).item;

describe("delta assembler: ids and options (spec 10 §2.1)", () => {
  it("ids are <prefix>-t<N> and <prefix>-i<N>; the default prefix is da + 8 chars of a random UUID", () => {
    const assembler = createDeltaAssembler({
      providerId: "p",
      textDeltaFlushMs: 0,
      now: () => 0,
      randomUuid: () => "0123abcd-ffff-4000-8000-000000000000",
    });
    const events = assembler.assemble({ threadId: "t", deltas: [d.turnOpen(), d.open({ providerItemId: "x" }, tool)] });
    expect(scopeOf(events[0]!)).toBe("da0123abcd-t1");
    expect(itemOf(events[1]).id).toBe("da0123abcd-i1");
    expect(assembler.getBbItemId("t", "x")).toBe("da0123abcd-i1");
    expect(assembler.getProviderItemId("t", "da0123abcd-i1")).toBe("x");
  });

  it('counters are shared by all threads and every event is stamped threadId "" / providerThreadId ""', () => {
    const rig = new Rig();
    const a = rig.feed([d.turnOpen()], 0, "a");
    const b = rig.feed([d.turnOpen()], 0, "b");
    expect([scopeOf(a[0]!), scopeOf(b[0]!)]).toEqual(["da-t1", "da-t2"]);
    expect(a[0]).toEqual({ type: "turn/started", threadId: "", providerThreadId: "", scope: { kind: "turn", turnId: "da-t1" } });
  });

  it("thread/started has no providerThreadId key; thread/identity carries the real one", () => {
    const rig = new Rig();
    const events = rig.feed([{ kind: "thread.started" }, { kind: "thread.identity", providerThreadId: "prov-1" }, { kind: "thread.name", name: "n" }]);
    expect(events).toEqual([
      { type: "thread/started", threadId: "", scope: { kind: "thread" } },
      { type: "thread/identity", threadId: "", providerThreadId: "prov-1", scope: { kind: "thread" } },
      { type: "thread/name/updated", threadId: "", providerThreadId: "", scope: { kind: "thread" }, threadName: "n" },
    ]);
  });

  it("rejects bad options with a typed error naming the option", () => {
    expect(() => createDeltaAssembler({ providerId: "" })).toThrow(DeltaAssemblerOptionsError);
    expect(() => createDeltaAssembler({ providerId: "p", progressThrottleMs: -1 })).toThrow(/progressThrottleMs/);
    expect(() => createDeltaAssembler({ providerId: "p", textDeltaFlushMs: Number.NaN })).toThrow(/textDeltaFlushMs/);
  });

  it("an invalid batch throws InvalidThreadDeltaError and changes nothing", () => {
    const rig = new Rig();
    expect(() => rig.feed([d.turnOpen(), { kind: "item.textDelta", key: {}, channel: "nope", text: "" }])).toThrow(InvalidThreadDeltaError);
    expect(rig.assembler.getOpenTurnId("thr_test")).toBeUndefined();
    expect(scopeOf(rig.feed([d.turnOpen()])[0]!)).toBe("da-t1");
  });
});

describe("delta assembler: thread state limits (spec 10 §2.4)", () => {
  it("above 256 threads the oldest idle thread is evicted; busy threads are kept", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen(), d.close({ providerItemId: "x" }, tool), d.boundary()], 0, "idle-first");
    rig.feed([d.turnOpen()], 0, "busy");
    expect(rig.assembler.getBbItemId("idle-first", "x")).toBeDefined();
    for (let i = 0; i < MAX_ASSEMBLER_THREADS - 1; i++) rig.feed([{ kind: "thread.name", name: "n" }], 0, `filler-${i}`);
    expect(rig.assembler.getBbItemId("idle-first", "x")).toBeUndefined();
    expect(rig.assembler.getOpenTurnId("busy")).toBeDefined();
  });

  it("id maps hold 1024 entries, oldest inserted evicted first", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    const closes = Array.from({ length: MAX_ID_MAP_ENTRIES + 1 }, (_, i) => d.close({ providerItemId: `p${i}` }, tool));
    rig.feed(closes);
    expect(rig.assembler.getBbItemId("thr_test", "p0")).toBeUndefined();
    expect(rig.assembler.getBbItemId("thr_test", "p1")).toBeDefined();
    expect(rig.assembler.getBbItemId("thr_test", `p${MAX_ID_MAP_ENTRIES}`)).toBeDefined();
  });

  it("settled keys hold 512 entries: a forgotten key closes again", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    rig.feed(Array.from({ length: MAX_SETTLED_ITEM_KEYS + 1 }, (_, i) => d.close({ providerItemId: `p${i}` }, tool)));
    expect(rig.feed([d.close({ providerItemId: "p1" }, tool)])).toEqual([]);
    expect(rig.feed([d.close({ providerItemId: "p0" }, tool)])).toHaveLength(1);
  });
});

describe("delta assembler: item construction (spec 10 §2.3)", () => {
  it("builds each shape with its field order, parent appended and presentation last", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    const key = (id: string) => ({ providerItemId: id, parentRef: "parent" });
    const extra = { presentation: presentation("P") };
    const shapes: Array<[object, string[]]> = [
      [{ type: "command", command: "ls", cwd: "/", durationMs: 1 }, ["type", "id", "command", "cwd", "durationMs", "status", "approvalStatus"]],
      [{ type: "fileChange", changes: [{ path: "a", kind: "add", newText: "x\n" }] }, ["type", "id", "changes", "status", "approvalStatus"]],
      [{ type: "tool", tool: "t", server: "s", args: { a: 1 }, durationMs: 2 }, ["type", "id", "server", "tool", "arguments", "status", "durationMs"]],
      [{ type: "compaction" }, ["type", "id"]],
      [{ type: "plan", text: "p" }, ["type", "id", "text"]],
      [{ type: "reasoning", summary: [], content: ["c"] }, ["type", "id", "summary", "content"]],
      [{ type: "webSearch", queries: ["q"] }, ["type", "id", "queries", "resultText"]],
      [{ type: "webFetch", url: "u", pattern: null }, ["type", "id", "url", "prompt", "pattern", "resultText"]],
      [{ type: "imageView", path: "i.png" }, ["type", "id", "path"]],
      [{ type: "fileRead", path: "f", cmd: "cat f" }, ["type", "id", "path", "cmd", "status"]],
      [{ type: "search", mode: "path", query: "q" }, ["type", "id", "mode", "query", "status"]],
      [{ type: "planSteps", steps: [{ step: "s" }] }, ["type", "id", "steps", "status"]],
      [{ type: "delegation", childRef: "c", label: "l", background: false }, ["type", "id", "childRef", "label", "status", "background"]],
    ];
    shapes.forEach(([shape, fields], i) => {
      const [started] = rig.feed([d.open(key(`k${i}`), shape, extra)]);
      expect(Object.keys(itemOf(started)), JSON.stringify(shape)).toEqual([...fields, "parentToolCallId", "presentation"]);
    });
    const [ext] = rig.feed([d.open(key("ext"), { type: "extension", kind: "a/b", payload: 1 }, extra)]);
    expect(Object.keys(itemOf(ext))).toEqual(["type", "id", "kind", "payload", "status", "parentToolCallId", "presentation"]);
    const [toolStarted] = rig.feed([d.open({ providerItemId: "arr" }, { type: "tool", tool: "t", args: [1, 2] })]);
    expect(itemOf(toolStarted)).not.toHaveProperty("arguments");
    const [fetch] = rig.feed([d.open({ providerItemId: "wf" }, { type: "webFetch", url: "u", pattern: "p" })]);
    expect(itemOf(fetch)).toMatchObject({ prompt: null, pattern: "p", resultText: null });
  });

  it("terminal webSearch/webFetch take resultText; extension and fileRead take the close status", () => {
    const rig = new Rig();
    rig.feed([d.turnOpen()]);
    const [search] = rig.feed([d.close({ providerItemId: "s" }, { type: "webSearch", queries: ["q"] }, { resultText: "r" })]);
    expect(itemOf(search).resultText).toBe("r");
    const [read] = rig.feed([d.close({ providerItemId: "r" }, { type: "fileRead", path: "p" }, { status: "failed" })]);
    expect(itemOf(read).status).toBe("failed");
    const [denied] = rig.feed([d.close({ providerItemId: "c" }, { type: "command", command: "x", cwd: "/" }, { approvalStatus: "denied", status: "failed" })]);
    expect(itemOf(denied)).toMatchObject({ status: "failed", approvalStatus: "denied" });
  });

  it("backgroundTask and background delegation settle in thread scope without a turn", () => {
    const rig = new Rig();
    const task = { type: "backgroundTask", familyId: "f", taskType: "t", description: "d", status: "completed", taskStatus: "completed", skipTranscript: true };
    const events = rig.feed([
      d.close({ providerItemId: "bg" }, task),
      d.close({ providerItemId: "dg" }, { type: "delegation", childRef: "c", label: "l", background: true }),
      d.close({ providerItemId: "fg" }, { type: "delegation", childRef: "c", label: "l", background: false }),
    ]);
    expect(kinds(events)).toEqual(["item/backgroundTask/completed:backgroundTask", "item/delegation/completed:delegation"]);
    expect(events.map(scopeOf)).toEqual(["thread", "thread"]);
    expect(itemOf(events[0])).toEqual({ type: "backgroundTask", id: "da-i1", familyId: "f", taskType: "t", description: "d", status: "completed", taskStatus: "completed", skipTranscript: true });
  });

  it("a close with no open item builds the complete item and reuses the mapped id after finishTurn", () => {
    const rig = new Rig();
    const [, started] = rig.feed([d.turnOpen(), d.open({ providerItemId: "a" }, tool)]);
    rig.feed([d.boundary(), d.turnOpen()]);
    const [done] = rig.feed([d.close({ providerItemId: "a" }, { ...tool, result: { ok: true } })]);
    expect(itemOf(done)).toEqual({ type: "toolCall", id: itemOf(started).id, tool: "read", status: "completed", result: { ok: true } });
  });
});

describe("delta assembler: text streams and output (spec 10 §2.8–2.9)", () => {
  it("reasoning settles summary and content from the two channels", () => {
    const rig = new Rig();
    const key = { providerItemId: "r" };
    rig.feed([d.turnOpen(), d.text(key, "reasoningSummary", "sum"), d.text(key, "reasoningText", "body")]);
    const [summaryDone] = rig.feed([d.textClose(key, "reasoningSummary")]);
    expect(itemOf(summaryDone)).toEqual({ type: "reasoning", id: "da-i1", summary: ["sum"], content: ["body"] });
    // The key is settled now: a second close is deduped; a delta still flows under the mapped id.
    expect(rig.feed([d.textClose(key, "reasoningText", { text: "x" })])).toEqual([]);
    expect(rig.feed([d.text(key, "reasoningText", "late")])).toEqual([
      { type: "item/reasoning/textDelta", threadId: "", providerThreadId: "", scope: { kind: "turn", turnId: "da-t1" }, itemId: "da-i1", delta: "late" },
    ]);
  });

  it("a text close over a non-text open item builds a fresh channel item under the open id", () => {
    const rig = new Rig();
    const key = { providerItemId: "x" };
    const [, started] = rig.feed([d.turnOpen(), d.open(key, tool)]);
    const [done] = rig.feed([d.textClose(key, "reasoningText", { text: "final" })]);
    expect(itemOf(done)).toEqual({ type: "reasoning", id: itemOf(started).id, summary: [], content: ["final"] });
    const [fresh] = rig.feed([d.textClose({ channel: "nothing-open" }, "reasoningSummary", { text: "s" })]);
    expect(itemOf(fresh)).toMatchObject({ summary: ["s"], content: [] });
  });

  it("outputDelta never synthesizes an open and mints a registered id", () => {
    const rig = new Rig();
    const events = rig.feed([d.turnOpen(), d.output({ providerItemId: "o" }, "command", "a"), d.output({ providerItemId: "o" }, "fileChange", "b")]);
    expect(kinds(events)).toEqual(["turn/started", "item/commandExecution/outputDelta", "item/fileChange/outputDelta"]);
    expect(events.slice(1).map((e) => (e as { itemId: string }).itemId)).toEqual(["da-i1", "da-i1"]);
  });

  it("command.outputSnapshot emits full, suffix, nothing, or a reset", () => {
    const rig = new Rig();
    const key = { providerItemId: "c" };
    expect(rig.feed([d.snapshot(key, "no turn")])).toEqual([]);
    rig.feed([d.turnOpen()]);
    expect(rig.feed([d.snapshot(key, "no open item")])).toEqual([]);
    rig.feed([d.open(key, { type: "command", command: "ls", cwd: "/" })]);
    const outputs = [
      ...rig.feed([d.snapshot(key, "")]),
      ...rig.feed([d.snapshot(key, "ab")]),
      ...rig.feed([d.snapshot(key, "ab")]),
      ...rig.feed([d.snapshot(key, "abcd")]),
      ...rig.feed([d.snapshot(key, "zz")]),
    ].map((e) => [(e as { delta: string }).delta, (e as { reset?: true }).reset]);
    expect(outputs).toEqual([
      ["ab", undefined],
      ["cd", undefined],
      ["zz", true],
    ]);
    // finishTurn clears the snapshot: the next one is full again.
    rig.feed([d.boundary(), d.turnOpen(), d.open(key, { type: "command", command: "ls", cwd: "/" })]);
    expect(rig.feed([d.snapshot(key, "zzz")]).map((e) => (e as { delta: string }).delta)).toEqual(["zzz"]);
  });

  it("fallbacks mint the parent from key.parentRef and carry the raw event", () => {
    const rig = new Rig();
    const fallback = { raw: raw("acp/update", 7), rawType: "acp/update:tool_call" };
    const [event] = rig.feed([d.open({ providerItemId: "i", parentRef: "par" }, tool, { noTurnFallback: fallback })]);
    expect(event).toEqual({
      type: "provider/unhandled",
      threadId: "",
      providerThreadId: "",
      providerId: "test-provider",
      rawType: "acp/update:tool_call",
      rawEvent: raw("acp/update", 7),
      scope: { kind: "thread" },
      parentToolCallId: "da-i1",
    });
    expect(rig.assembler.getBbItemId("thr_test", "par")).toBe("da-i1");
  });

  it("unhandled with onlyIfNoTurn is dropped while cur exists", () => {
    const rig = new Rig();
    const unhandled = { kind: "unhandled", raw: raw("m"), rawType: "m", vouchedTurn: true, onlyIfNoTurn: true };
    expect(kinds(rig.feed([unhandled]))).toEqual(["provider/unhandled"]);
    rig.feed([d.turnOpen()]);
    expect(rig.feed([unhandled])).toEqual([]);
    const scoped = rig.feed([{ ...unhandled, onlyIfNoTurn: false }]);
    expect(scopeOf(scoped[0]!)).toBe("da-t1");
  });

  it("turn.boundary carries error and providerCheckpointId; input.accepted in an open turn emits at once", () => {
    const rig = new Rig();
    const events = rig.feed([d.turnOpen(), d.accepted(CREQ[0]), d.boundary("failed", { error: { message: "e" }, providerCheckpointId: "ck" })]);
    expect(events.at(-1)).toEqual({
      type: "turn/completed",
      threadId: "",
      providerThreadId: "",
      scope: { kind: "turn", turnId: "da-t1" },
      status: "failed",
      error: { message: "e" },
      providerCheckpointId: "ck",
    });
    expect(kinds(events)).toEqual(["turn/started", "turn/input/accepted", "turn/completed"]);
  });
});
