/**
 * Translation rows and behaviours the real cursor recordings do not contain, driven by small
 * project-written ACP messages (spec 20 §3 as changed by spec 30).
 */
import { describe, expect, test } from "vitest";
import { genericAcpDialect, grokAcpDialect, ompAcpDialect } from "../../stack/acp/dialects/index.js";
import type { AcpDialect } from "../../stack/acp/dialects/index.js";
import { AcpTranslateError, createAcpTranslator, isTurnOutputUpdate, TOOL_PAYLOAD_MAX_BYTES, writeScopeOf } from "../../stack/acp/translate/index.js";
import type { InjectedToolDefinition } from "../../stack/acp/translate/index.js";
import { ThreadDeltaSchema } from "../../stack/protocol/thread-delta.js";

type AnyRecord = Record<string, any>;

function make(dialect: AcpDialect = genericAcpDialect, injectedTools: InjectedToolDefinition[] = []) {
  let clock = 0;
  const t = createAcpTranslator({ threadId: "thr_inline", dialect, now: () => (clock += 5), injectedTools });
  return t;
}

const call = (fields: AnyRecord) => ({ sessionUpdate: "tool_call", toolCallId: "tc-1", status: "pending", ...fields });
const upd = (fields: AnyRecord) => ({ sessionUpdate: "tool_call_update", toolCallId: "tc-1", ...fields });
const last = (deltas: unknown[]) => deltas.at(-1) as AnyRecord;

describe("session/update rows without a recording", () => {
  test("plan: one settled planSteps item per snapshot; pending/in_progress/completed mapped", () => {
    const t = make();
    const deltas = t.update({
      sessionUpdate: "plan",
      entries: [
        { content: "look", status: "completed", priority: "high" },
        { content: "change", status: "in_progress", priority: "medium" },
        { content: "verify", status: "pending", priority: "low" },
      ],
    });
    expect(deltas).toHaveLength(1);
    expect(deltas[0]).toMatchObject({
      kind: "item.close",
      key: { channel: "planSteps" },
      status: "completed",
      item: {
        type: "planSteps",
        steps: [
          { step: "look", status: "completed" },
          { step: "change", status: "active" },
          { step: "verify", status: "pending" },
        ],
      },
      presentation: { label: { pending: "Updating plan", completed: "Updated plan" }, icon: { glyph: "ListTodo" }, title: "change", suppress: true },
      noTurnFallback: { rawType: "acp/update:plan" },
    });
  });

  test("usage_update → contextWindow (estimated false, attach open); malformed → nothing", () => {
    const t = make();
    expect(t.update({ sessionUpdate: "usage_update", used: 1200, size: 200000 })).toEqual([{ kind: "contextWindow", used: 1200, size: 200000, estimated: false, attach: "open" }]);
    expect(t.update({ sessionUpdate: "usage_update", used: "many" })).toEqual([]);
  });

  test("current_mode_update and config_option_update publish bb/session-options on change only", () => {
    const t = make();
    expect(t.sessionSetup({ sessionId: "s", modes: { currentModeId: "agent", availableModes: [{ id: "agent" }, { id: "plan" }] } }, { restored: false })).toEqual([
      {
        kind: "extension.state",
        extensionKind: "bb/session-options",
        payload: { configOptions: [], modes: { currentModeId: "agent", availableModes: [{ id: "agent" }, { id: "plan" }] } },
      },
    ]);
    const changed = t.update({ sessionUpdate: "current_mode_update", currentModeId: "plan" }) as AnyRecord[];
    expect(changed[0]?.payload.modes.currentModeId).toBe("plan");
    expect(t.update({ sessionUpdate: "current_mode_update", currentModeId: "plan" })).toEqual([]);
    const options = [{ id: "model", currentValue: "x", options: [] }];
    expect((t.update({ sessionUpdate: "config_option_update", configOptions: options })[0] as AnyRecord).payload.configOptions).toEqual(options);
  });

  test("an empty first state is skipped (spec 30 §6.3)", () => {
    const t = make();
    expect(t.sessionSetup({ sessionId: "s" }, { restored: false })).toEqual([]);
    expect(t.update({ sessionUpdate: "available_commands_update", availableCommands: [] })).toEqual([]);
  });

  test("unknown kind → unhandled {vouchedTurn:true}; non-text chunk → suppressed; unparseable → nothing", () => {
    const t = make();
    const odd = { sessionUpdate: "compaction_update", phase: "start" };
    expect(t.update(odd)).toEqual([
      {
        kind: "unhandled",
        raw: { jsonrpc: "2.0", method: "acp/update", params: { threadId: "thr_inline", update: odd } },
        rawType: "acp/update:compaction_update",
        vouchedTurn: true,
      },
    ]);
    const audio = { sessionUpdate: "agent_thought_chunk", content: { type: "image", data: "AAAA", mimeType: "image/png" } };
    expect(t.update(audio)).toEqual([expect.objectContaining({ kind: "unhandled", vouchedTurn: false, onlyIfNoTurn: true, rawType: "acp/update:agent_thought_chunk" })]);
    const unknownBlock = { sessionUpdate: "agent_message_chunk", content: { type: "hologram" } };
    expect(t.update(unknownBlock)).toEqual([expect.objectContaining({ kind: "unhandled", vouchedTurn: false, onlyIfNoTurn: true, rawType: "acp/update:agent_message_chunk" })]);
    expect(t.update({ nope: true })).toEqual([]);
    // A known kind without its required fields is unparseable: dropped like any unparseable update.
    expect(t.update({ sessionUpdate: "tool_call", title: "no id" })).toEqual([]);
    expect(t.update({ sessionUpdate: "agent_message_chunk" })).toEqual([]);
    expect(t.update({ sessionUpdate: "plan", entries: "soon" })).toEqual([]);
    expect(t.update("garbage")).toEqual([]);
  });
});

