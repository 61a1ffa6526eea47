/**
 * ACP dialects (spec 30 §1): registry, selection, and each built-in dialect answering its hooks
 * from project-written side-channel messages (the cursor Task/cursor/task real lines are covered
 * in translate-rows.test.ts).
 */
import { describe, expect, test } from "vitest";
import {
  AcpDialectError,
  createAcpDialectRegistry,
  cursorAcpDialect,
  defaultAcpDialectRegistry,
  genericAcpDialect,
  grokAcpDialect,
  handleCursorTask,
  normalizeOpencodeCommandEvent,
  OPENCODE_CHILD_ENV,
  ompAcpDialect,
  ompCommandResult,
  ompCompactionOutcome,
  opencodeAcpDialect,
  registerAcpDialect,
  resolveAcpDialect,
  selectAcpDialect,
} from "../../stack/acp/dialects/index.js";
import type { AcpDialect, AcpToolCallEvent } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";

type AnyRecord = Record<string, any>;

function translator(dialect: AcpDialect) {
  return createAcpTranslator({ threadId: "thr_dialect", dialect, now: () => 0 });
}
const last = (deltas: unknown[]) => deltas.at(-1) as AnyRecord;

describe("registry (spec 30 §1.2)", () => {
  test("holds the six built-ins", () => {
    expect(createAcpDialectRegistry().ids()).toEqual(["acp", "cursor", "grok", "omp", "opencode", "pi"]);
  });

  test("blank, built-in and duplicate ids are rejected with typed errors", () => {
    const registry = createAcpDialectRegistry();
    expect(() => registry.register({ id: "  " })).toThrow(new AcpDialectError("E_ACP_DIALECT_ID_BLANK", "An ACP dialect needs a non-empty id."));
    expect(() => registry.register({ id: "acp" })).toThrow('ACP dialect id "acp" is reserved by a built-in dialect.');
    expect(() => registry.register({ id: "cursor" })).toThrow(AcpDialectError);
    const mine: AcpDialect = { id: "hermes-x" };
    registry.register(mine);
    expect(registry.get("hermes-x")).toBe(mine);
    try {
      registry.register({ id: "hermes-x" });
      expect.unreachable();
    } catch (error) {
      expect((error as AcpDialectError).code).toBe("E_ACP_DIALECT_DUPLICATE");
    }
    const replacement: AcpDialect = { id: "hermes-x" };
    registry.register(replacement, { replace: true });
    expect(registry.get("hermes-x")).toBe(replacement);
  });

  test("the public registerAcpDialect fills the default registry used by selection", () => {
    const custom: AcpDialect = { id: `test-public-${process.pid}` };
    registerAcpDialect(custom);
    expect(defaultAcpDialectRegistry.get(custom.id)).toBe(custom);
    expect(selectAcpDialect({ explicit: custom.id, command: "cursor-agent" })).toBe(custom);
  });
});

describe("selection (spec 30 §1.2)", () => {
  const registry = createAcpDialectRegistry();
  test.each([
    ["cursor-agent", "cursor"],
    ["/usr/local/bin/opencode", "opencode"],
    ["grok", "grok"],
    ["omp", "omp"],
    ["/repo/agents/node_modules/.bin/pi-acp", "pi"],
    ["pi", "acp"],
    ["hermes", "acp"],
    ["opencode.exe", "acp"],
    ["Cursor-Agent", "acp"],
  ])("command %s → %s", (command, id) => {
    expect(selectAcpDialect({ command }, registry).id).toBe(id);
  });

  test("an explicit id wins; an unknown explicit id is generic without consulting the command", () => {
    expect(selectAcpDialect({ explicit: "omp", command: "cursor-agent" }, registry).id).toBe("omp");
    expect(selectAcpDialect({ explicit: "generic", command: "cursor-agent" }, registry)).toBe(genericAcpDialect);
    expect(selectAcpDialect({ explicit: "", command: "grok" }, registry).id).toBe("grok");
    expect(selectAcpDialect({ explicit: null, command: "grok" }, registry).id).toBe("grok");
    expect(resolveAcpDialect({ dialectId: "cursor", command: "opencode" }, registry).id).toBe("cursor");
  });
});

