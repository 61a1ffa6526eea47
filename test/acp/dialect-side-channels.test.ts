/**
 * Every dialect side channel of spec 30 §1.3–§1.6, driven end to end: the in-process bridge
 * talks to the fixture agent, which sends project-written vendor lines (nothing here is taken
 * from a recording). Each test picks its dialect through `providerOptions.acpDialect` (spec 30
 * §1.2) and checks the deltas the runtime sees, plus a generic-dialect contrast where a hook
 * must not apply.
 */
import { afterEach, describe, expect, it } from "vitest";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, chunk, type AnyRecord } from "./bridge-harness.js";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const toolCall = (fields: AnyRecord) => ({ update: { sessionUpdate: "tool_call", status: "pending", ...fields } });
const toolUpdate = (fields: AnyRecord) => ({ update: { sessionUpdate: "tool_call_update", ...fields } });

/** Starts a thread on `dialect` (or the generic one for `null`), runs one turn with `text`, and returns the thread's deltas. */
async function runTurn(b: InProcessBridge, threadId: string, dialect: string | null, script: FixtureScriptInput, text = "go"): Promise<{ deltas: AnyRecord[]; log: string }> {
  const { spec, log } = fixtureLaunchSpec(b.dir, script, threadId);
  const providerOptions = dialect === null ? { acpLaunchSpec: spec } : { acpLaunchSpec: spec, acpDialect: dialect };
  const start = await b.request("thread/start", threadStartParams(threadId, spec, b.dir, { providerOptions }));
  expect(start.error).toBeUndefined();
  const from = b.out.length;
  const turn = await b.request("turn/start", turnStartParams(threadId, text, "creq_side000001"));
  expect(turn.error).toBeUndefined();
  await b.waitFor((m) => isBoundary(m) && m.params.threadId === threadId, from);
  return { deltas: b.deltas(threadId), log };
}

const opensOf = (deltas: AnyRecord[], id: string) => deltas.filter((d) => d.kind === "item.open" && d.key?.providerItemId === id);
const closeOf = (deltas: AnyRecord[], id: string) => deltas.find((d) => d.kind === "item.close" && d.key?.providerItemId === id);

describe("cursor side channels (spec 30 §1.3)", () => {
  const task = { toolCallId: "task_c1", kind: "other", title: "Look around the repo", rawInput: { _toolName: "task", prompt: "look around" } };

  it("_toolName task opens a delegation; cursor/task while it is open re-opens it with the report; a report after it settled does nothing; the agent gets {} both times", async () => {
    bridge = startInProcessBridge();
    const report = { toolCallId: "task_c1", description: "Map the modules", agentId: "child-agent-7", model: "fixture-fast", subagentType: "explore", durationMs: 12 };
    const { deltas, log } = await runTurn(bridge, "thr_cur", "cursor", {
      prompts: [
        {
          steps: [
            toolCall(task),
            { request: { method: "cursor/task", params: report } },
            toolUpdate({ toolCallId: "task_c1", status: "completed" }),
            { request: { method: "cursor/task", params: { ...report, description: "late report" } } },
            { end: "end_turn" },
          ],
        },
      ],
    });
    const opens = opensOf(deltas, "task_c1");
    expect(opens).toHaveLength(2);
    expect(opens[0]!.item).toEqual({ type: "delegation", childRef: "task_c1", label: "Look around the repo", background: false });
    expect(opens[0]!.presentation).toMatchObject({ label: { pending: "Running subagent", completed: "Subagent finished" }, icon: { glyph: "UserRound" }, title: "Look around the repo" });
    expect(opens[1]!.item).toEqual({ type: "delegation", childRef: "child-agent-7", label: "Map the modules", background: false });
    expect(opens[1]!.presentation).toMatchObject({ title: "Map the modules", detail: "model fixture-fast" });
    expect(closeOf(deltas, "task_c1")).toMatchObject({ status: "completed", item: { type: "delegation", childRef: "child-agent-7", label: "Map the modules" } });
    // Nothing about the late report reached the runtime.
    expect(JSON.stringify(deltas)).not.toContain("late report");
    const replies = agentReceived(log).filter((m) => m.method === undefined && (m.id === 0 || m.id === 1));
    expect(replies.map((m) => [m.id, m.result, m.error])).toEqual([
      [0, {}, undefined],
      [1, {}, undefined],
    ]);
  });

  it("cursor/task with bad params is still acknowledged {} and changes nothing", async () => {
    bridge = startInProcessBridge();
    const { deltas, log } = await runTurn(bridge, "thr_cur_bad", "cursor", {
      prompts: [{ steps: [toolCall(task), { request: { method: "cursor/task", params: { description: "no id" } } }, toolUpdate({ toolCallId: "task_c1", status: "completed" }), { end: "end_turn" }] }],
    });
    expect(opensOf(deltas, "task_c1")).toHaveLength(1);
    expect(agentReceived(log).find((m) => m.id === 0 && m.method === undefined)?.result).toEqual({});
  });

  it("without the cursor dialect the same lines are a plain tool and cursor/task is -32601", async () => {
    bridge = startInProcessBridge();
    const { deltas, log } = await runTurn(bridge, "thr_cur_gen", null, {
      prompts: [{ steps: [toolCall(task), { request: { method: "cursor/task", params: { toolCallId: "task_c1", description: "x" } } }, { end: "end_turn" }] }],
    });
    expect(opensOf(deltas, "task_c1")[0]!.item.type).toBe("tool");
    expect(agentReceived(log).find((m) => m.id === 0 && m.method === undefined)?.error).toEqual({ code: -32601, message: 'Unsupported ACP client method "cursor/task"' });
  });
});

