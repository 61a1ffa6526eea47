/**
 * What real ACP agents and wire faults send (spec 50 "How they behave on the wire"), played by the
 * fixture agent through the real bridge; the bridge's deltas are assembled by the product's delta
 * assembler and filtered by the host grammar, so each test reads the thread a user would see.
 */
import { afterEach, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDeltaAssembler, createThreadEventGrammar } from "../../stack/assembler/index.js";
import { agentReceived, chunk, fixtureLaunchSpec, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, type WireMessage } from "./bridge-harness.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const settles = (threadId: string) => (m: WireMessage) =>
  m.method === "thread/delta" && m.params.threadId === threadId && m.params.deltas.some((d: any) => d.kind === "turn.boundary" || (d.kind === "provider.error" && d.settlesTurn));

/** The thread a user sees: events after the assembler and the host grammar, and what the grammar dropped. */
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
  const completed = events.filter((e) => e.type === "item/completed").map((e) => e.item);
  return { events, drops, completed, started: events.filter((e) => e.type === "item/started").map((e) => e.item) };
}

/** Waits for the turn whose input was accepted last to settle (an earlier agent turn's boundary does not count). */
async function settledAfterAccepted(b: InProcessBridge, threadId: string): Promise<void> {
  const accepted = b.out.findLastIndex((m) => m.method === "thread/delta" && m.params.threadId === threadId && m.params.deltas.some((d: any) => d.kind === "input.accepted"));
  await b.waitFor(settles(threadId), accepted + 1);
}

/** Starts a thread on `script`, runs one turn with `text`, waits for it to settle. */
async function oneTurn(script: FixtureScriptInput, threadId: string, text = "go", options: Record<string, unknown> = {}) {
  bridge = startInProcessBridge();
  const { spec, log } = fixtureLaunchSpec(bridge.dir, script);
  const start = await bridge.request("thread/start", threadStartParams(threadId, spec, bridge.dir, options));
  expect(start.error).toBeUndefined();
  await bridge.request("turn/start", turnStartParams(threadId, text, "creq_222222222a"));
  await settledAfterAccepted(bridge, threadId);
  return { b: bridge, log };
}

const update = (value: Record<string, unknown>) => ({ update: value });

