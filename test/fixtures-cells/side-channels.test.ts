/**
 * Each dialect's side channel (spec 30 §1.3–1.5, §1.7) is present in its fixture recording's
 * provider lane and produces the expected thread events in the committed oracle.
 */
import { describe, expect, it } from "vitest";
import { agentUpdates, completedItems, fixtureCell, laneMessages } from "./committed.js";

describe("cursor (spec 30 §1.3): _toolName task and cursor/task", async () => {
  const c = await fixtureCell("acp-cursor", "subagent");
  const fromAgent = laneMessages(c.recording, "provider→bridge");
  const toAgent = laneMessages(c.recording, "bridge→provider");
  const taskRequests = fromAgent.filter((m) => m.method === "cursor/task");

  it('the agent lane has Task tool calls marked rawInput._toolName "task" and two cursor/task requests', () => {
    const tasks = agentUpdates(c.recording).filter((u) => u.sessionUpdate === "tool_call" && u.rawInput?._toolName === "task");
    expect(tasks.map((u) => u.toolCallId)).toEqual(["fx-cursor-task-1", "fx-cursor-task-2"]);
    expect(taskRequests.map((m) => m.params.toolCallId)).toEqual(["fx-cursor-task-1", "fx-cursor-task-2"]);
  });

  it("the bridge acknowledges every cursor/task with {} (the older bridge answered -32601)", () => {
    for (const request of taskRequests) {
      const reply = toAgent.find((m) => m.id === request.id && m.method === undefined);
      expect(reply).toMatchObject({ result: {} });
      expect(reply?.error).toBeUndefined();
    }
  });

  it("each task becomes a delegation item; a report while open re-opens it with childRef, label and model detail", () => {
    const delegations = completedItems(c.oracle, "delegation");
    expect(delegations).toHaveLength(2);
    expect(delegations[0]).toMatchObject({
      childRef: "fx-cursor-agent-1",
      label: "List the working directory",
      status: "completed",
      background: false,
      presentation: { label: { pending: "Running subagent", completed: "Subagent finished" }, icon: { glyph: "UserRound" }, detail: "model composer-fixture" },
    });
    const first = c.oracle.filter((e) => e.type === "item/started" && e.item.id === delegations[0]!.id);
    expect(first.map((e) => [e.item.childRef, e.item.label])).toEqual([
      ["fx-cursor-task-1", "List files"],
      ["fx-cursor-agent-1", "List the working directory"],
    ]);
  });

  it("a report after its call settled (Cursor's own order) changes nothing", () => {
    const second = completedItems(c.oracle, "delegation")[1]!;
    expect(second).toMatchObject({ childRef: "fx-cursor-task-2", label: "Check the notes owner", status: "completed" });
    expect(second.presentation.detail).toBeUndefined();
    expect(c.oracle.filter((e) => e.type === "item/started" && e.item.id === second.id)).toHaveLength(1);
  });

  it("turn-tools: exit code and output come from rawOutput.exitCode/stdout; the recorded bridge lane keeps the old Edit File dual settle (its one grammar drop), today's bridge opens it once as a fileChange", async () => {
    const t = await fixtureCell("acp-cursor", "turn-tools");
    expect(completedItems(t.oracle, "commandExecution")).toEqual([expect.objectContaining({ exitCode: 0, aggregatedOutput: "3 notes.txt\n", status: "completed" })]);
    const { buildThreadLane } = await import("../../harness/lanes/index.js");
    expect(buildThreadLane(t.recording, { useCurrent: false }).grammarDrops.map((d) => d.rule)).toEqual(["item/settles-once"]);
    expect(buildThreadLane(t.recording, { useCurrent: true }).grammarDrops).toEqual([]);
    expect(completedItems(t.oracle, "fileChange")).toHaveLength(1);
  });
});