describe("grok side channels (spec 30 §1.4)", () => {
  const models: AnyRecord = {
    currentModelId: "grok-fixture",
    availableModels: [
      { modelId: "other", name: "Other" },
      { modelId: "grok-fixture", name: "Fixture", _meta: { totalContextTokens: 200_000 } },
    ],
  };

  it("x.ai/tool names and kinds a call; spawn_subagent is a delegation; the context window starts at 0 and follows the prompt result", async () => {
    bridge = startInProcessBridge();
    const { deltas } = await runTurn(bridge, "thr_grok", "grok", {
      sessionResult: { models },
      prompts: [
        {
          steps: [
            toolCall({ toolCallId: "g_sh", title: "ls -la", rawInput: { command: "ls -la" }, _meta: { "x.ai/tool": { name: "bash", kind: "execute", version: 3, namespace: "core" } } }),
            toolUpdate({ toolCallId: "g_sh", status: "completed", rawOutput: { exitCode: 0, stdout: "a\nb" } }),
            toolCall({ toolCallId: "g_dep", title: "Deploy it", _meta: { "x.ai/tool": { name: "deploy_app", kind: "deploy" } } }),
            toolUpdate({ toolCallId: "g_dep", status: "completed" }),
            toolCall({
              toolCallId: "g_sub",
              title: "Spawn",
              rawInput: { description: "Audit the tests", prompt: "audit", subagent_type: "reviewer" },
              _meta: { "x.ai/tool": { name: "spawn_subagent" } },
            }),
            toolUpdate({ toolCallId: "g_sub", status: "completed" }),
            { end: "end_turn", meta: { usage: { inputTokens: 4321, totalTokens: 5000 } } },
          ],
        },
      ],
    });
    // Fresh session: contextWindow used 0 right after identity and session.reset.
    expect(deltas.slice(0, 2)).toEqual([{ kind: "session.reset" }, { kind: "contextWindow", used: 0, size: 200_000, estimated: false, attach: "open" }]);
    expect(opensOf(deltas, "g_sh")[0]!.item).toEqual({ type: "command", command: "ls -la", cwd: "" });
    expect(closeOf(deltas, "g_sh")).toMatchObject({ exitCode: 0, resultText: "a\nb" });
    // An invalid vendor kind is dropped; the name still fills the tool slot.
    expect(opensOf(deltas, "g_dep")[0]!.item).toMatchObject({ type: "tool", tool: "deploy_app" });
    expect(opensOf(deltas, "g_sub")[0]!.item).toEqual({ type: "delegation", childRef: "g_sub", label: "Audit the tests", background: false });
    expect(opensOf(deltas, "g_sub")[0]!.presentation).toMatchObject({ title: "Audit the tests", detail: "reviewer", icon: { glyph: "UserRound" } });
    const windows = deltas.filter((d) => d.kind === "contextWindow");
    expect(windows.at(-1)).toEqual({ kind: "contextWindow", used: 4321, size: 200_000, estimated: false, attach: "open" });
    expect(deltas.indexOf(windows.at(-1)!)).toBeLessThan(deltas.findIndex((d) => d.kind === "turn.boundary"));
  });

  it("a /compact prompt result also feeds the grok context window", async () => {
    bridge = startInProcessBridge();
    const { deltas } = await runTurn(
      bridge,
      "thr_grok_c",
      "grok",
      { sessionResult: { models }, prompts: [{ steps: [chunk("compacted"), { end: "end_turn", meta: { totalTokens: 777 } }] }] },
      "/compact",
    );
    expect(deltas.some((d) => d.kind === "context.compacted")).toBe(true);
    expect(deltas.filter((d) => d.kind === "contextWindow").map((d) => d.used)).toEqual([0, 777]);
  });

  it("a restored grok session gets no contextWindow 0; the same _meta under the generic dialect is ignored", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { sessionResult: { models } }, "grok-restore");
    await bridge.request("thread/resume", { ...threadStartParams("thr_grok_r", spec, bridge.dir, { providerOptions: { acpLaunchSpec: spec, acpDialect: "grok" } }), providerThreadId: "kept-1" });
    expect(bridge.deltas("thr_grok_r").some((d) => d.kind === "contextWindow")).toBe(false);

    const { deltas } = await runTurn(bridge, "thr_grok_gen", null, {
      sessionResult: { models },
      prompts: [
        {
          steps: [
            toolCall({ toolCallId: "g_sub", title: "Spawn", rawInput: { description: "x" }, _meta: { "x.ai/tool": { name: "spawn_subagent", kind: "execute" } } }),
            { end: "end_turn", meta: { usage: { inputTokens: 9 } } },
          ],
        },
      ],
    });
    expect(opensOf(deltas, "g_sub")[0]!.item.type).toBe("tool");
    expect(deltas.some((d) => d.kind === "contextWindow")).toBe(false);
  });
});

