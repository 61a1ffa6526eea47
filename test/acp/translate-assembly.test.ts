/**
 * The translator's deltas on the real acp-cursor recordings, assembled by the product's delta
 * assembler and filtered by the host grammar: what reaches the thread lane (spec 10 §2–3).
 */
import { describe, expect, test } from "vitest";
import { createDeltaAssembler, createThreadEventGrammar } from "../../stack/assembler/index.js";
import { driveCell, haveCursorRecordings, providerUpdates } from "./translate-recording-driver.js";

const THREAD_CELLS = ["approval-allow", "approval-deny", "resume", "stop-interrupt", "subagent", "turn-tools"];

function assembleCell(cell: string) {
  const assembler = createDeltaAssembler({ providerId: "acp-cursor", entropyPrefix: "t", textDeltaFlushMs: 0, now: () => 0 });
  const grammar = createThreadEventGrammar();
  const events: Record<string, any>[] = [];
  const drops: { rule: string; type: string }[] = [];
  for (const batch of driveCell(cell).batches) {
    for (const event of assembler.assemble({ threadId: "thr", deltas: batch })) {
      const verdict = grammar.observe(event);
      if (verdict.ok) events.push(event as Record<string, any>);
      else drops.push({ rule: verdict.rule, type: event.type });
    }
  }
  return { events, drops };
}

describe.skipIf(!haveCursorRecordings())("translated recordings through the assembler and host grammar", () => {
  test.each(THREAD_CELLS)("%s: no provider/unhandled event reaches the lane (reference pin: 0)", (cell) => {
    expect(assembleCell(cell).events.filter((event) => event.type === "provider/unhandled")).toEqual([]);
  });

  // The reference bridge opened Cursor's Edit File as a generic tool and settled it twice, the one
  // grammar drop of spec 20 §4.8; this bridge waits for the call's fields and opens it once as the
  // fileChange it is (issue 37), so no cell drops anything.
  test.each(THREAD_CELLS)("%s: no grammar drops", (cell) => {
    expect(assembleCell(cell).drops).toEqual([]);
  });

  test("subagent: the Task call is a delegation item in the lane (spec 30 §1.3)", () => {
    const items = assembleCell("subagent")
      .events.filter((event) => event.type === "item/completed")
      .map((event) => event.item);
    const task = providerUpdates("subagent").find((update) => update.sessionUpdate === "tool_call");
    expect(items.filter((item) => item.type === "delegation")).toEqual([expect.objectContaining({ type: "delegation", label: task?.title, status: "completed", background: false })]);
  });

  test("every turn opened is completed; thread state lands as extension-state events (spec 30 §6.3)", () => {
    for (const cell of THREAD_CELLS) {
      const { events } = assembleCell(cell);
      const started = events.filter((event) => event.type === "turn/started").length;
      expect(events.filter((event) => event.type === "turn/completed")).toHaveLength(started);
      expect(events.some((event) => event.type === "thread/extensionState/updated" && event.kind === "bb/provider-commands")).toBe(true);
    }
  });
});
