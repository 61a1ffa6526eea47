/**
 * One test per row of the translation table (spec 20 §3.2 as changed by spec 30) that the real
 * acp-cursor recordings contain, each fed the REAL line read from ../shared at test time.
 */
import { describe, expect, test } from "vitest";
import { cursorAcpDialect } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";
import { haveCursorRecordings, providerUpdates, readLane } from "./translate-recording-driver.js";

type AnyRecord = Record<string, any>;

const THREAD_ID = "thr_test";

function translator() {
  let clock = 1_000;
  return createAcpTranslator({ threadId: THREAD_ID, dialect: cursorAcpDialect, now: () => (clock += 10) });
}

function envelope(update: AnyRecord) {
  return { jsonrpc: "2.0", method: "acp/update", params: { threadId: THREAD_ID, update } };
}

function find(cell: string, predicate: (update: AnyRecord) => boolean): AnyRecord {
  const update = providerUpdates(cell).find(predicate);
  if (update === undefined) throw new Error(`${cell}: no such update in the recording`);
  return update;
}

function updatesOf(cell: string, toolCallId: string): AnyRecord[] {
  return providerUpdates(cell).filter((update) => update.toolCallId === toolCallId);
}

const THOUGHT_CLOSE = { kind: "item.textClose", key: { channel: "thought" }, channel: "reasoningText" };
const ASSISTANT_CLOSE = { kind: "item.textClose", key: { channel: "assistant" }, channel: "agentMessage" };

