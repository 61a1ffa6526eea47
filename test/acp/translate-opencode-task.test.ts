/**
 * opencode's Task tool as a delegation (spec 30 §1.6). opencode 1.18 sends the Task call's first
 * `tool_call` as kind `think`, title `task`, empty `rawInput`; `description`, `prompt` and
 * `subagent_type` arrive in the `in_progress` update, the child session id in the completed
 * one's `rawOutput.metadata.sessionId`. Checked on messages written here in that shape and on
 * the committed acp-opencode/subagent recording (recorded live from opencode, read by path).
 */
import { describe, expect, test } from "vitest";
import { createDeltaAssembler, createThreadEventGrammar } from "../../stack/assembler/index.js";
import { isOpencodeTaskCall, opencodeAcpDialect, selectAcpDialect } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";
import type { ThreadDelta } from "../../stack/protocol/thread-delta.js";
import { ThreadDeltaSchema } from "../../stack/protocol/thread-delta.js";
import { driveCell, OPENCODE_RECORDINGS, providerUpdates } from "./translate-recording-driver.js";

type AnyRecord = Record<string, any>;

/** Assembles translator batches the way a thread lane is built (assembler + host grammar). */
function assemble(batches: ThreadDelta[][]): { events: AnyRecord[]; drops: string[] } {
  const assembler = createDeltaAssembler({ providerId: "acp-opencode", entropyPrefix: "t", textDeltaFlushMs: 0, now: () => 0 });
  const grammar = createThreadEventGrammar();
  const events: AnyRecord[] = [];
  const drops: string[] = [];
  for (const deltas of batches) {
    for (const event of assembler.assemble({ threadId: "thr_task", deltas })) {
      const verdict = grammar.observe(event);
      if (verdict.ok) events.push(event as AnyRecord);
      else drops.push(`${verdict.rule}:${event.type}`);
    }
  }
  return { events, drops };
}

const itemDeltas = (deltas: ThreadDelta[], id: string) =>
  deltas.filter((d): d is ThreadDelta & AnyRecord => (d.kind === "item.open" || d.kind === "item.close") && (d as AnyRecord).key.providerItemId === id);

describe("opencode Task call, opencode-shaped messages written here", () => {
  const call = "call_task_written_1";
  const pending = { sessionUpdate: "tool_call", toolCallId: call, title: "task", kind: "think", status: "pending", locations: [], rawInput: {} };
  const running = {
    sessionUpdate: "tool_call_update",
    toolCallId: call,
    status: "in_progress",
    kind: "think",
    title: "Count the notes",
    locations: [],
    rawInput: { description: "Count the notes", prompt: "How many notes are there?", subagent_type: "explore" },
  };
  const completed = {
    sessionUpdate: "tool_call_update",
    toolCallId: call,
    status: "completed",
    title: "Count the notes",
    content: [{ type: "content", content: { type: "text", text: "There are three notes." } }],
    rawOutput: { output: "There are three notes.", metadata: { sessionId: "ses_child_written", parentSessionId: "ses_parent_written" } },
  };

  function run() {
    const t = createAcpTranslator({ threadId: "thr_task", dialect: opencodeAcpDialect, now: () => 0 });
    const batches = [t.turnStarted(), t.update(pending), t.update(running), t.update(running), t.update(completed), t.turnCompleted("end_turn")];
    return { batches, deltas: batches.flat() };
  }

  test("the first tool_call already opens a delegation, never a reasoning item", () => {
    const [open] = itemDeltas(run().deltas, call);
    expect(open).toMatchObject({ kind: "item.open", item: { type: "delegation", childRef: call, label: "Subagent", background: false } });
    expect(open!.presentation).toMatchObject({ label: { pending: "Running subagent", completed: "Subagent finished" }, icon: { glyph: "UserRound" }, title: "Subagent" });
    expect(open!.presentation.detail).toBeUndefined();
  });

  test("the update carrying subagent_type re-opens it with description and detail, once; the close carries the child session", () => {
    const { deltas } = run();
    const items = itemDeltas(deltas, call);
    expect(items.map((d) => d.kind)).toEqual(["item.open", "item.open", "item.close"]);
    expect(items[1]).toMatchObject({ item: { type: "delegation", childRef: call, label: "Count the notes" }, presentation: { title: "Count the notes", detail: "explore" } });
    expect(items[2]).toMatchObject({ status: "completed", item: { type: "delegation", childRef: "ses_child_written", label: "Count the notes" }, resultText: "There are three notes." });
    // The repeated identical update changes nothing: it is suppressed like any other update.
    expect(deltas.filter((d) => d.kind === "unhandled")).toHaveLength(1);
    for (const delta of deltas) expect(ThreadDeltaSchema.safeParse(delta).success).toBe(true);
  });

  test("assembled: one delegation row, started twice under one id and completed once; no reasoning, no drops", () => {
    const { events, drops } = assemble(run().batches);
    expect(drops).toEqual([]);
    const rows = events.filter((e) => e.type === "item/started" || e.type === "item/completed");
    expect(rows.map((e) => `${e.type}:${e.item.type}`)).toEqual(["item/started:delegation", "item/started:delegation", "item/completed:delegation"]);
    expect(new Set(rows.map((e) => e.item.id)).size).toBe(1);
    expect(rows.at(-1)!.item).toMatchObject({ label: "Count the notes", childRef: "ses_child_written", status: "completed" });
    expect(events.filter((e) => e.type === "provider/unhandled")).toEqual([]);
  });

  test("a think call with a thought, or another title, stays reasoning; a `task` title of another kind is no delegation", () => {
    const t = createAcpTranslator({ threadId: "thr_task", dialect: opencodeAcpDialect, now: () => 0 });
    t.turnStarted();
    const opened = (update: AnyRecord) => (t.update(update).at(-1) as AnyRecord).item;
    expect(opened({ ...pending, toolCallId: "th1", rawInput: { thought: "hmm" } })).toEqual({ type: "reasoning", summary: [], content: ["hmm"] });
    expect(opened({ ...pending, toolCallId: "th2", title: "Planning" }).type).toBe("reasoning");
    expect(opened({ ...pending, toolCallId: "th3", kind: "other" }).type).not.toBe("delegation");
    expect(isOpencodeTaskCall({ toolCallId: "x", kind: "think", title: "Planning", rawInput: { subagent_type: "general" } })).toBe(true);
    expect(isOpencodeTaskCall({ toolCallId: "x", kind: "think", title: "task", rawInput: { thinking: "t" } })).toBe(false);
  });

  test("a delegation whose updates change nothing is opened once (no re-open for an unchanged row)", () => {
    const t = createAcpTranslator({ threadId: "thr_task", dialect: opencodeAcpDialect, now: () => 0 });
    t.turnStarted();
    const first = t.update({ ...running, sessionUpdate: "tool_call", status: "pending" });
    const again = t.update(running);
    expect(itemDeltas(first, call).map((d) => d.kind)).toEqual(["item.open"]);
    expect(itemDeltas(again, call)).toEqual([]);
  });
});