describe("tool calls", () => {
  test("a tool_call already completed closes only and is not cached", () => {
    const t = make();
    const deltas = t.update(call({ kind: "execute", status: "completed", rawInput: { command: "ls" }, rawOutput: { exitCode: 0, stdout: "a\n" } }));
    expect(deltas.map((delta) => delta.kind)).toEqual(["item.textClose", "item.textClose", "item.close"]);
    expect(t.activity().openToolCount).toBe(0);
  });

  test("tool_call_update of an unknown id is cached without an open and drains at turn end", () => {
    const t = make();
    t.turnStarted();
    expect(t.update(upd({ toolCallId: "ghost", status: "in_progress" }))).toEqual([expect.objectContaining({ kind: "unhandled", onlyIfNoTurn: true })]);
    const end = t.turnCompleted("end_turn");
    expect(end.filter((delta) => delta.kind === "item.close")).toEqual([expect.objectContaining({ key: { providerItemId: "ghost" }, status: "completed" })]);
  });

  test("non-terminal update with output on a generic tool → item.progress; on a command → its output snapshot, then the suppressed raw update (issue 39)", () => {
    const t = make();
    t.update(call({ kind: "other", title: "Crunch" }));
    expect(t.update(upd({ status: "in_progress", content: [{ type: "content", content: { type: "text", text: "half done" } }] }))).toEqual([
      { kind: "item.progress", key: { providerItemId: "tc-1" }, message: "half done" },
    ]);
    t.update(call({ toolCallId: "tc-2", kind: "execute", rawInput: { command: "make" } }));
    const commandProgress = t.update(upd({ toolCallId: "tc-2", status: "in_progress", content: [{ type: "content", content: { type: "text", text: "cc" } }] }));
    expect(commandProgress[0]).toEqual({ kind: "command.outputSnapshot", key: { providerItemId: "tc-2" }, text: "cc" });
    expect(commandProgress[1]?.kind).toBe("unhandled");
  });

  test("exit codes: failed without code → 1; exit_code read; completed without code → none (spec 30 §1.1)", () => {
    const t = make();
    t.update(call({ kind: "execute", rawInput: { command: "false" } }));
    expect(last(t.update(upd({ status: "failed" })))).toMatchObject({ status: "failed", exitCode: 1 });
    t.update(call({ toolCallId: "tc-2", kind: "execute", rawInput: { command: "x" } }));
    expect(last(t.update(upd({ toolCallId: "tc-2", status: "completed", rawOutput: { exit_code: 3, stdout: "", stderr: "boom" } })))).toMatchObject({
      exitCode: 3,
      resultText: "boom",
    });
    t.update(call({ toolCallId: "tc-3", kind: "execute", rawInput: { command: "y" } }));
    expect(last(t.update(upd({ toolCallId: "tc-3", status: "completed", rawOutput: { exitCode: 1 } }))).exitCode).toBe(1);
  });

  test("command output: stdout+stderr joined, output_for_prompt, [timed out] and [signal X] appended", () => {
    const t = make();
    t.update(call({ kind: "execute", rawInput: { command: "a" } }));
    expect(last(t.update(upd({ status: "completed", rawOutput: { stdout: "out", stderr: "err", timed_out: true, signal: "SIGKILL" } }))).resultText).toBe("out\nerr\n[timed out] [signal SIGKILL]");
    t.update(call({ toolCallId: "tc-2", kind: "execute", rawInput: { command: "b" } }));
    expect(last(t.update(upd({ toolCallId: "tc-2", status: "completed", rawOutput: { output_for_prompt: "summary" } }))).resultText).toBe("summary");
  });

  test("rendered output: array content → text blocks; data:image URLs → [image]", () => {
    const t = make();
    t.update(call({ kind: "other", title: "Snap" }));
    const close = last(
      t.update(
        upd({
          status: "completed",
          rawOutput: {
            content: [
              { type: "text", text: "see data:image/png;base64,AAAA" },
              { type: "text", text: "end" },
            ],
          },
        }),
      ),
    );
    expect(close.resultText).toBe("see [image]\nend");
  });

  test("args over 64 KiB become a truncated preview under `truncated` (spec 30 §1.1)", () => {
    const t = make();
    const open = last(t.update(call({ kind: "other", title: "Big", rawInput: { blob: "x".repeat(TOOL_PAYLOAD_MAX_BYTES + 10) } })));
    expect(Object.keys(open.item.args)).toEqual(["truncated"]);
    expect(open.item.args.truncated.length).toBeLessThan(TOOL_PAYLOAD_MAX_BYTES);
    const image = last(t.update(call({ toolCallId: "img", kind: "other", rawInput: { shot: "data:image/png;base64,QUJD", keep: 1 } })));
    expect(image.item.args).toEqual({ shot: "[image]", keep: 1 });
  });

  test("generic tool: failed call carries `error`; the tool slot is rawKind when not a valid ACP kind", () => {
    const t = make();
    const open = last(t.update(call({ kind: "deploy", title: "Ship it" })));
    expect(open.item.tool).toBe("deploy");
    expect(open.presentation.label).toEqual({ pending: "Running tool", completed: "Ran tool" });
    const close = last(t.update(upd({ status: "failed", content: [{ type: "content", content: { type: "text", text: "denied" } }] })));
    expect(close.item).toMatchObject({ type: "tool", tool: "deploy", error: "denied" });
    expect(close.exitCode).toBe(1);
  });

  test("core shapes: read with path, search content/path, fetch, think, delete, diff add", () => {
    const t = make();
    expect(last(t.update(call({ toolCallId: "r", kind: "read", title: "Read", locations: [{ path: "/w/src/a.ts" }] }))).item).toEqual({ type: "fileRead", path: "/w/src/a.ts" });
    expect(last(t.update(call({ toolCallId: "r2", kind: "read", title: "Read `~/notes.md`" }))).item).toEqual({ type: "fileRead", path: "~/notes.md" });
    expect(last(t.update(call({ toolCallId: "s", kind: "search", rawInput: { pattern: "TODO", path: "/w" } }))).item).toEqual({
      type: "search",
      mode: "content",
      query: "TODO",
      path: "/w",
    });
    const glob = last(t.update(call({ toolCallId: "g", kind: "search", rawInput: { glob: "**/*.ts" } })));
    expect(glob.item).toEqual({ type: "search", mode: "path", query: "**/*.ts" });
    expect(glob.presentation.icon.glyph).toBe("FolderOpen");
    expect(last(t.update(call({ toolCallId: "f", kind: "fetch", title: "Fetch https://example.test/a" }))).item).toEqual({
      type: "webFetch",
      url: "https://example.test/a",
      pattern: null,
    });
    expect(last(t.update(call({ toolCallId: "k", kind: "think", rawInput: { thought: "hmm" } }))).item).toEqual({ type: "reasoning", summary: [], content: ["hmm"] });
    const del = last(t.update(call({ toolCallId: "d", kind: "delete", locations: [{ path: "/w/old.txt" }] })));
    expect(del.item).toEqual({ type: "fileChange", changes: [{ path: "/w/old.txt", kind: "delete" }] });
    expect(del.presentation).toMatchObject({ label: { pending: "Deleting file" }, icon: { glyph: "Trash2" }, title: "old.txt" });
    const add = last(t.update(call({ toolCallId: "n", kind: "edit", content: [{ type: "diff", path: "/w/new.txt", oldText: null, newText: "hi" }] })));
    // A new file's diff comes from /dev/null, with its hunk (issue 37; stack/bridge-kit/texts-diff.ts).
    const addDiff = "--- /dev/null\n+++ b/w/new.txt\n@@ -0,0 +1,1 @@\n+hi\n\\ No newline at end of file\n";
    expect(add.item).toEqual({ type: "fileChange", changes: [{ path: "/w/new.txt", kind: "add", diff: addDiff, newText: "hi" }] });
    expect(add.presentation.label).toEqual({ pending: "Writing file", completed: "Wrote file" });
  });

  test("presentation titles: first line, trimmed, at most 160 characters ending in …; files by unique basename", () => {
    const t = make();
    const long = last(t.update(call({ toolCallId: "l", kind: "other", title: `  ${"y".repeat(200)}\nsecond line` })));
    expect(long.presentation.title).toBe(`${"y".repeat(159)}…`);
    const multi = last(
      t.update(
        call({
          toolCallId: "mf",
          kind: "edit",
          content: [
            { type: "diff", path: "/w/a/x.ts", oldText: "1", newText: "2" },
            { type: "diff", path: "/w/b/x.ts", oldText: "1", newText: "2" },
            { type: "diff", path: "/w/y.ts", oldText: "1", newText: "2" },
          ],
        }),
      ),
    );
    expect(multi.presentation).toEqual({ label: { pending: "Editing files", completed: "Edited files" }, icon: { glyph: "EditFile" }, title: "x.ts, y.ts" });
  });

  test("locations alone never imply a write; an unfillable core shape is a generic tool", () => {
    const t = make();
    expect(last(t.update(call({ toolCallId: "m", kind: "move", locations: [{ path: "/w/a" }] }))).item.type).toBe("tool");
    // A search without its fields waits for them: no open yet; at its close it opens and settles as the generic tool it stayed.
    expect(t.update(call({ toolCallId: "q", kind: "search", rawInput: {} })).map((delta) => delta.kind)).toEqual(["item.textClose", "item.textClose"]);
    const settled = t.update(upd({ toolCallId: "q", status: "completed" }));
    expect(settled.filter((delta) => delta.kind === "item.open" || delta.kind === "item.close").map((delta) => [delta.kind, (delta as any).item])).toEqual([
      ["item.open", { type: "tool", tool: "search", args: {} }],
      ["item.close", { type: "tool", tool: "search", args: {} }],
    ]);
  });

  test("malformed optional fields read as absent; bad content entries are skipped, not fatal", () => {
    const t = make();
    const open = last(t.update(call({ kind: "edit", title: 42, content: [7, { type: "diff", path: "/w/a", oldText: "x", newText: "y" }], locations: ["nope"], _meta: "m" })));
    const diff = "--- a/w/a\n+++ b/w/a\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n";
    expect(open.item).toEqual({ type: "fileChange", changes: [{ path: "/w/a", kind: "update", diff, oldText: "x", newText: "y" }] });
  });

  test("null fields (pi-acp) count as absent and do not erase merged values", () => {
    const t = make();
    t.update(call({ kind: "execute", title: "`ls`", rawInput: { command: "ls" } }));
    const close = last(t.update(upd({ status: "completed", title: null, kind: null, rawInput: null, rawOutput: { exitCode: 0 } })));
    expect(close.item).toEqual({ type: "command", command: "ls", cwd: "" });
  });
});

