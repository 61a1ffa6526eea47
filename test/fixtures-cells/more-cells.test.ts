/**
 * The fixture cells beyond turn-tools/subagent: Cursor's permission shape, an ACP elicitation
 * (a cell opencode cannot record here), grok's web tools by identity kind, an interrupt, a
 * release + resume, and a zero-output turn. Each is checked in its provider lanes and oracle.
 */
import { describe, expect, it } from "vitest";
import { agentUpdates, completedItems, fixtureCell, laneMessages, type FixtureCell } from "./committed.js";

const reply = (c: FixtureCell, direction: "bridge→provider" | "runtime→bridge", id: number | string | undefined) =>
  laneMessages(c.recording, direction).find((m) => m.id === id && m.method === undefined);

describe("acp-cursor approvals: Cursor's permission request (no rawInput, backticked title, allow-once/allow-always/reject-once)", () => {
  it.each([
    ["approval-allow", "allow_once", "allow-once", "touch approved.txt", 0],
    ["approval-deny", "deny", "reject-once", "touch denied.txt", undefined],
  ] as const)("%s: the runtime's %s reaches the agent as %s; the command item is unwrapped, the approval subject keeps the backticks", async (cell, decision, optionId, command, exitCode) => {
    const c = await fixtureCell("acp-cursor", cell);
    const permission = laneMessages(c.recording, "provider→bridge").find((m) => m.method === "session/request_permission");
    expect(permission?.params.toolCall.rawInput).toBeUndefined();
    const interaction = laneMessages(c.recording, "bridge→runtime").find((m) => m.method === "interaction/request");
    expect(interaction?.params.payload).toMatchObject({
      kind: "approval",
      subject: { kind: "command", command: `\`${command}\`` },
      availableDecisions: ["allow_once", "allow_for_session", "deny"],
    });
    expect(reply(c, "runtime→bridge", interaction?.id)?.result.decision).toBe(decision);
    expect(reply(c, "bridge→provider", permission?.id)?.result).toEqual({ outcome: { outcome: "selected", optionId } });
    const [item] = completedItems(c.oracle, "commandExecution");
    expect(item).toMatchObject({ command, status: "completed" });
    // Denied, Cursor still reports the call completed with no output, so it has no exit code (spec 30 §1.1).
    expect(item!.exitCode).toBe(exitCode);
  });
});

describe("acp-hermes-agent user-question: elicitation/create (spec 30 §6.3)", () => {
  it("a one-field form becomes a user_question interaction; the runtime's user_answer goes back as {action: accept, content}", async () => {
    const c = await fixtureCell("acp-hermes-agent", "user-question");
    const elicitation = laneMessages(c.recording, "provider→bridge").find((m) => m.method === "elicitation/create");
    const interaction = laneMessages(c.recording, "bridge→runtime").find((m) => m.method === "interaction/request");
    expect(interaction?.params.payload).toEqual({
      kind: "user_question",
      questions: [
        {
          id: "color",
          prompt: elicitation?.params.message,
          shortLabel: "Which color do you prefer?",
          multiSelect: false,
          options: ["red", "green", "blue"].map((value) => ({ value, label: value })),
          allowFreeText: false,
        },
      ],
    });
    expect(reply(c, "runtime→bridge", interaction?.id)?.result).toEqual({ kind: "user_answer", answers: { color: { selected: ["green"] } } });
    expect(reply(c, "bridge→provider", elicitation?.id)?.result).toEqual({ action: "accept", content: { color: "green" } });
    expect(c.oracle.at(-1)).toMatchObject({ type: "turn/completed", status: "completed" });
  });
});