describe("the committed acp-opencode/subagent recording (opencode 1.18.33, live)", () => {
  const dialect = selectAcpDialect({ command: "opencode" });
  const updates = providerUpdates("subagent", OPENCODE_RECORDINGS);
  const first = updates.find((u) => u.sessionUpdate === "tool_call" && u.kind === "think")!;
  const typed = updates.find((u) => u.toolCallId === first.toolCallId && typeof u.rawInput?.subagent_type === "string")!;
  const done = updates.find((u) => u.toolCallId === first.toolCallId && u.status === "completed")!;

  test("the provider lane has the shape this fix is about", () => {
    expect(dialect.id).toBe("opencode");
    expect(first).toMatchObject({ title: "task", rawInput: {} });
    expect(typed.sessionUpdate).toBe("tool_call_update");
    expect(typed.status).toBe("in_progress");
    expect(typeof done.rawOutput.metadata.sessionId).toBe("string");
  });

  test("translated: delegation at open, re-opened with description and subagent_type, closed with the child session", () => {
    const { deltas } = driveCell("subagent", dialect, OPENCODE_RECORDINGS);
    const items = itemDeltas(deltas, first.toolCallId);
    expect(items.map((d) => `${d.kind}:${d.item.type}`)).toEqual(["item.open:delegation", "item.open:delegation", "item.close:delegation"]);
    expect(items[1]).toMatchObject({ item: { label: typed.rawInput.description }, presentation: { detail: typed.rawInput.subagent_type } });
    expect(items[2]).toMatchObject({ status: "completed", item: { childRef: done.rawOutput.metadata.sessionId, label: typed.rawInput.description } });
    expect(deltas.some((d) => d.kind === "item.open" && (d as AnyRecord).item.type === "reasoning")).toBe(false);
  });

  test("assembled: the lane shows a delegation row and no reasoning row, with no drops and no unhandled events", () => {
    const { events, drops } = assemble(driveCell("subagent", dialect, OPENCODE_RECORDINGS).batches);
    expect(drops).toEqual([]);
    expect(events.filter((e) => e.type === "provider/unhandled")).toEqual([]);
    const completed = events.filter((e) => e.type === "item/completed").map((e) => e.item);
    expect(completed.filter((item) => item.type === "reasoning")).toEqual([]);
    expect(completed.filter((item) => item.type === "delegation")).toEqual([
      expect.objectContaining({ label: typed.rawInput.description, childRef: done.rawOutput.metadata.sessionId, status: "completed", background: false }),
    ]);
  });
});