describe("omp side channels (spec 30 §1.5)", () => {
  const bash = toolCall({ toolCallId: "o_sh", kind: "execute", title: "make", rawInput: { command: "make" } });
  const done = toolUpdate({
    toolCallId: "o_sh",
    status: "completed",
    rawOutput: {
      content: [
        { type: "text", text: "built\n\nCommand exited with code 2" },
        { type: "text", text: "Wall time: 0.25 seconds" },
      ],
      details: { exitCode: 2, wallTimeMs: 250 },
    },
  });

  it("bash rawOutput.details gives the exit code and the output without the matching trailers", async () => {
    bridge = startInProcessBridge();
    const { deltas } = await runTurn(bridge, "thr_omp", "omp", { prompts: [{ steps: [bash, done, { end: "end_turn" }] }] });
    expect(closeOf(deltas, "o_sh")).toMatchObject({ status: "completed", exitCode: 2, resultText: "built", item: { type: "command", command: "make" } });
  });

  it("the generic dialect reads the same result with the shared reader: no exit code, the text as is", async () => {
    bridge = startInProcessBridge();
    const { deltas } = await runTurn(bridge, "thr_omp_gen", null, { prompts: [{ steps: [bash, done, { end: "end_turn" }] }] });
    const close = closeOf(deltas, "o_sh")!;
    expect(close.exitCode).toBeUndefined();
    expect(close.resultText).toBe("built\n\nCommand exited with code 2\nWall time: 0.25 seconds");
  });

  it("/compact: a 'nothing to compact' failure is skipped with a warning; a plain failure fails; other dialects complete", async () => {
    bridge = startInProcessBridge();
    const compact = (text: string): FixtureScriptInput => ({ prompts: [{ steps: [chunk(text), { end: "end_turn" }] }] });
    const skipped = await runTurn(bridge, "thr_omp_c1", "omp", compact("Compaction failed: nothing to compact"), "/compact");
    expect(skipped.deltas.find((d) => d.kind === "provider.warning")).toMatchObject({ summary: "Compaction skipped", details: "Compaction failed: nothing to compact" });
    expect(skipped.deltas.some((d) => d.kind === "context.compacted")).toBe(false);
    expect(skipped.deltas.find((d) => d.kind === "turn.boundary")).toEqual({ kind: "turn.boundary", status: "completed" });

    const failed = await runTurn(bridge, "thr_omp_c2", "omp", compact("Compaction failed: model error"), "/compact");
    expect(failed.deltas.find((d) => d.kind === "turn.boundary")).toMatchObject({ status: "failed" });
    expect(failed.deltas.some((d) => d.kind === "context.compacted")).toBe(false);

    const generic = await runTurn(bridge, "thr_omp_c3", null, compact("Compaction failed: model error"), "/compact");
    expect(generic.deltas.some((d) => d.kind === "context.compacted")).toBe(true);
    expect(generic.deltas.find((d) => d.kind === "turn.boundary")).toEqual({ kind: "turn.boundary", status: "completed" });
  });
});

