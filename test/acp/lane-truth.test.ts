/**
 * Lanes tell what really happened (issue 24; house rule "a bridge translates; it never
 * invents"): a denied call is its item closed with `approvalStatus: "denied"` (also when the agent
 * asks before it reports the call), with no exit code it never had and none of the agent's refusal
 * text as command output; a command's output is what it printed, without the fence, trailer or
 * labels the agent wrapped around it; one agentMessage per ACP `messageId`; whitespace-only text
 * before any prompt is no turn. Each input is the real agents' wire shape (recordings/acp-*), played
 * by the fixture agent through the real bridge and read as the assembled thread.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../helpers/run-cli.js";
import { afterEach, describe, expect, it } from "vitest";
import { createDeltaAssembler, createThreadEventGrammar } from "../../stack/assembler/index.js";
import { chunk, fixtureLaunchSpec, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, type WireMessage } from "./bridge-harness.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { ompCommandResult } from "../../stack/acp/dialects/omp.js";
import { unwrapCommandText } from "../../stack/acp/translate/command-text.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const update = (value: Record<string, unknown>) => ({ update: value });
const settles = (threadId: string) => (m: WireMessage) => m.method === "thread/delta" && m.params.threadId === threadId && m.params.deltas.some((d: any) => d.kind === "turn.boundary");

/** The assembled thread a user sees, after the host grammar (drops listed). */
function thread(b: InProcessBridge, threadId: string) {
  const assembler = createDeltaAssembler({ providerId: "acp-fixture", entropyPrefix: "t", textDeltaFlushMs: 0, now: () => 0 });
  const grammar = createThreadEventGrammar();
  const events: any[] = [];
  const drops: string[] = [];
  for (const m of b.out) {
    if (m.method !== "thread/delta" || m.params.threadId !== threadId) continue;
    for (const event of assembler.assemble({ threadId, deltas: m.params.deltas })) {
      const verdict = grammar.observe(event);
      if (verdict.ok) events.push(event);
      else drops.push(verdict.rule);
    }
  }
  return { events, drops, completed: events.filter((e) => e.type === "item/completed").map((e) => e.item), started: events.filter((e) => e.type === "item/started").map((e) => e.item) };
}

/** One turn of `script` with the runtime answering every interaction with `decision`. */
async function oneTurn(script: FixtureScriptInput, threadId: string, decision = "deny") {
  bridge = startInProcessBridge();
  const { spec } = fixtureLaunchSpec(bridge.dir, script);
  bridge.onRuntimeRequest(() => ({ decision }));
  await bridge.request("thread/start", threadStartParams(threadId, spec, bridge.dir));
  await bridge.request("turn/start", turnStartParams(threadId, "go", "creq_2424242424"));
  await bridge.waitFor(settles(threadId));
  return thread(bridge, threadId);
}

const OPTIONS = [
  { optionId: "proceed_once", name: "Allow", kind: "allow_once" },
  { optionId: "cancel", name: "Reject", kind: "reject_once" },
];
const TOUCH = { command: "touch denied.txt", description: "Create denied.txt" };