describe("cursor (spec 30 §1.3)", () => {
  test("cursor/task: always {}; a report only with valid params and a label", () => {
    expect(handleCursorTask({})).toEqual({ result: {} });
    expect(handleCursorTask({ toolCallId: "t1" })).toEqual({ result: {} });
    expect(handleCursorTask({ toolCallId: "t1", prompt: "do it", subagentType: { x: 1 } })).toEqual({
      result: {},
      delegation: { toolCallId: "t1", childRef: "t1", label: "do it" },
    });
    expect(cursorAcpDialect.clientRequestMethods).toEqual(["cursor/task"]);
    expect(cursorAcpDialect.handleClientRequest?.("cursor/other", {})).toBeUndefined();
  });

  test("a report does nothing unless the call is open and a delegation", () => {
    const t = translator(cursorAcpDialect);
    t.update({ sessionUpdate: "tool_call", toolCallId: "plain", kind: "other", title: "Other", status: "pending", rawInput: {} });
    expect(t.delegationReport({ toolCallId: "plain", childRef: "c", label: "L" })).toEqual([]);
    expect(t.delegationReport({ toolCallId: "unknown", childRef: "c", label: "L" })).toEqual([]);
  });

  test("a Task call without a title is labelled `Subagent task`", () => {
    const open = last(translator(cursorAcpDialect).update({ sessionUpdate: "tool_call", toolCallId: "t", kind: "other", status: "pending", rawInput: { _toolName: "task" } }));
    expect(open.item).toEqual({ type: "delegation", childRef: "t", label: "Subagent task", background: false });
  });
});

describe("grok (spec 30 §1.4)", () => {
  const base = { sessionUpdate: "tool_call", toolCallId: "g1", status: "pending" };

  test("x.ai/tool identity fills an unset kind and names the tool; an invalid kind is dropped", () => {
    const t = translator(grokAcpDialect);
    const open = last(t.update({ ...base, title: "ls -la", rawInput: { command: "ls -la" }, _meta: { "x.ai/tool": { name: "bash", kind: "execute", version: 2 } } }));
    expect(open.item).toEqual({ type: "command", command: "ls -la", cwd: "" });
    const named = last(t.update({ ...base, toolCallId: "g2", title: "Deploy", _meta: { "x.ai/tool": { name: "deploy_app", kind: "deploy" } } }));
    expect(named.item).toMatchObject({ type: "tool", tool: "deploy_app" });
    expect(grokAcpDialect.toolIdentity?.({ toolCallId: "x", _meta: { "other/tool": { name: "n" } } })).toBeUndefined();
    expect(grokAcpDialect.toolIdentity?.({ toolCallId: "x", _meta: { "x.ai/tool": { name: "", kind: "nope" } } })).toBeUndefined();
  });

  test("protocol values win over the side channel", () => {
    const open = last(translator(grokAcpDialect).update({ ...base, kind: "read", title: "Read", locations: [{ path: "/w/a" }], _meta: { "x.ai/tool": { kind: "execute" } } }));
    expect(open.item).toEqual({ type: "fileRead", path: "/w/a" });
  });

  test("spawn_subagent → delegation labelled from rawInput, detail = subagent_type", () => {
    const open = last(
      translator(grokAcpDialect).update({
        ...base,
        title: "Spawn",
        rawInput: { prompt: "inspect", subagent_type: "explorer" },
        _meta: { "x.ai/tool": { name: "spawn_subagent" } },
      }),
    );
    expect(open.item).toEqual({ type: "delegation", childRef: "g1", label: "inspect", background: false });
    expect(open.presentation).toMatchObject({ title: "inspect", detail: "explorer", icon: { glyph: "UserRound" } });
  });
});

