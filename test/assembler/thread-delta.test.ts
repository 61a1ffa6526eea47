import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidThreadDeltaError, parseThreadDeltaParams, THREAD_DELTA_KINDS } from "../../stack/protocol/thread-delta.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const cursorRoot = path.resolve(repoRoot, "../shared/recordings/acp-cursor");
const THREAD_CELLS = ["approval-allow", "approval-deny", "resume", "stop-interrupt", "subagent", "turn-tools"];

function deltaParamsOf(cell: string): unknown[] {
  const text = readFileSync(path.join(cursorRoot, cell, "bridge→runtime.current.ndjson"), "utf8");
  const out: unknown[] = [];
  for (const row of text.split("\n")) {
    if (!row) continue;
    const message = JSON.parse((JSON.parse(row) as { line: string }).line) as { method?: string; params?: unknown };
    if (message.method === "thread/delta") out.push(message.params);
  }
  return out;
}

const extensionItem = { type: "extension", kind: "acme/goal", payload: { a: 1 } };
const presentation = { label: { pending: "Working", completed: "Done" }, icon: { glyph: "Star" } };

describe("parseThreadDeltaParams (spec 10 §1)", () => {
  it("accepts every thread/delta of the real acp-cursor current lanes", () => {
    let batches = 0;
    for (const cell of THREAD_CELLS) {
      for (const params of deltaParamsOf(cell)) {
        const parsed = parseThreadDeltaParams(params);
        expect(parsed.deltas.length).toBeGreaterThan(0);
        batches++;
      }
    }
    expect(batches).toBeGreaterThan(100);
  });

  it("lists the 26 v3 delta kinds and none of the deleted v2 kinds", () => {
    expect(THREAD_DELTA_KINDS).toHaveLength(26);
    for (const gone of ["message.delta", "message.close", "usage.turn", "usage.exact", "thread.goal", "turn.plan"]) {
      expect(THREAD_DELTA_KINDS).not.toContain(gone);
    }
  });

  it("strips unknown keys from deltas and keeps unknown params keys", () => {
    const parsed = parseThreadDeltaParams({
      threadId: "t1",
      extra: 1,
      deltas: [{ kind: "turn.open", surprise: true }],
    });
    expect(parsed.deltas[0]).toEqual({ kind: "turn.open" });
  });

  it("one invalid delta rejects the whole batch with path and message", () => {
    const params = {
      threadId: "t1",
      deltas: [{ kind: "turn.open" }, { kind: "item.textDelta", key: {}, channel: "bogus", text: "x" }],
    };
    expect(() => parseThreadDeltaParams(params)).toThrow(InvalidThreadDeltaError);
    try {
      parseThreadDeltaParams(params);
    } catch (error) {
      const typed = error as InvalidThreadDeltaError;
      expect(typed.issues[0]?.path).toEqual(["deltas", 1, "channel"]);
      expect(typed.message).toMatch(/^Invalid thread\/delta notification: deltas\.1\.channel: .*\(params: \{/);
    }
  });

  it("extension rule: an extension item without presentation fails at presentation", () => {
    for (const kind of ["item.open", "item.close"]) {
      const delta = { kind, key: { providerItemId: "x" }, status: "completed", item: extensionItem };
      try {
        parseThreadDeltaParams({ threadId: "t", deltas: [delta] });
        expect.unreachable();
      } catch (error) {
        expect((error as InvalidThreadDeltaError).issues.map((issue) => issue.path)).toContainEqual(["deltas", 0, "presentation"]);
      }
      const ok = parseThreadDeltaParams({ threadId: "t", deltas: [{ ...delta, presentation }] });
      expect(ok.deltas[0]).toMatchObject({ kind, presentation });
    }
  });

  it("strips a presentation placed inside an extension shape", () => {
    const parsed = parseThreadDeltaParams({
      threadId: "t",
      deltas: [{ kind: "item.open", key: {}, item: { ...extensionItem, presentation }, presentation }],
    });
    expect(parsed.deltas[0]).toMatchObject({ item: extensionItem });
    expect((parsed.deltas[0] as { item: object }).item).not.toHaveProperty("presentation");
  });

  it("rejects key parts containing U+001F, bad extension kinds, bad clientRequestIds and long details", () => {
    const bad = [
      { kind: "item.textDelta", key: { providerItemId: "a\u001fb" }, channel: "agentMessage", text: "x" },
      { kind: "extension.state", extensionKind: "codex/goal/x", payload: null },
      { kind: "extension.state", extensionKind: "Codex/goal", payload: null },
      { kind: "input.accepted", clientRequestId: "creq_0000000000" },
      { kind: "item.open", key: {}, item: { type: "compaction" }, presentation: { ...presentation, detail: "x".repeat(281) } },
      { kind: "item.open", key: {}, item: { type: "webSearch", queries: [] } },
      { kind: "item.open", key: {}, item: { type: "webFetch", url: "u" } },
      { kind: "unhandled", raw: { jsonrpc: "2.0", method: "m" }, rawType: "m" },
      { kind: "item.progress", key: {}, snapshot: { type: "tool", tool: "x" } },
    ];
    for (const delta of bad) {
      expect(() => parseThreadDeltaParams({ threadId: "t", deltas: [delta] }), JSON.stringify(delta)).toThrow(InvalidThreadDeltaError);
    }
    expect(() => parseThreadDeltaParams({ threadId: "", deltas: [] })).toThrow(InvalidThreadDeltaError);
  });
});