describe.skipIf(!haveCursorRecordings())("translation rows on real acp-cursor lines", () => {
  test("agent_message_chunk: the thought stream closes before EVERY chunk (spec 20 §8.8)", () => {
    const t = translator();
    const chunks = providerUpdates("turn-tools")
      .filter((update) => update.sessionUpdate === "agent_message_chunk")
      .slice(0, 2);
    for (const chunk of chunks) {
      expect(t.update(chunk)).toEqual([
        THOUGHT_CLOSE,
        {
          kind: "item.textDelta",
          key: { channel: "assistant" },
          channel: "agentMessage",
          text: chunk.content.text,
          noTurnFallback: { raw: envelope(chunk), rawType: "acp/update:agent_message_chunk" },
        },
      ]);
    }
  });

  test("agent_thought_chunk: a reasoningText delta, no stream close", () => {
    const chunk = find("turn-tools", (update) => update.sessionUpdate === "agent_thought_chunk");
    expect(translator().update(chunk)).toEqual([
      {
        kind: "item.textDelta",
        key: { channel: "thought" },
        channel: "reasoningText",
        text: chunk.content.text,
        noTurnFallback: { raw: envelope(chunk), rawType: "acp/update:agent_thought_chunk" },
      },
    ]);
  });

  test("user_message_chunk and session_info_update are noise: nothing", () => {
    const t = translator();
    expect(t.update(find("resume", (update) => update.sessionUpdate === "user_message_chunk"))).toEqual([]);
    expect(t.update(find("turn-tools", (update) => update.sessionUpdate === "session_info_update"))).toEqual([]);
  });

  test("available_commands_update: extension.state bb/provider-commands, deduplicated (spec 30 §6.3)", () => {
    const t = translator();
    const update = find("turn-tools", (candidate) => candidate.sessionUpdate === "available_commands_update");
    expect(t.update(update)).toEqual([{ kind: "extension.state", extensionKind: "bb/provider-commands", payload: { commands: update.availableCommands } }]);
    expect(t.update(update)).toEqual([]);
  });

  test("tool_call execute: both streams close, then a command item from rawInput.command; title without backticks", () => {
    const call = find("approval-allow", (update) => update.sessionUpdate === "tool_call");
    const deltas = translator().update(call);
    expect(deltas).toEqual([
      THOUGHT_CLOSE,
      ASSISTANT_CLOSE,
      {
        kind: "item.open",
        key: { providerItemId: call.toolCallId },
        item: { type: "command", command: call.rawInput.command, cwd: "" },
        presentation: {
          label: { pending: "Running command", completed: "Ran command" },
          icon: { glyph: "Terminal" },
          title: call.title.slice(1, -1),
        },
        noTurnFallback: { raw: envelope(call), rawType: "acp/update:tool_call" },
      },
    ]);
  });

  test("tool_call_update in_progress without content: suppressed unhandled, no stream closes (spec 20 §8.8)", () => {
    const t = translator();
    const call = find("approval-allow", (update) => update.sessionUpdate === "tool_call");
    t.update(call);
    const progress = updatesOf("approval-allow", call.toolCallId).find((update) => update.status === "in_progress") as AnyRecord;
    expect(t.update(progress)).toEqual([{ kind: "unhandled", raw: envelope(progress), rawType: "acp/update:tool_call_update", vouchedTurn: false, onlyIfNoTurn: true }]);
  });

  test("tool_call_update completed: one close of the merged call, exit code as reported, nothing flushed", () => {
    const t = translator();
    const call = find("turn-tools", (update) => update.sessionUpdate === "tool_call" && update.kind === "execute");
    t.update(call);
    const done = updatesOf("turn-tools", call.toolCallId).find((update) => update.status === "completed") as AnyRecord;
    const deltas = t.update(done);
    expect(deltas).toHaveLength(1);
    expect(deltas[0]).toMatchObject({
      kind: "item.close",
      key: { providerItemId: call.toolCallId },
      status: "completed",
      exitCode: done.rawOutput.exitCode,
      resultText: done.rawOutput.stdout,
      item: { type: "command", command: call.rawInput.command, cwd: "" },
      noTurnFallback: { rawType: "acp/update:tool_call_update" },
    });
    // Settled: the turn end drains nothing more.
    expect(t.turnCompleted("end_turn").filter((delta) => delta.kind === "item.close")).toEqual([]);
  });

  test("tool_call read without a path: generic tool `read` carrying args; close carries result (spec 30 §1.1)", () => {
    const t = translator();
    const call = find("turn-tools", (update) => update.sessionUpdate === "tool_call" && update.kind === "read");
    // The call names no file: the dialect waits for fields that never come, and the call opens at its close (issue 37).
    expect(t.update(call).filter((delta) => (delta as AnyRecord).kind === "item.open")).toEqual([]);
    const done = updatesOf("turn-tools", call.toolCallId).find((update) => update.status === "completed") as AnyRecord;
    const deltas = t.update(done) as AnyRecord[];
    const open = deltas.find((delta) => delta.kind === "item.open")!;
    expect(open.item).toEqual({ type: "tool", tool: "read", args: call.rawInput });
    expect(open.presentation).toEqual({ label: { pending: "Reading file", completed: "Read file" }, icon: { glyph: "FileText" }, title: call.title });
    const close = deltas.find((delta) => delta.kind === "item.close")!;
    expect(close.item).toEqual({ type: "tool", tool: "read", args: call.rawInput, result: done.rawOutput });
  });

  test("cursor Task tool_call: delegation with the title as label (spec 30 §1.3)", () => {
    const call = find("subagent", (update) => update.sessionUpdate === "tool_call");
    const open = translator().update(call).at(-1) as AnyRecord;
    expect(open.item).toEqual({ type: "delegation", childRef: call.toolCallId, label: call.title, background: false });
    expect(open.presentation.icon.glyph).toBe("UserRound");
  });

  test("cursor/task while the Task call is still open re-opens it with the report (spec 30 §1.3)", () => {
    const t = translator();
    const call = find("subagent", (update) => update.sessionUpdate === "tool_call");
    t.update(call);
    const request = readLane("subagent", "provider→bridge.ndjson").find((line) => line.message.method === "cursor/task")?.message as AnyRecord;
    const outcome = cursorAcpDialect.handleClientRequest?.(request.method, request.params);
    expect(outcome?.result).toEqual({});
    const reopened = t.delegationReport(outcome!.delegation!);
    expect(reopened).toEqual([
      {
        kind: "item.open",
        key: { providerItemId: call.toolCallId },
        item: { type: "delegation", childRef: request.params.agentId, label: request.params.description, background: false },
        presentation: {
          label: { pending: "Running subagent", completed: "Subagent finished" },
          icon: { glyph: "UserRound" },
          title: request.params.description,
          detail: `model ${request.params.model}`,
        },
      },
    ]);
    // The later close keeps the reported childRef and label.
    const done = updatesOf("subagent", call.toolCallId).find((update) => update.status === "completed") as AnyRecord;
    expect((t.update(done)[0] as AnyRecord).item.childRef).toBe(request.params.agentId);
  });

  test("session/prompt result `cancelled`: the open command drains interrupted before turn.boundary interrupted", () => {
    const t = translator();
    t.turnStarted();
    const call = find("stop-interrupt", (update) => update.sessionUpdate === "tool_call");
    t.update(call);
    const deltas = t.turnCompleted("cancelled");
    expect(deltas).toEqual([
      THOUGHT_CLOSE,
      ASSISTANT_CLOSE,
      {
        kind: "item.close",
        key: { providerItemId: call.toolCallId },
        status: "interrupted",
        item: { type: "command", command: call.rawInput.command, cwd: "" },
        presentation: { label: { pending: "Running command", completed: "Ran command" }, icon: { glyph: "Terminal" }, title: call.rawInput.command },
      },
      { kind: "turn.boundary", status: "interrupted", claimIfIdle: true },
    ]);
  });

  test("restore updates (session/load replay) feed only the session state, never the timeline (spec 30 §6.3)", () => {
    const t = translator();
    const replay = readLane("resume", "provider→bridge.ndjson").filter((line) => line.message.method === "session/update");
    for (const line of replay) t.restoreUpdate(line.message.params.update);
    const settled = t.restoreSettled();
    const commands = replay.map((line) => line.message.params.update).find((update) => update.sessionUpdate === "available_commands_update");
    expect(settled).toEqual([{ kind: "extension.state", extensionKind: "bb/provider-commands", payload: { commands: commands.availableCommands } }]);
    expect(t.activity().turnOutputSeen).toBe(false);
  });
});