describe("opencode side channels (spec 30 §1.6)", () => {
  it("Task as kind think becomes a delegation (label, detail, background, child session at close); a plain think stays reasoning", async () => {
    bridge = startInProcessBridge();
    const { deltas } = await runTurn(bridge, "thr_oc", "opencode", {
      prompts: [
        {
          steps: [
            toolCall({ toolCallId: "oc_task", kind: "think", title: "task", rawInput: { description: "Find callers", subagent_type: "general", prompt: "find them", background: true } }),
            toolUpdate({ toolCallId: "oc_task", status: "completed", rawOutput: { output: "found 3", metadata: { sessionId: "ses_child_1" } } }),
            toolCall({ toolCallId: "oc_think", kind: "think", title: "thinking", rawInput: { thought: "consider" } }),
            toolUpdate({ toolCallId: "oc_think", status: "completed" }),
            { end: "end_turn" },
          ],
        },
      ],
    });
    const open = opensOf(deltas, "oc_task")[0]!;
    expect(open.item).toEqual({ type: "delegation", childRef: "oc_task", label: "Find callers", background: true });
    expect(open.presentation.detail).toBe("general");
    expect(closeOf(deltas, "oc_task")!.item).toMatchObject({ type: "delegation", childRef: "ses_child_1" });
    expect(opensOf(deltas, "oc_think")[0]!.item).toEqual({ type: "reasoning", summary: [], content: ["consider"] });
    expect(deltas.some((d) => d.kind === "item.open" && d.key?.providerItemId === "oc_task" && d.item.type === "reasoning")).toBe(false);
  });

  it("bash output/metadata.exit become the result text and exit code; a shared exitCode is never overwritten", async () => {
    bridge = startInProcessBridge();
    const { deltas } = await runTurn(bridge, "thr_oc_sh", "opencode", {
      prompts: [
        {
          steps: [
            toolCall({ toolCallId: "oc_a", kind: "execute", title: "false", rawInput: { command: "false" } }),
            toolUpdate({ toolCallId: "oc_a", status: "completed", rawOutput: { output: "nope", metadata: { exit: 1 } } }),
            toolCall({ toolCallId: "oc_b", kind: "execute", title: "ls", rawInput: { command: "ls" } }),
            toolUpdate({ toolCallId: "oc_b", status: "completed", rawOutput: { metadata: { output: "from metadata", exit: 0 } } }),
            toolCall({ toolCallId: "oc_c", kind: "execute", title: "true", rawInput: { command: "true" } }),
            toolUpdate({ toolCallId: "oc_c", status: "completed", rawOutput: { output: "ignored", metadata: { exit: 9 }, stdout: "kept", exitCode: 0 } }),
            { end: "end_turn" },
          ],
        },
      ],
    });
    expect(closeOf(deltas, "oc_a")).toMatchObject({ exitCode: 1, resultText: "nope" });
    expect(closeOf(deltas, "oc_b")).toMatchObject({ exitCode: 0, resultText: "from metadata" });
    expect(closeOf(deltas, "oc_c")).toMatchObject({ exitCode: 0, resultText: "kept" });
  });

  it("the opencode session agent gets OPENCODE_CLIENT=acp and OPENCODE_ENABLE_QUESTION_TOOL=false; other dialects do not", async () => {
    bridge = startInProcessBridge();
    const names = ["OPENCODE_CLIENT", "OPENCODE_ENABLE_QUESTION_TOOL"];
    const text = (deltas: AnyRecord[]) =>
      JSON.parse(
        deltas
          .filter((d) => d.kind === "item.textDelta")
          .map((d) => d.text)
          .join(""),
      );
    const oc = await runTurn(bridge, "thr_oc_env", "opencode", { prompts: [{ steps: [{ echoEnv: names }, { end: "end_turn" }] }] });
    expect(text(oc.deltas)).toEqual({ OPENCODE_CLIENT: "acp", OPENCODE_ENABLE_QUESTION_TOOL: "false" });
    const other = await runTurn(bridge, "thr_grok_env", "grok", { prompts: [{ steps: [{ echoEnv: names }, { end: "end_turn" }] }] });
    expect(text(other.deltas)).toEqual({ OPENCODE_CLIENT: process.env.OPENCODE_CLIENT ?? null, OPENCODE_ENABLE_QUESTION_TOOL: process.env.OPENCODE_ENABLE_QUESTION_TOOL ?? null });
  });
});