describe("turns (spec 20 §3.5, §8; spec 30 §6.2)", () => {
  test("stop reasons map to turn status; failed carries the reason; an unknown reason throws", () => {
    const t = make();
    t.turnStarted();
    t.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } });
    expect(last(t.turnCompleted("max_tokens"))).toEqual({
      kind: "turn.boundary",
      status: "failed",
      error: { message: "Agent stopped the turn: max_tokens" },
      claimIfIdle: true,
    });
    for (const [reason, status] of [
      ["max_turn_requests", "failed"],
      ["refusal", "failed"],
      ["cancelled", "interrupted"],
    ] as const) {
      expect(last(t.turnCompleted(reason)).status).toBe(status);
    }
    expect(() => t.turnCompleted("exploded")).toThrow(AcpTranslateError);
  });

  test("zero-output turn: a warning before the flush and boundary (spec 30 §6.2)", () => {
    const t = make();
    expect(t.turnStarted()).toEqual([{ kind: "turn.open" }]);
    t.update({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "a" }] });
    const deltas = t.turnCompleted("end_turn");
    expect(deltas[0]).toMatchObject({ kind: "provider.warning", summary: "The agent ended the turn without replying", vouchedTurn: true });
    expect(last(deltas)).toEqual({ kind: "turn.boundary", status: "completed", claimIfIdle: true });
    t.turnStarted();
    t.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" } });
    expect(t.turnCompleted("end_turn").some((delta) => delta.kind === "provider.warning")).toBe(false);
  });

  test("turn end drains open tools in insertion order with the turn status (spec 20 §8.8)", () => {
    const t = make();
    t.turnStarted();
    t.update(call({ toolCallId: "b", kind: "other", title: "B" }));
    t.update(call({ toolCallId: "a", kind: "other", title: "A" }));
    const closes = t.turnCompleted("refusal").filter((delta) => delta.kind === "item.close") as AnyRecord[];
    expect(closes.map((delta) => [delta.key.providerItemId, delta.status, delta.exitCode])).toEqual([
      ["b", "failed", 1],
      ["a", "failed", 1],
    ]);
  });

  test("steer: a cancelled prompt whose turn is not completed keeps its tools for the final drain (spec 20 §8.2)", () => {
    const t = make();
    t.turnStarted();
    t.update(call({ kind: "execute", rawInput: { command: "sleep 1" } }));
    // The bridge discards the steer-cancelled stop reason and re-prompts in the same turn.
    t.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "again" } });
    const closes = t.turnCompleted("end_turn").filter((delta) => delta.kind === "item.close");
    expect(closes).toEqual([expect.objectContaining({ key: { providerItemId: "tc-1" }, status: "completed" })]);
  });

  test("session error settles the streams and the open tools (failed), then settles the turn", () => {
    const t = make();
    t.update(call({ kind: "other" }));
    const deltas = t.sessionError("agent exited");
    expect(deltas.map((delta) => [delta.kind, (delta as any).status])).toEqual([
      ["item.textClose", undefined],
      ["item.textClose", undefined],
      ["item.close", "failed"],
      ["provider.error", undefined],
    ]);
    expect(last(deltas)).toEqual({ kind: "provider.error", message: "Provider error", detail: "agent exited", settlesTurn: true });
    expect(t.activity().openToolCount).toBe(0);
  });

  test("compaction: turn.open + compaction item; end_turn → context.compacted + boundary without claimIfIdle", () => {
    const t = make();
    expect(t.compactionStarted()).toEqual([
      { kind: "turn.open" },
      {
        kind: "item.open",
        key: { channel: "compaction" },
        item: { type: "compaction" },
        presentation: { label: { pending: "Compacting context", completed: "Compacted context" }, icon: { glyph: "Archive" } },
      },
    ]);
    const done = t.compactionCompleted({ stopReason: "end_turn" });
    expect(done.slice(-2)).toEqual([{ kind: "context.compacted" }, { kind: "turn.boundary", status: "completed" }]);
    t.compactionStarted();
    expect(last(t.compactionCompleted({ stopReason: "max_tokens" }))).toEqual({
      kind: "turn.boundary",
      status: "failed",
      error: { message: "Agent stopped compaction: max_tokens" },
    });
    t.compactionStarted();
    expect(last(t.compactionCompleted({ error: "boom" }))).toEqual({ kind: "turn.boundary", status: "failed", error: { message: "boom" } });
  });

  test("omp compaction outcome from the reply text; other dialects always complete (spec 30 §1.5)", () => {
    const say = (text: string) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    const omp = make(ompAcpDialect);
    omp.compactionStarted();
    omp.update(say("Compaction failed: "));
    omp.update(say("nothing to compact."));
    const skipped = omp.compactionCompleted({ stopReason: "end_turn" });
    expect(skipped.find((delta) => delta.kind === "provider.warning")).toMatchObject({ category: "compaction-skipped", details: "Compaction failed: nothing to compact." });
    expect(skipped.some((delta) => delta.kind === "context.compacted")).toBe(false);
    omp.compactionStarted();
    omp.update(say("compaction failed: model error"));
    expect(last(omp.compactionCompleted({ stopReason: "end_turn" }))).toMatchObject({ status: "failed", error: { message: "compaction failed: model error" } });
    const generic = make();
    generic.compactionStarted();
    generic.update(say("compaction failed"));
    expect(generic.compactionCompleted({ stopReason: "end_turn" }).some((delta) => delta.kind === "context.compacted")).toBe(true);
  });
});