describe("denials in the lane", () => {
  it("an agent that asks before it reports the call (qwen, gemini, codex-acp): the denied call is its own item, denied, no exit code, no output", async () => {
    const t = await oneTurn(
      {
        prompts: [
          {
            steps: [
              { permission: { toolCall: { toolCallId: "run_shell_command-1", title: "touch denied.txt", kind: "execute", rawInput: TOUCH }, options: OPTIONS } },
              chunk("Understood: I did not create denied.txt."),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_ask_first",
    );
    const commands = t.completed.filter((item) => item.type === "commandExecution");
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({ command: "touch denied.txt", status: "failed", approvalStatus: "denied" });
    expect(commands[0].exitCode ?? null).toBeNull();
    expect(commands[0].aggregatedOutput ?? null).toBeNull();
    // The denial comes before the agent's answer to it.
    expect(t.completed.map((item) => item.type)).toEqual(["commandExecution", "agentMessage"]);
    expect(t.drops).toEqual([]);
  });

  it("the agent reporting the denied call after it asked (a late tool_call and its failure) adds no second item", async () => {
    const t = await oneTurn(
      {
        prompts: [
          {
            steps: [
              { permission: { toolCall: { toolCallId: "c9", title: "touch denied.txt", kind: "execute", rawInput: TOUCH }, options: OPTIONS } },
              update({ sessionUpdate: "tool_call", toolCallId: "c9", title: "touch denied.txt", kind: "execute", status: "pending", rawInput: TOUCH }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "c9", status: "failed", rawOutput: "rejected" }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_late_report",
    );
    // One item: started from the request when the deny came, settled denied; the late reports add neither a second start nor a second item.
    const commandEvents = t.events.filter((e) => e.item?.type === "commandExecution");
    expect(commandEvents.map((e) => e.type)).toEqual(["item/started", "item/completed"]);
    expect(commandEvents[0].item.id).toBe(commandEvents[1].item.id);
    expect(t.completed.filter((item) => item.type === "commandExecution")).toEqual([expect.objectContaining({ approvalStatus: "denied" })]);
  });

  it("a reported call the agent fails after the denial (Claude Code's fenced refusal): denied, no invented exit code 1, the refusal is not output", async () => {
    const t = await oneTurn(
      {
        prompts: [
          {
            steps: [
              update({ sessionUpdate: "tool_call", toolCallId: "b1", title: "Terminal", kind: "execute", status: "pending", rawInput: {} }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "b1", rawInput: TOUCH, title: "touch denied.txt" }),
              { permission: { toolCall: { toolCallId: "b1", title: "touch denied.txt", rawInput: TOUCH }, options: OPTIONS } },
              update({
                sessionUpdate: "tool_call_update",
                toolCallId: "b1",
                status: "failed",
                rawOutput: "User refused permission to run tool",
                content: [{ type: "content", content: { type: "text", text: "```\nUser refused permission to run tool\n```" } }],
              }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_reported",
    );
    const [command] = t.completed.filter((item) => item.type === "commandExecution");
    expect(command).toMatchObject({ command: "touch denied.txt", status: "failed", approvalStatus: "denied" });
    expect(command.exitCode ?? null).toBeNull();
    expect(command.aggregatedOutput ?? null).toBeNull();
  });

  it("an allowed call says approvalStatus 'approved' (issue 37) and keeps its real exit code", async () => {
    const t = await oneTurn(
      {
        prompts: [
          {
            steps: [
              update({ sessionUpdate: "tool_call", toolCallId: "a1", title: "true", kind: "execute", status: "pending", rawInput: { command: "true" } }),
              { permission: { toolCall: { toolCallId: "a1" }, options: OPTIONS } },
              update({ sessionUpdate: "tool_call_update", toolCallId: "a1", status: "completed", rawOutput: { exitCode: 0, stdout: "" } }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_allowed",
      "allow_once",
    );
    expect(t.completed.find((item) => item.type === "commandExecution")).toMatchObject({ approvalStatus: "approved", exitCode: 0 });
  });
});

/** A completed shell call whose result is `result` (fields of the closing tool_call_update). */
const shellCall = (id: string, command: string, result: Record<string, unknown>) => [
  update({ sessionUpdate: "tool_call", toolCallId: id, title: command, kind: "execute", status: "pending", rawInput: { command } }),
  update({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", ...result }),
];
const text = (value: string) => ({ content: [{ type: "content", content: { type: "text", text: value } }] });

describe("a command's output as it printed it", () => {
  it("without the agent's fence, trailer or labels, with the exit code the agent reported (Claude Code, copilot, qwen shapes)", async () => {
    const t = await oneTurn(
      {
        prompts: [
          {
            steps: [
              ...shellCall("f1", "printf 'a\\nb\\n'", { rawOutput: "a\nb", ...text("```console\na\nb\n```") }),
              ...shellCall("s1", "wc -l notes.txt", {
                ...text("3 notes.txt\n<shellId: 0 completed with exit code 0>"),
                rawOutput: { content: "3 notes.txt\n<shellId: 0 completed with exit code 0>", contents: [{ type: "shell_exit", shellId: "0", exitCode: 0 }] },
              }),
              ...shellCall("s2", "sh -c 'exit 3'", text("out\n<shellId: 1 completed with exit code 3>")),
              ...shellCall("q1", "sh fail.sh", {
                ...text("Command: sh fail.sh\nDirectory: (root)\nOutput: to stdout\nError: to stderr\nExit Code: 3\nSignal: (none)\nProcess Group PGID: 12"),
                rawOutput: "to stdout\nto stderr",
              }),
              ...shellCall("q2", "true", text("Command: true\nDirectory: (root)\nOutput: (none)\nError: (none)\nExit Code: 0\nSignal: 0\nProcess Group PGID: 13")),
              ...shellCall("p1", "touch x", { rawOutput: "(Bash completed with no output)", ...text("```console\n(Bash completed with no output)\n```") }),
              ...shellCall("p2", "touch y", { rawOutput: { output: "(no output)", metadata: { output: "(no output)", exit: 0 } }, ...text("(no output)") }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_output",
    );
    const results = t.completed.filter((item) => item.type === "commandExecution").map((item) => [item.aggregatedOutput ?? null, item.exitCode ?? null]);
    expect(results).toEqual([
      ["a\nb", null],
      // The newline before copilot's trailer is the output's own last byte (exact output, issue 37).
      ["3 notes.txt\n", 0],
      ["out\n", 3],
      ["to stdout\nto stderr", 3],
      [null, 0],
      [null, null],
      [null, null],
    ]);
  });
});

describe("a failed command as the real agents report it (cells/command-fails)", () => {
  const printed = "first line\nsecond line\nsomething went wrong";

  it('Claude Code: the fenced "Exit code 3" header gives the exit code and is not output', () => {
    expect(unwrapCommandText(`\`\`\`\nExit code 3\n${printed}\n\`\`\``)).toEqual({ text: printed, exitCode: 3 });
    expect(unwrapCommandText(`Exit code 3\n${printed}`)).toEqual({ text: printed, exitCode: 3 });
  });

  it("omp 18.2.3: the wall time, then the exit code, both come off the output", () => {
    const result = ompCommandResult({
      toolCallId: "call_parity_1_1",
      kind: "execute",
      status: "failed",
      rawInput: { command: "sh -c 'exit 3'" },
      rawOutput: {
        content: [{ type: "text", text: `${printed}\n\n\nWall time: 2.75 seconds\n\nCommand exited with code 3` }],
        details: { timeoutSeconds: 300, wallTimeMs: 2754.9400590000005, exitCode: 3 },
        isError: true,
      },
    } as never);
    // omp puts a blank line before each trailer: the third newline is the command's own (issue 37).
    expect(result).toEqual({ output: `${printed}\n`, exitCode: 3 });
  });

  it("qwen-code 0.15.10, an output it cut itself (acp-qwen long-output): its notice and labels come off, the exit code is read", () => {
    const text = [
      "Tool output was too large and has been truncated.",
      "The full output has been saved to: /home/user/.qwen/tmp/abc/run_shell_command_1.output",
      "To read the complete output, use the read_file tool with the absolute file path above.",
      "The truncated output below shows the beginning and end of the content. The marker '... [CONTENT TRUNCATED] ...' indicates where content was removed.",
      "",
      "Truncated part of the output:",
      "Command: seq 1 20000",
      "Directory: (root)",
      "Output: 1\n2\n... [CONTENT TRUNCATED] ...\n19999\n20000",
      "Error: (none)",
      "Exit Code: 0",
      "Signal: 0",
      "Process Group PGID: 4242",
    ].join("\n");
    expect(unwrapCommandText(text)).toEqual({ text: "1\n2\n... [CONTENT TRUNCATED] ...\n19999\n20000", exitCode: 0 });
  });

  it("omp 18.2.3, an output it cut itself (acp-omp long-output): the wall time and omp's notice of the cut come off", () => {
    // The real recording's completed update, merged over its tool_call as the bridge merges them.
    const updates = readFileSync(path.join(repoRoot, "recordings/acp-omp/long-output/provider→bridge.ndjson"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse((JSON.parse(l) as { line: string }).line) as { params?: { update?: Record<string, unknown> } })
      .map((m) => m.params?.update)
      .filter((u): u is Record<string, unknown> => u !== undefined && (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"));
    const merged = Object.assign({}, ...updates) as Record<string, unknown>;
    expect(merged.status).toBe("completed");
    const text = (merged.rawOutput as { content: Array<{ text: string }> }).content[0]!.text;
    expect(text).toMatch(/\n\n\nWall time: 0\.17 seconds\n\n\[Showing lines 1-4720 and 15283-20001 of 20001;[^\]]*\]$/);
    const result = ompCommandResult(merged as never);
    expect(result?.output).toBe(text.slice(0, text.indexOf("\n\nWall time: 0.17 seconds")));
    expect(result?.output).toMatch(/\n19999\n20000\n$/);
    expect(result?.exitCode).toBe(0);
  });

  it("codex-acp: the permission request's text (\"Proposed Amendment …\") is not the command's output; its streams are", async () => {
    const command = "sh -c 'echo first line; exit 3'";
    const t = await oneTurn(
      {
        prompts: [
          {
            steps: [
              {
                permission: {
                  toolCall: {
                    toolCallId: "call_parity_1_1",
                    kind: "execute",
                    status: "pending",
                    title: command,
                    content: [{ type: "content", content: { type: "text", text: "Proposed Amendment: sh\n-c\nexit 3\nAvailable Decisions: Approved\nAbort" } }],
                  },
                  options: OPTIONS,
                },
              },
              update({
                sessionUpdate: "tool_call_update",
                toolCallId: "call_parity_1_1",
                title: command,
                kind: "execute",
                status: "in_progress",
                rawInput: { command: ["/bin/bash", "-lc", command] },
              }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "call_parity_1_1", status: "failed", rawOutput: { stdout: "first line\n", stderr: "", exit_code: 3 } }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_codex_fail",
      "allow_once",
    );
    const [item] = t.completed.filter((i) => i.type === "commandExecution");
    expect(item).toMatchObject({ aggregatedOutput: "first line\n", exitCode: 3, approvalStatus: "approved" });
  });
});

describe("no item or turn the agent did not make", () => {
  it("one agentMessage per ACP messageId, also when two messages follow each other (opencode's answer to a steer)", async () => {
    const message = (messageId: string, value: string) => update({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: value } });
    const t = await oneTurn({ prompts: [{ steps: [message("m1", "Drafting…"), message("m2", "Stone "), message("m2", "shoulders."), { end: "end_turn" }] }] }, "thr_msgs");
    expect(t.completed.filter((item) => item.type === "agentMessage").map((item) => item.text)).toEqual(["Drafting…", "Stone shoulders."]);
    expect(t.drops).toEqual([]);
  });

  it("a call known only from its permission request and its completed update (qwen) stands between the two messages around it", async () => {
    const t = await oneTurn(
      {
        prompts: [
          {
            steps: [
              chunk("I'll run it."),
              { permission: { toolCall: { toolCallId: "q1", title: "sh fail.sh", kind: "execute", rawInput: { command: "sh fail.sh" } }, options: OPTIONS } },
              update({ sessionUpdate: "tool_call_update", toolCallId: "q1", status: "completed", rawOutput: "out" }),
              chunk("It failed."),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_between",
      "allow_once",
    );
    expect(t.completed.map((item) => (item.type === "agentMessage" ? item.text : item.type))).toEqual(["I'll run it.", "commandExecution", "It failed."]);
  });

  it('whitespace-only text before any prompt (pi-acp\'s "\\n" after session/new) opens no turn', async () => {
    bridge = startInProcessBridge();
    const b = bridge;
    const commands = { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "r" }] };
    const { spec } = fixtureLaunchSpec(b.dir, {
      afterNew: [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n" } }, commands],
      prompts: [{ steps: [chunk("answer"), { end: "end_turn" }] }],
    });
    await b.request("thread/start", threadStartParams("thr_ws", spec, b.dir));
    // The commands update follows the chunk: once it is out, the chunk was handled.
    await b.waitFor(
      (m) => m.method === "thread/delta" && m.params.threadId === "thr_ws" && m.params.deltas.some((d: any) => d.kind === "extension.state" && d.extensionKind === "bb/provider-commands"),
    );
    await b.request("turn/start", turnStartParams("thr_ws", "go", "creq_2424242425"));
    await b.waitFor(settles("thr_ws"));
    const t = thread(b, "thr_ws");
    expect(t.events.filter((e) => e.type === "turn/started")).toHaveLength(1);
    expect(t.completed.filter((item) => item.type === "agentMessage").map((item) => item.text)).toEqual(["answer"]);
  });
});