describe("real agents on the wire (spec 50)", () => {
  it("status-less refinements: arguments, title and the diff reach the item, opened once as a fileChange, no grammar drop", async () => {
    const { b } = await oneTurn(
      {
        prompts: [
          {
            steps: [
              update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Edit", kind: "edit", status: "pending", rawInput: {} }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t1", rawInput: { file_path: "/w/a.txt", old_string: "x", new_string: "y" } }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Edit `/w/a.txt`", locations: [{ path: "/w/a.txt" }] }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t1", content: [{ type: "diff", path: "/w/a.txt", oldText: "x\n", newText: "y\n" }] }),
              update({ sessionUpdate: "tool_call", toolCallId: "t2", title: "Read", kind: "read", status: "pending", rawInput: {} }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t2", rawInput: { file_path: "/w/b.txt" }, locations: [{ path: "/w/b.txt" }] }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t2", status: "completed", rawOutput: { content: "b" } }),
              update({ sessionUpdate: "tool_call", toolCallId: "t3", title: "Grep", kind: "other", status: "pending", rawInput: {} }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t3", rawInput: { pattern: "foo" } }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "t3", status: "completed" }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_refine",
    );
    const t = thread(b, "thr_refine");
    expect(t.drops).toEqual([]);
    const byType = (type: string) => t.completed.filter((item) => item.type === type);
    expect(t.started.map((item) => item.type)).toEqual(["fileChange", "fileRead", "toolCall"]);
    expect(byType("fileChange")).toEqual([expect.objectContaining({ changes: [{ path: "/w/a.txt", kind: "update", diff: "--- a/w/a.txt\n+++ b/w/a.txt\n@@ -1,1 +1,1 @@\n-x\n+y\n" }] })]);
    expect(byType("fileRead")).toEqual([expect.objectContaining({ path: "/w/b.txt" })]);
    expect(byType("toolCall")).toEqual([expect.objectContaining({ arguments: { pattern: "foo" } })]);
  });

  it("a re-sent tool_call with the same id refines the call: one item.open, never re-opened as another type", async () => {
    const { b } = await oneTurn(
      {
        prompts: [
          {
            steps: [
              update({ sessionUpdate: "tool_call", toolCallId: "r1", title: "Read", kind: "read", status: "pending", rawInput: {} }),
              update({ sessionUpdate: "tool_call", toolCallId: "r1", title: "Read /w/c.txt", kind: "read", status: "pending", rawInput: { file_path: "/w/c.txt" }, locations: [{ path: "/w/c.txt" }] }),
              update({ sessionUpdate: "tool_call", toolCallId: "x1", title: "ls", kind: "execute", status: "pending", rawInput: { command: "ls" } }),
              update({ sessionUpdate: "tool_call", toolCallId: "x1", title: "ls -la", kind: "execute", status: "in_progress", rawInput: { command: "ls -la" } }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "r1", status: "completed" }),
              update({ sessionUpdate: "tool_call_update", toolCallId: "x1", status: "completed", rawOutput: { exitCode: 0, stdout: "a\n" } }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_resent",
    );
    const opens = b.deltas("thr_resent").filter((d) => d.kind === "item.open");
    expect(opens.map((d) => [d.key.providerItemId, d.item.type])).toEqual([
      ["r1", "fileRead"],
      ["x1", "command"],
    ]);
    const t = thread(b, "thr_resent");
    expect(t.drops).toEqual([]);
    expect(t.completed.map((item) => [item.type, item.path ?? item.command])).toEqual([
      ["fileRead", "/w/c.txt"],
      ["commandExecution", "ls -la"],
    ]);
  });

  it("one edit written through fs/write_text_file and reported as a diff on its tool call is one fileChange item", async () => {
    bridge = startInProcessBridge();
    const file = join(bridge.dir, "e.txt");
    writeFileSync(file, "old\n");
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          steps: [
            update({ sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit e.txt", kind: "edit", status: "pending", locations: [{ path: file }], rawInput: { file_path: file } }),
            { request: { method: "fs/write_text_file", params: { sessionId: "fixture-session-1", path: file, content: "new\n" } } },
            update({ sessionUpdate: "tool_call_update", toolCallId: "e1", status: "completed", content: [{ type: "diff", path: file, oldText: "old\n", newText: "new\n" }] }),
            update({ sessionUpdate: "tool_call", toolCallId: "e2", title: "Write f.txt", kind: "edit", status: "pending", rawInput: {} }),
            { request: { method: "fs/write_text_file", params: { sessionId: "fixture-session-1", path: join(bridge.dir, "f.txt"), content: "fresh\n" } } },
            update({ sessionUpdate: "tool_call_update", toolCallId: "e2", status: "completed" }),
            { end: "end_turn" },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_write", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_write", "edit", "creq_2222222222"));
    await bridge.waitFor(settles("thr_write"));
    const t = thread(bridge, "thr_write");
    expect(t.drops).toEqual([]);
    const changes = t.completed.filter((item) => item.type === "fileChange").map((item) => item.changes);
    expect(changes).toEqual([
      [{ path: file, kind: "update", diff: `--- a${file}\n+++ b${file}\n@@ -1,1 +1,1 @@\n-old\n+new\n` }],
      [{ path: join(bridge.dir, "f.txt"), kind: "add", diff: `--- /dev/null\n+++ b${join(bridge.dir, "f.txt")}\n@@ -0,0 +1,1 @@\n+fresh\n` }],
    ]);
  });

  it("empty usage-only agent_message_chunks start no agentMessage item (every started message completes)", async () => {
    const usageOnly = update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" }, _meta: { usage: { inputTokens: 10, outputTokens: 2 } } });
    const call = update({ sessionUpdate: "tool_call", toolCallId: "u1", title: "ls", kind: "execute", status: "completed", rawInput: { command: "ls" } });
    const { b } = await oneTurn({ prompts: [{ steps: [usageOnly, call, chunk("hello"), usageOnly, { end: "end_turn" }] }] }, "thr_usage");
    const t = thread(b, "thr_usage");
    expect(t.started.filter((item) => item.type === "agentMessage")).toHaveLength(1);
    expect(t.completed.filter((item) => item.type === "agentMessage").map((item) => item.text)).toEqual(["hello"]);
    expect(
      b
        .deltas("thr_usage")
        .filter((d) => d.kind === "item.textDelta")
        .map((d) => d.text),
    ).toEqual(["hello"]);
  });

  it("text before any prompt is kept in an agent turn of its own that closes before the first turn, never glued to its message", async () => {
    bridge = startInProcessBridge();
    const b = bridge;
    // Visible text: whitespace-only text before any prompt is no turn (lane-truth.test.ts).
    const { spec } = fixtureLaunchSpec(b.dir, {
      afterNew: [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Ready." } }],
      prompts: [{ steps: [chunk("answer"), { end: "end_turn" }] }],
    });
    await b.request("thread/start", threadStartParams("thr_pre", spec, b.dir));
    // A runtime paced by causal order sends its turn once the agent's own turn is on the wire.
    await b.waitFor((m) => m.method === "thread/delta" && m.params.threadId === "thr_pre" && m.params.deltas.some((d: any) => d.kind === "item.textDelta"));
    await b.request("turn/start", turnStartParams("thr_pre", "go", "creq_222222222a"));
    await settledAfterAccepted(b, "thr_pre");
    const t = thread(b, "thr_pre");
    const turns = t.events.filter((e) => e.type === "turn/completed").map((e) => e.turn?.status ?? e.status);
    expect(turns).toEqual(["completed", "completed"]);
    expect(t.completed.filter((item) => item.type === "agentMessage").map((item) => item.text)).toEqual(["Ready.", "answer"]);
  });

  it("a forked session's output before its first prompt replays history: dropped, while a fresh session's is kept", async () => {
    bridge = startInProcessBridge();
    const b = bridge;
    // The commands update after the chunk is thread state the test can wait for: once it is out, the chunk was handled.
    const commands = { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "r" }] };
    const { spec } = fixtureLaunchSpec(b.dir, { fork: true, sessionIds: "uuid", afterNew: [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "earlier reply" } }, commands] });
    const source = await b.request("thread/start", threadStartParams("thr_src", spec, b.dir));
    await b.waitFor((m) => m.method === "thread/delta" && m.params.threadId === "thr_src" && m.params.deltas.some((d: any) => d.kind === "item.textDelta"));
    const forked = await b.request("thread/fork", { ...threadStartParams("thr_fk2", spec, b.dir), sourceProviderThreadId: source.result.providerThreadId });
    expect(forked.error).toBeUndefined();
    await b.waitFor(
      (m) => m.method === "thread/delta" && m.params.threadId === "thr_fk2" && m.params.deltas.some((d: any) => d.kind === "extension.state" && d.extensionKind === "bb/provider-commands"),
    );
    await b.request("turn/start", turnStartParams("thr_fk2", "go", "creq_222222222b"));
    await settledAfterAccepted(b, "thr_fk2");
    expect(
      b
        .deltas("thr_src")
        .filter((d) => d.kind === "item.textDelta")
        .map((d) => d.text),
    ).toEqual(["earlier reply"]);
    expect(b.deltas("thr_fk2").filter((d) => d.kind === "item.textDelta")).toEqual([]);
    expect(b.deltas("thr_fk2").filter((d) => d.kind === "turn.open")).toHaveLength(1);
  });
});

describe("wire faults", () => {
  it('a response whose id is the request\'s id as a string ("3" for 3) answers that request: the thread starts and the turn settles', async () => {
    const { b } = await oneTurn({ stringResponseIds: true, prompts: [{ steps: [chunk("ok"), { end: "end_turn" }] }] }, "thr_strid");
    const boundary = b.deltas("thr_strid").find((d) => d.kind === "turn.boundary");
    expect(boundary.status).toBe("completed");
    expect(b.logs.some((l) => l.includes('with the string id "'))).toBe(true);
  });

  it("after thread/stop, an agent answering the cancelled prompt with end_turn: the turn settles interrupted with a warning saying a stop was requested", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { cancelStopReason: "end_turn", prompts: [{ steps: [chunk("working"), { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_stop", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_stop", "go", "creq_2222222223"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.threadId === "thr_stop" && m.params.deltas.some((d: any) => d.kind === "item.textDelta"));
    const stop = await bridge.request("thread/stop", { threadId: "thr_stop", intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
    const deltas = bridge.deltas("thr_stop");
    expect(deltas.filter((d) => d.kind === "turn.boundary").map((d) => d.status)).toEqual(["interrupted"]);
    expect(deltas.find((d) => d.kind === "provider.warning")).toMatchObject({ summary: "Stop requested; the turn was interrupted", details: expect.stringContaining("end_turn") });
  });

  it("an update arriving after end_turn opens no agent turn and its terminal output is kept", async () => {
    const late = { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", rawOutput: { exitCode: 0, stdout: "late output\n" } };
    const { b } = await oneTurn(
      {
        prompts: [
          {
            when: "first",
            steps: [update({ sessionUpdate: "tool_call", toolCallId: "c1", title: "make", kind: "execute", status: "in_progress", rawInput: { command: "make" } }), { end: "end_turn", after: [late] }],
          },
          { when: "second", steps: [chunk("next"), { end: "end_turn" }] },
        ],
      },
      "thr_late",
      "first",
    );
    const from = b.out.length;
    await b.request("turn/start", turnStartParams("thr_late", "second", "creq_2222222224"));
    await b.waitFor(settles("thr_late"), from);
    const t = thread(b, "thr_late");
    const statuses = t.events.filter((e) => e.type === "turn/completed").map((e) => e.turn?.status ?? e.status);
    expect(statuses).toEqual(["completed", "completed"]);
    expect(JSON.stringify(t.events)).toContain("late output");
  });

  it("with two reject_once options a runtime deny picks the one that continues, and the chosen optionId is in the bridge output", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          steps: [
            update({ sessionUpdate: "tool_call", toolCallId: "p1", title: "rm -rf build", kind: "execute", status: "pending", rawInput: { command: "rm -rf build" } }),
            {
              permission: {
                toolCall: { toolCallId: "p1" },
                options: [
                  { optionId: "allow", name: "Yes", kind: "allow_once" },
                  { optionId: "abort", name: "No, and stop", kind: "reject_once" },
                  { optionId: "deny-continue", name: "No, tell the agent what to do instead", kind: "reject_once" },
                ],
              },
            },
            update({ sessionUpdate: "tool_call_update", toolCallId: "p1", status: "failed" }),
            { end: "end_turn" },
          ],
        },
      ],
    });
    bridge.onRuntimeRequest(() => ({ decision: "deny" }));
    await bridge.request("thread/start", threadStartParams("thr_deny", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_deny", "go", "creq_2222222225"));
    await bridge.waitFor(settles("thr_deny"));
    const answer = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(answer?.result).toEqual({ outcome: { outcome: "selected", optionId: "deny-continue" } });
    const progress = bridge.deltas("thr_deny").find((d) => d.kind === "item.progress");
    expect(progress).toMatchObject({ key: { providerItemId: "p1" }, message: expect.stringContaining("deny-continue") });
  });

  it("image and resource_link blocks in agent messages are kept; a malformed image is marked invalid", async () => {
    const { b } = await oneTurn(
      {
        prompts: [
          {
            steps: [
              chunk("see "),
              update({ sessionUpdate: "agent_message_chunk", content: { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" } }),
              update({ sessionUpdate: "agent_message_chunk", content: { type: "resource_link", uri: "file:///w/report.md", name: "report.md" } }),
              update({ sessionUpdate: "agent_message_chunk", content: { type: "image", mimeType: "image/png" } }),
              { end: "end_turn" },
            ],
          },
        ],
      },
      "thr_blocks",
    );
    const text = thread(b, "thr_blocks").completed.find((item) => item.type === "agentMessage")?.text;
    expect(text).toBe("see ![image](data:image/png;base64,iVBORw0KGgo=)[report.md](file:///w/report.md)[invalid image block: no data or uri]");
  });

  it("a turn ending on an error completes its streamed agent message and its open tool call", async () => {
    const { b } = await oneTurn(
      {
        prompts: [
          {
            steps: [
              update({ sessionUpdate: "tool_call", toolCallId: "k1", title: "sleep", kind: "execute", status: "in_progress", rawInput: { command: "sleep 9" } }),
              chunk("half a sen"),
              { fail: { code: -32000, message: "model crashed" } },
            ],
          },
        ],
      },
      "thr_err",
    );
    const t = thread(b, "thr_err");
    expect(t.completed.map((item) => [item.type, item.status ?? null])).toEqual([
      ["agentMessage", null],
      ["commandExecution", "failed"],
    ]);
    expect(t.completed[0].text).toBe("half a sen");
  });

  it("details kept: an error's transcriptPath, a refusal's _meta error text, usage_update cost, the permission title of a call it creates", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "err", steps: [{ fail: { code: -32000, message: "Internal error", data: { details: "API error", transcriptPath: "/h/.claude/t.jsonl" } } }] },
        {
          when: "refuse",
          steps: [update({ sessionUpdate: "usage_update", used: 10, size: 100, cost: { amount: 0.25, currency: "USD" } }), { end: "refusal", meta: { error: "429: quota exhausted" } }],
        },
        {
          when: "perm",
          steps: [
            { permission: { toolCall: { toolCallId: "w1", title: "Write notes.md", kind: "edit" }, options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }] } },
            update({ sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" }),
            { end: "end_turn" },
          ],
        },
      ],
    });
    bridge.onRuntimeRequest(() => ({ decision: "allow_once" }));
    await bridge.request("thread/start", threadStartParams("thr_keep", spec, bridge.dir));
    let from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_keep", "err", "creq_2222222226"));
    await bridge.waitFor(settles("thr_keep"), from);
    expect(bridge.deltas("thr_keep").find((d) => d.kind === "provider.error").detail).toContain("/h/.claude/t.jsonl");
    // The rejected prompt's turn ends with the same words (issue 39).
    expect(bridge.deltas("thr_keep").find((d) => d.kind === "turn.boundary").error.message).toBe('Internal error: API error {"transcriptPath":"/h/.claude/t.jsonl"}');
    from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_keep", "refuse", "creq_2222222227"));
    await bridge.waitFor(settles("thr_keep"), from);
    const boundary = bridge
      .deltas("thr_keep")
      .filter((d) => d.kind === "turn.boundary")
      .at(-1);
    expect(boundary.error.message).toBe("Agent stopped the turn: refusal (429: quota exhausted)");
    expect(bridge.deltas("thr_keep").find((d) => d.kind === "extension.state" && d.extensionKind === "bb/session-cost")?.payload).toEqual({ amount: 0.25, currency: "USD" });
    from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_keep", "perm", "creq_2222222228"));
    await bridge.waitFor(settles("thr_keep"), from);
    const t = thread(bridge, "thr_keep");
    expect(t.completed.filter((item) => item.type === "toolCall").map((item) => item.presentation?.title)).toEqual(["Write notes.md"]);
  });
});