describe("acp-grok web-search: web tools named through x.ai/tool", () => {
  it("identity kind search → a content search item from rawInput.query; kind fetch → webFetch with the page text", async () => {
    const c = await fixtureCell("acp-grok", "web-search");
    expect(
      agentUpdates(c.recording)
        .filter((u) => u.sessionUpdate === "tool_call")
        .map((u) => [u.kind, u._meta["x.ai/tool"].kind]),
    ).toEqual([
      [undefined, "search"],
      [undefined, "fetch"],
    ]);
    expect(completedItems(c.oracle, "search")).toEqual([expect.objectContaining({ mode: "content", query: "Agent Client Protocol homepage", status: "completed" })]);
    expect(completedItems(c.oracle, "webFetch")).toEqual([expect.objectContaining({ url: "https://agentclientprotocol.com/", resultText: "Title: Agent Client Protocol" })]);
  });
});

describe("interrupt, resume and zero work on the fixture agents", () => {
  it("acp-omp-fixture stop-interrupt: session/cancel, the turn settles interrupted before the stop answer; the resumed agent is restored by session/resume, as the real omp is", async () => {
    const c = await fixtureCell("acp-omp-fixture", "stop-interrupt");
    const toAgent = laneMessages(c.recording, "bridge→provider");
    expect(toAgent.map((m) => m.method).filter(Boolean)).toEqual(["initialize", "session/new", "session/prompt", "session/cancel", "initialize", "session/resume", "session/prompt"]);
    expect(c.oracle.filter((e) => e.type === "turn/completed").map((e) => e.status)).toEqual(["interrupted", "completed"]);
    const bridgeLines = c.recording.lanes["bridge→runtime"];
    const stopId = laneMessages(c.recording, "runtime→bridge").find((m) => m.method === "thread/stop")?.id;
    const stopAnswer = bridgeLines.findIndex((e) => (JSON.parse(e.line) as { id?: unknown; method?: unknown }).id === stopId && !e.line.includes('"method"'));
    const interrupted = bridgeLines.findIndex((e) => e.line.includes('"turn.boundary"') && e.line.includes('"interrupted"'));
    expect(interrupted).toBeGreaterThanOrEqual(0);
    expect(interrupted).toBeLessThan(stopAnswer);
  });

  it("acp-hermes-agent resume: a release sends nothing to the agent but kills it; the resume restores by session/load", async () => {
    const c = await fixtureCell("acp-hermes-agent", "resume");
    const toAgent = laneMessages(c.recording, "bridge→provider");
    expect(toAgent.map((m) => m.method)).toEqual(["initialize", "session/new", "session/prompt", "initialize", "session/load", "session/prompt"]);
    expect(toAgent.at(-1)?.params.sessionId).toBe(toAgent.find((m) => m.method === "session/load")?.params.sessionId);
    expect(c.oracle.filter((e) => e.type === "turn/completed").map((e) => e.status)).toEqual(["completed", "completed"]);
  });

  it("acp-grok steer: the running prompt is cancelled and the steer re-prompted inside the same turn; its usage updates the window", async () => {
    const c = await fixtureCell("acp-grok", "steer");
    const toAgent = laneMessages(c.recording, "bridge→provider");
    expect(toAgent.map((m) => m.method)).toEqual(["initialize", "session/new", "session/prompt", "session/cancel", "session/prompt"]);
    expect(toAgent.at(-1)?.params.prompt).toEqual([{ type: "text", text: "Make it about mountains instead." }]);
    expect(c.oracle.filter((e) => e.type === "turn/started")).toHaveLength(1);
    expect(c.oracle.filter((e) => e.type === "turn/input/accepted")).toHaveLength(2);
    expect(c.oracle.filter((e) => e.type === "turn/completed").map((e) => e.status)).toEqual(["completed"]);
    expect(c.oracle.filter((e) => e.type === "thread/contextWindowUsage/updated").map((e) => e.contextWindowUsage.usedTokens)).toEqual([0, 2210]);
  });

  it("acp-omp-fixture zero-work: an end_turn with no output warns, then the turn still settles completed", async () => {
    const c = await fixtureCell("acp-omp-fixture", "zero-work");
    expect(c.oracle.slice(-2)).toEqual([
      expect.objectContaining({ type: "provider/warning", summary: "The agent ended the turn without replying" }),
      expect.objectContaining({ type: "turn/completed", status: "completed" }),
    ]);
  });
});