describe("envelopes, approvals, injected tools, activity", () => {
  test("acp/fs/write: a completed fileChange on channel fs-write (add and update)", () => {
    const t = make();
    const [add] = t.fsWrite({ path: "/w/a.txt", oldText: null, newText: "new" }) as AnyRecord[];
    expect(add).toMatchObject({
      kind: "item.close",
      key: { channel: "fs-write" },
      status: "completed",
      item: { type: "fileChange", changes: [{ path: "/w/a.txt", kind: "add", newText: "new" }] },
      noTurnFallback: { rawType: "acp/fs/write" },
    });
    expect((t.fsWrite({ path: "/w/a.txt", oldText: "old", newText: "new" })[0] as AnyRecord).item.changes[0].kind).toBe("update");
    expect(t.warning({ summary: "careful" })).toEqual([{ kind: "provider.warning", summary: "careful", vouchedTurn: true }]);
    expect(t.unhandled("acp/other", { a: 1 })).toEqual([{ kind: "unhandled", raw: { jsonrpc: "2.0", method: "acp/other", params: { a: 1 } }, rawType: "acp/other", vouchedTurn: true }]);
  });

  test("a write made by an edit call known only from its permission request settles with that call: one fileChange (gemini's order)", () => {
    const t = make();
    const diff = { type: "diff", path: "/w/notes.txt", oldText: "status: draft\n", newText: "status: final\n" };
    t.notePermissionToolCall({ toolCallId: "tc-1", status: "pending", title: "notes.txt", kind: "edit", content: [diff], locations: [{ path: "/w/notes.txt" }] });
    expect(t.fsWrite({ path: "/w/notes.txt", oldText: "status: draft\n", newText: "status: final\n" })).toEqual([]);
    const closes = t.update(upd({ status: "completed", kind: "edit", title: "notes.txt", content: [diff] })).filter((d) => d.kind === "item.close") as AnyRecord[];
    expect(closes).toHaveLength(1);
    expect(closes[0]!.item).toMatchObject({ type: "fileChange", changes: [{ path: "/w/notes.txt" }] });
    expect(closes[0]!.item.changes).toHaveLength(1);
  });

  test("a write whose edit call settles while the bridge is still writing is that call's: no second fileChange (opencode's completed update overtaking the bridge's file I/O under load)", () => {
    const t = make();
    const diff = { type: "diff", path: "/w/notes.txt", oldText: "status: draft", newText: "status: final" };
    t.update(upd({ sessionUpdate: "tool_call", status: "pending", kind: "edit", title: "edit", locations: [] }));
    t.notePermissionToolCall({ toolCallId: "tc-1", status: "pending", title: "/w/notes.txt", kind: "edit", locations: [{ path: "/w/notes.txt" }] });
    // fs/write_text_file arrives: its claimant is taken now, before the bridge's awaits.
    const claimant = t.writeClaimant("/w/notes.txt");
    expect(claimant).toBe("tc-1");
    // The agent's completed update is handled while the write is still in flight.
    const closes = t.update(upd({ status: "completed", kind: "edit", title: "notes.txt", content: [diff] })).filter((d) => d.kind === "item.close") as AnyRecord[];
    expect(closes.map((c) => c.item.type)).toEqual(["fileChange"]);
    const write = { path: "/w/notes.txt", oldText: "status: draft\n", newText: "status: final\n" };
    expect(t.fsWrite(write, claimant)).toEqual([]);
    // Without the claimant taken on arrival the late write would be a second, standalone fileChange.
    expect((t.fsWrite(write)[0] as AnyRecord).key).toEqual({ channel: "fs-write" });
  });

  test("a write of /w/notes.txt and the call's own change of notes.txt (relative, qwen's spelling) are one change with the write's absolute path", () => {
    const t = make();
    t.notePermissionToolCall({ toolCallId: "tc-1", status: "pending", title: "notes.txt", kind: "edit", locations: [{ path: "/w/notes.txt" }] });
    t.fsWrite({ path: "/w/notes.txt", oldText: "a\n", newText: "b\n" });
    const close = t
      .update(upd({ status: "completed", kind: "edit", content: [{ type: "diff", path: "notes.txt", oldText: null, newText: undefined }] }))
      .find((d) => d.kind === "item.close") as AnyRecord;
    expect(close.item.changes.map((c: AnyRecord) => c.path)).toEqual(["/w/notes.txt"]);
  });

  test("a write claimed by a permission-only call the agent never reports is still one fileChange when the turn drains", () => {
    const t = make();
    t.turnStarted();
    t.notePermissionToolCall({ toolCallId: "tc-1", status: "pending", title: "notes.txt", kind: "edit", locations: [{ path: "/w/notes.txt" }] });
    expect(t.fsWrite({ path: "/w/notes.txt", oldText: "a", newText: "b" })).toEqual([]);
    const drained = t.turnCompleted("end_turn").filter((d) => d.kind === "item.close") as AnyRecord[];
    const diff = "--- a/w/notes.txt\n+++ b/w/notes.txt\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n";
    expect(drained.map((d) => d.item)).toEqual([{ type: "fileChange", changes: [{ path: "/w/notes.txt", kind: "update", oldText: "a", diff, newText: "b" }] }]);
  });

  test("permission subjects: file change with write scope; in-flight fallback; no tool call", () => {
    const t = make();
    expect(t.permissionSubject({ toolCallId: "e", kind: "edit", title: "Edit", locations: [{ path: "/w/src" }, { path: "/w/src/a.ts" }] })).toEqual({
      kind: "file_change",
      itemId: "e",
      writeScope: "/w/src",
    });
    t.update(call({ toolCallId: "x", kind: "edit", title: "Edit", locations: [{ path: "/w/b.ts" }] }));
    // opencode's external_directory: kind other, attached to the running edit.
    expect(t.permissionSubject({ toolCallId: "x", kind: "other", title: "external_directory" })).toEqual({ kind: "file_change", itemId: "x", writeScope: "/w/b.ts" });
    expect(t.permissionSubject(undefined)).toMatchObject({ kind: "tool_use", itemId: "acp-permission", tool: "tool", presentation: { title: "ACP permission request" } });
    expect(t.permissionSubject({ toolCallId: "w", kind: "fetch", title: "Web Fetch" })).toMatchObject({ kind: "tool_use", itemId: "w", tool: "fetch" });
    expect(writeScopeOf(["/a/b", "/c"])).toBeNull();
  });

  test("injected tools bind by title at open, else to the oldest queued proxied call (spec 20 §3.3)", () => {
    const t = make(genericAcpDialect, [{ name: "AskUserQuestion" }, { name: "open_file" }]);
    const named = last(t.update(call({ toolCallId: "m1", kind: "other", title: "MCP: AskUserQuestion" })));
    expect(named.item).toEqual({ type: "tool", tool: "AskUserQuestion", server: "bb" });
    expect(named.presentation.label).toEqual({ pending: "Running AskUserQuestion", completed: "Ran AskUserQuestion" });
    expect(t.bindInjectedToolCall("AskUserQuestion")).toBe("m1");
    expect(t.bindInjectedToolCall("open_file")).toBeNull();
    expect(last(t.update(call({ toolCallId: "m2", kind: "other", title: "MCP: tool" }))).item).toMatchObject({ tool: "open_file", server: "bb" });
    // A later proxied call binds to an unbound open candidate whose title says MCP.
    t.update(call({ toolCallId: "m3", kind: "other", title: "MCP: tool" }));
    expect(t.bindInjectedToolCall("open_file")).toBe("m3");
    expect(last(t.update(upd({ toolCallId: "m3", status: "completed" }))).item).toMatchObject({ tool: "open_file", server: "bb" });
  });

  test("activity: last update time from the injected clock, open tools, turn output", () => {
    let now = 100;
    const t = createAcpTranslator({ threadId: "thr", dialect: genericAcpDialect, now: () => now });
    expect(t.activity()).toEqual({ openToolCount: 0, lastUpdateAt: null, turnOutputSeen: false });
    now = 250;
    t.update(call({ kind: "other" }));
    expect(t.activity()).toEqual({ openToolCount: 1, lastUpdateAt: 250, turnOutputSeen: true });
    expect(isTurnOutputUpdate({ sessionUpdate: "plan", entries: [] })).toBe(true);
    expect(isTurnOutputUpdate({ sessionUpdate: "usage_update", used: 1, size: 2 })).toBe(false);
  });

  test("restore keeps only the last usage_update, replayed after the snapshot (spec 20 §8.4, kept by 30 §6.3)", () => {
    const t = make();
    t.restoreUpdate({ sessionUpdate: "usage_update", used: 10, size: 100 });
    t.restoreUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "old reply" } });
    t.restoreUpdate({ sessionUpdate: "usage_update", used: 20, size: 100 });
    t.restoreUpdate({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "review" }] });
    expect(t.sessionSetup({}, { restored: true })).toEqual([{ kind: "extension.state", extensionKind: "bb/provider-commands", payload: { commands: [{ name: "review" }] } }]);
    expect(t.restoreSettled()).toEqual([{ kind: "contextWindow", used: 20, size: 100, estimated: false, attach: "open" }]);
    expect(t.restoreSettled()).toEqual([]);
    expect(t.activity().lastUpdateAt).toBeNull();
  });

  test("grok context window: size from the session models, 0 on a fresh session, used from prompt results (spec 30 §1.4)", () => {
    const t = make(grokAcpDialect);
    const setup = {
      sessionId: "s",
      models: {
        currentModelId: "b",
        availableModels: [
          { modelId: "a", _meta: { totalContextTokens: 1 } },
          { modelId: "b", _meta: { totalContextTokens: 256000 } },
        ],
      },
    };
    expect(t.sessionSetup(setup, { restored: false })).toEqual([{ kind: "contextWindow", used: 0, size: 256000, estimated: false, attach: "open" }]);
    expect(t.promptResult({ stopReason: "end_turn", _meta: { usage: { inputTokens: 900, totalTokens: 1000 } } })).toEqual([
      { kind: "contextWindow", used: 900, size: 256000, estimated: false, attach: "open" },
    ]);
    expect(t.promptResult({ stopReason: "end_turn", _meta: { totalTokens: 77 } })).toEqual([expect.objectContaining({ used: 77 })]);
    expect(make(grokAcpDialect).sessionSetup(setup, { restored: true })).toEqual([]);
    expect(make().promptResult({ _meta: { inputTokens: 5 } })).toEqual([]);
  });

  test("the translator reads vendor behaviour only through dialect hooks: a custom dialect's contextWindow, compactionOutcome and opensUnfilledToolCalls act as grok's, omp's and cursor's do", () => {
    const custom: AcpDialect = {
      id: "custom-hooks",
      contextWindow: { sizeFromSetup: (result) => (result as AnyRecord).size, usedFromPromptResult: (result) => (result as AnyRecord).used },
      compactionOutcome: (text) => (text.includes("skip") ? { status: "skipped", detail: text } : { status: "completed" }),
      opensUnfilledToolCalls: true,
    };
    const t = make(custom);
    expect(t.sessionSetup({ sessionId: "s", size: 4096 }, { restored: false })).toEqual([{ kind: "contextWindow", used: 0, size: 4096, estimated: false, attach: "open" }]);
    expect(t.promptResult({ stopReason: "end_turn", used: 12 })).toEqual([{ kind: "contextWindow", used: 12, size: 4096, estimated: false, attach: "open" }]);
    t.compactionStarted();
    t.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "skip it" } });
    expect(t.compactionCompleted({ stopReason: "end_turn" }).find((delta) => delta.kind === "provider.warning")).toMatchObject({ category: "compaction-skipped", details: "skip it" });
    // An edit call without its fields: the generic dialect waits for them, the hook opens at once.
    const unfilled = call({ kind: "edit", title: "Edit File" });
    expect(
      make(custom)
        .update(unfilled)
        .some((delta) => delta.kind === "item.open"),
    ).toBe(true);
    expect(
      make()
        .update(unfilled)
        .some((delta) => delta.kind === "item.open"),
    ).toBe(false);
  });

  test("every delta the inline scenarios produce is valid grammar v3", () => {
    const t = make();
    const all = [
      ...t.turnStarted(),
      ...t.update(call({ kind: "execute", rawInput: { command: "ls" } })),
      ...t.update({ sessionUpdate: "plan", entries: [{ content: "s", status: "weird" }] }),
      ...t.fsWrite({ path: "/w/x", oldText: null, newText: "" }),
      ...t.turnCompleted("end_turn"),
      ...t.compactionStarted(),
      ...t.compactionCompleted({ stopReason: "cancelled" }),
    ];
    for (const delta of all) expect(ThreadDeltaSchema.safeParse(delta).success).toBe(true);
  });
});