describe('grok (spec 30 §1.4): _meta["x.ai/tool"], spawn_subagent and context accounting', async () => {
  const t = await fixtureCell("acp-grok", "turn-tools");
  const s = await fixtureCell("acp-grok", "subagent");

  it("the agent's tool calls carry no protocol kind, only the x.ai/tool identity", () => {
    const calls = agentUpdates(t.recording).filter((u) => u.sessionUpdate === "tool_call");
    expect(calls.length).toBe(4);
    for (const call of calls) {
      expect(call.kind).toBeUndefined();
      expect(typeof call._meta["x.ai/tool"].name).toBe("string");
    }
  });

  it("identity kinds drive classification: read → fileRead, edit → fileChange, execute → commandExecution", () => {
    expect(completedItems(t.oracle, "fileRead")).toEqual([expect.objectContaining({ path: "/tmp/parity-workspace/notes.txt" })]);
    expect(completedItems(t.oracle, "fileChange")).toEqual([expect.objectContaining({ status: "completed" })]);
    expect(completedItems(t.oracle, "commandExecution")).toEqual([expect.objectContaining({ command: "wc -l notes.txt", exitCode: 0, aggregatedOutput: "3 notes.txt\n" })]);
  });

  it("a kind that is not an ACP kind (plan) is dropped: todo_write stays a generic tool named by its identity", () => {
    expect(completedItems(t.oracle, "toolCall")).toEqual([expect.objectContaining({ tool: "todo_write", status: "completed", result: { ok: true } })]);
  });

  it("spawn_subagent becomes a delegation labelled by rawInput.description with subagent_type as detail", () => {
    const spawn = agentUpdates(s.recording).find((u) => u._meta?.["x.ai/tool"]?.name === "spawn_subagent");
    expect(spawn?.rawInput.subagent_type).toBe("explorer");
    expect(completedItems(s.oracle, "delegation")).toEqual([
      expect.objectContaining({ childRef: "fx-grok-spawn-1", label: "List the working directory", status: "completed", presentation: expect.objectContaining({ detail: "explorer" }) }),
    ]);
  });

  it.each([
    ["turn-tools", t, 18432],
    ["subagent", s, 9120],
  ] as const)("%s: context window = session model totalContextTokens, used 0 when fresh, then the prompt result's usage.inputTokens", (_cell, c, used) => {
    const results = laneMessages(c.recording, "provider→bridge").filter((m) => m.result !== undefined);
    expect(results.some((m) => m.result.models?.availableModels?.[0]?._meta?.totalContextTokens === 256000)).toBe(true);
    expect(results.some((m) => m.result.stopReason === "end_turn" && m.result._meta?.usage?.inputTokens === used)).toBe(true);
    const windows = c.oracle.filter((e) => e.type === "thread/contextWindowUsage/updated").map((e) => e.contextWindowUsage);
    expect(windows).toEqual([
      { usedTokens: 0, modelContextWindow: 256000, estimated: false },
      { usedTokens: used, modelContextWindow: 256000, estimated: false },
    ]);
  });
});

describe("omp (spec 30 §1.5): bash rawOutput.details", async () => {
  const t = await fixtureCell("acp-omp-fixture", "turn-tools");

  it("the agent's finished execute results carry content text and details {timeoutSeconds, wallTimeMs}, exitCode only on failure, none of the generic keys", () => {
    const done = agentUpdates(t.recording).filter(
      (u) => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed") && u.rawOutput?.details?.wallTimeMs !== undefined,
    );
    expect(done.map((u) => [u.status, u.rawOutput.details.exitCode, u.rawOutput.isError])).toEqual([
      ["completed", undefined, undefined],
      ["failed", 1, true],
    ]);
    for (const u of done) for (const key of ["exitCode", "exit_code", "stdout", "stderr"]) expect(u.rawOutput[key]).toBeUndefined();
    expect(done[0]!.rawOutput.content[0].text).toContain("Wall time: 0.01 seconds");
    expect(done[1]!.rawOutput.content[0].text).toContain("Command exited with code 1");
  });

  it("exit codes come from details; the wall-time and exit-code trailers are stripped from the output", () => {
    const commands = completedItems(t.oracle, "commandExecution");
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatchObject({ command: "wc -l notes.txt", exitCode: 0, aggregatedOutput: "3 notes.txt\n", status: "completed" });
    expect(commands[1]).toMatchObject({ command: "grep -q draft notes.txt", exitCode: 1, status: "failed" });
    expect(commands[1]!.aggregatedOutput ?? "").not.toContain("Command exited");
  });

  it("subagent: omp has no delegation side channel, so its task tool is a generic tool with args and result", async () => {
    const s = await fixtureCell("acp-omp-fixture", "subagent");
    expect(completedItems(s.oracle, "delegation")).toEqual([]);
    expect(completedItems(s.oracle, "toolCall")).toEqual([expect.objectContaining({ tool: "other", arguments: expect.objectContaining({ agent: "explore" }), status: "completed" })]);
  });
});

describe("hermes (spec 30 §1.7, §2.1): the generic acp dialect", async () => {
  const t = await fixtureCell("acp-hermes-agent", "turn-tools");
  const s = await fixtureCell("acp-hermes-agent", "subagent");

  it("vendor markers other dialects read (_toolName task, x.ai/tool spawn_subagent) are not interpreted: no delegation", () => {
    const marked = agentUpdates(s.recording).find((u) => u.sessionUpdate === "tool_call");
    expect(marked?.rawInput._toolName).toBe("task");
    expect(marked?._meta["x.ai/tool"].name).toBe("spawn_subagent");
    expect(completedItems(s.oracle, "delegation")).toEqual([]);
    expect(completedItems(s.oracle, "toolCall")).toEqual([expect.objectContaining({ tool: "other", result: { summary: "notes.txt", iterations: 2 } })]);
  });

  it("the shared result reader takes rawOutput.exit_code and stdout", () => {
    expect(completedItems(t.oracle, "commandExecution")).toEqual([expect.objectContaining({ exitCode: 0, aggregatedOutput: "3 notes.txt\n" })]);
  });

  it("its native reasoning option (reasoning_effort) is published as bb/session-options state", () => {
    for (const c of [t, s]) {
      const state = c.oracle.find((e) => e.type === "thread/extensionState/updated" && e.kind === "bb/session-options");
      expect(state?.payload.configOptions).toEqual([expect.objectContaining({ name: "Reasoning effort", category: "thought_level", currentValue: "medium" })]);
    }
  });
});