describe("omp (spec 30 §1.5)", () => {
  const event = (rawOutput: unknown, extra: Partial<AcpToolCallEvent> = {}): AcpToolCallEvent => ({
    toolCallId: "o1",
    kind: "execute",
    status: "completed",
    rawInput: { command: "npm test" },
    rawOutput,
    ...extra,
  });

  test("details.exitCode and text content; trailers stripped only when they match", () => {
    const result = ompCommandResult(
      event({
        content: [
          { type: "text", text: "ok\n\nCommand exited with code 2" },
          { type: "text", text: "Wall time: 1.50 seconds" },
        ],
        details: { exitCode: 2, wallTimeMs: 1500 },
      }),
    );
    expect(result).toEqual({ output: "ok", exitCode: 2 });
    const mismatch = ompCommandResult(event({ content: [{ type: "text", text: "Command exited with code 9" }], details: { exitCode: 1 } }));
    expect(mismatch).toEqual({ output: "Command exited with code 9", exitCode: 1 });
    expect(ompCommandResult(event({ content: [{ type: "text", text: "done" }], details: { wallTimeMs: 10 } }))).toEqual({ output: "done", exitCode: 0 });
  });

  test("steps aside for shared keys, async runs, non-execute calls and missing details", () => {
    expect(ompCommandResult(event({ content: [], details: { exitCode: 0 }, stdout: "x" }))).toBeUndefined();
    expect(ompCommandResult(event({ content: [], details: { exitCode: 0, async: true } }))).toBeUndefined();
    expect(ompCommandResult(event({ content: [], details: { exitCode: 0 } }, { kind: "read" }))).toBeUndefined();
    expect(ompCommandResult(event({ content: [] }))).toBeUndefined();
    expect(ompCommandResult(event({ content: [], details: { exitCode: 0 } }, { rawInput: { command: "  " } }))).toBeUndefined();
  });

  test("the translator closes omp commands through the dialect", () => {
    const t = translator(ompAcpDialect);
    t.update({ sessionUpdate: "tool_call", toolCallId: "o1", kind: "execute", status: "pending", rawInput: { command: "make" } });
    const close = last(
      t.update({
        sessionUpdate: "tool_call_update",
        toolCallId: "o1",
        status: "completed",
        rawOutput: { content: [{ type: "text", text: "built\nCommand exited with code 0" }], details: { exitCode: 0 } },
      }),
    );
    expect(close).toMatchObject({ resultText: "built", exitCode: 0 });
  });

  test("compaction outcome", () => {
    expect(ompCompactionOutcome("Compacted 12 messages")).toEqual({ status: "completed" });
    expect(ompCompactionOutcome("Compaction failed: already compacted")).toMatchObject({ status: "skipped" });
    expect(ompCompactionOutcome("Compaction failed: timeout")).toMatchObject({ status: "failed" });
    expect(ompAcpDialect.maintenance).toBeUndefined();
  });
});

describe("opencode (spec 30 §1.6)", () => {
  test("output/metadata.exit become stdout/exitCode; shared keys are never overwritten", () => {
    const event: AcpToolCallEvent = { toolCallId: "c", kind: "execute", rawOutput: { output: "hello\n", metadata: { exit: 4 } } };
    expect(normalizeOpencodeCommandEvent(event)?.rawOutput).toEqual({ output: "hello\n", metadata: { exit: 4 }, stdout: "hello\n", exitCode: 4 });
    expect(normalizeOpencodeCommandEvent({ ...event, rawOutput: { metadata: { output: "m", exit: 0 }, stdout: "s", exitCode: 1 } })).toBeUndefined();
    expect(normalizeOpencodeCommandEvent({ ...event, rawOutput: "text" })).toBeUndefined();
    expect(OPENCODE_CHILD_ENV).toEqual({ OPENCODE_CLIENT: "acp", OPENCODE_ENABLE_QUESTION_TOOL: "false" });
  });

  test("the translator reads opencode bash results through normalizeCommandEvent", () => {
    const t = translator(opencodeAcpDialect);
    t.update({ sessionUpdate: "tool_call", toolCallId: "b", kind: "execute", status: "pending", rawInput: { command: "false" } });
    const close = last(t.update({ sessionUpdate: "tool_call_update", toolCallId: "b", status: "completed", rawOutput: { output: "nope", metadata: { exit: 1 } } }));
    expect(close).toMatchObject({ resultText: "nope", exitCode: 1 });
  });

  test("Task as kind think with subagent_type → delegation; childRef from metadata.sessionId at close", () => {
    const t = translator(opencodeAcpDialect);
    const open = last(
      t.update({
        sessionUpdate: "tool_call",
        toolCallId: "task1",
        kind: "think",
        title: "task",
        status: "pending",
        rawInput: { description: "Find callers", subagent_type: "general", prompt: "p", background: true },
      }),
    );
    expect(open.item).toEqual({ type: "delegation", childRef: "task1", label: "Find callers", background: true });
    expect(open.presentation.detail).toBe("general");
    const close = last(t.update({ sessionUpdate: "tool_call_update", toolCallId: "task1", status: "completed", rawOutput: { metadata: { sessionId: "ses_child" } } }));
    expect(close.item.childRef).toBe("ses_child");
    const plain = last(t.update({ sessionUpdate: "tool_call", toolCallId: "th", kind: "think", status: "pending", rawInput: { thought: "hmm" } }));
    expect(plain.item).toEqual({ type: "reasoning", summary: [], content: ["hmm"] });
  });
});