describe("generic dialect and selection through the bridge (spec 30 §1.2, §1.7)", () => {
  it("a command named cursor-agent picks the cursor dialect; an unknown acpDialect (the SDK's `generic` example) wins over it and is generic", async () => {
    bridge = startInProcessBridge();
    const task = { toolCallId: "t_gen", kind: "other", title: "Task", rawInput: { _toolName: "task" } };
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ reuse: true, steps: [toolCall(task), { end: "end_turn" }] }] }, "generic-sel");
    // The fixture agent run through a link whose basename is `cursor-agent`.
    const link = join(bridge.dir, "cursor-agent");
    symlinkSync(process.execPath, link);
    const named = { ...spec, command: link };
    const itemTypeOf = async (threadId: string, providerOptions: AnyRecord): Promise<string> => {
      const start = await bridge!.request("thread/start", threadStartParams(threadId, named, bridge!.dir, { providerOptions }));
      expect(start.error).toBeUndefined();
      const from = bridge!.out.length;
      await bridge!.request("turn/start", turnStartParams(threadId, "go", "creq_gsel000001"));
      await bridge!.waitFor((m) => isBoundary(m) && m.params.threadId === threadId, from);
      return opensOf(bridge!.deltas(threadId), "t_gen")[0]!.item.type;
    };
    expect(await itemTypeOf("thr_gsel_cmd", { acpLaunchSpec: named })).toBe("delegation");
    expect(await itemTypeOf("thr_gsel_gen", { acpLaunchSpec: named, acpDialect: "generic" })).toBe("tool");
    expect(await itemTypeOf("thr_gsel_omp", { acpLaunchSpec: named, acpDialect: "omp" })).toBe("tool");
  });
});
