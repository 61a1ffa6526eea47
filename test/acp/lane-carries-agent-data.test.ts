/**
 * The lane carries what the agent said (issues 37 and 39; house rule "a bridge translates; it
 * never invents or drops"): each case is a committed real recording (recordings/acp-*) whose
 * agent-side lane holds a datum the bridge used to drop or alter, driven through the translator
 * the way the bridge drives it, and the datum read back from the deltas. The seq in each title is
 * the agent's line that carries the datum.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDeltaAssembler } from "../../stack/assembler/index.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type AnyRecord, type InProcessBridge } from "./bridge-harness.js";
import { selectAcpDialect } from "../../stack/acp/dialects/index.js";
import type { ThreadDelta } from "../../stack/protocol/thread-delta.js";
import { unwrapCommandText } from "../../stack/acp/translate/command-text.js";
import { modelErrorInfo } from "../../stack/acp/translate/model-error.js";
import { driveCell, readLane, REPO_ROOT } from "./translate-recording-driver.js";

type Close = Extract<ThreadDelta, { kind: "item.close" }>;
type Open = Extract<ThreadDelta, { kind: "item.open" }>;

/** The dialect the bridge picks for a provider's agent command. */
const COMMANDS: Record<string, string> = {
  "acp-opencode": "opencode",
  "acp-omp": "omp",
  "acp-codex": "codex-acp",
  "acp-copilot": "copilot",
  "acp-claude": "claude-agent-acp",
  "acp-claude-zed": "claude-code-acp",
  "acp-qwen": "qwen",
  "acp-pi": "pi-acp",
  "acp-gemini": "gemini",
};

/** Every delta of a committed cell of `provider`, driven through a fresh translator. */
function deltas(provider: string, cell: string): ThreadDelta[] {
  const dialect = selectAcpDialect({ command: COMMANDS[provider] ?? provider });
  return driveCell(cell, dialect, path.join(REPO_ROOT, "recordings", provider)).deltas;
}

/** The `item.close` of the tool call `toolCallId` in a committed cell. */
function close(provider: string, cell: string, toolCallId: string): Close {
  const found = deltas(provider, cell).find((delta): delta is Close => delta.kind === "item.close" && delta.key.providerItemId === toolCallId);
  if (found === undefined) throw new Error(`${provider}/${cell}: no item.close of ${toolCallId}`);
  return found;
}

/** The command item shape of a close (the test fails on any other type). */
function command(delta: Close | Open) {
  expect(delta.item.type).toBe("command");
  return delta.item as Extract<Close["item"], { type: "command" }>;
}

describe("command output exactly as printed", () => {
  it("acp-opencode command-fails seq 36: the trailing newline of rawOutput.output stays", () => {
    const closed = close("acp-opencode", "command-fails", "call_parity_1_1");
    expect(closed.aggregatedOutput).toBe("first line\nsecond line\nsomething went wrong\n");
    expect(closed.exitCode).toBe(3);
  });

  // Issue 39: Claude Code rewords an output over its limit for the model as a <persisted-output>
  // notice (path + 2 KB preview); its Bash result in _meta holds the output: claude-agent-acp's
  // Claude Code its first 30000 characters, as the native claude-code lane shows them
  // (lanes/claude-code/long-output.json), claude-code-acp's all 20000 lines (without the final
  // newline; recorded cut by the redaction's mark). The notice stays the result text.
  it.each([
    ["acp-claude", "seq 27", "call_parity_1_1"],
    ["acp-claude-zed", "seq 25", "call_parity_2_1"],
  ])("%s long-output %s: the output is _meta.claudeCode.toolResponse.stdout, the <persisted-output> notice its result text", (provider, _seq, toolCallId) => {
    const closed = close(provider, "long-output", toolCallId);
    const root = path.join(REPO_ROOT, "recordings", provider);
    const sent = readLane("long-output", "provider→bridge.ndjson", root)
      .map((line) => line.message.params?.update?._meta?.claudeCode?.toolResponse?.stdout)
      .find((stdout): stdout is string => typeof stdout === "string");
    expect(sent).toMatch(/^1\n2\n3\n/);
    expect(closed.aggregatedOutput).toBe(sent);
    expect(closed.resultText).toMatch(/^<persisted-output>\nOutput too large \(106\.3KB\)\. Full output saved to: /);
    const native = readLane("long-output", "bridge→runtime.ndjson", path.join(REPO_ROOT, "recordings", "claude-code"))
      .flatMap((line) => (line.message.params?.deltas ?? []) as ThreadDelta[])
      .find((delta): delta is Close => delta.kind === "item.close" && delta.item.type === "command");
    if (provider === "acp-claude") expect(closed.aggregatedOutput).toBe(native?.aggregatedOutput);
    else expect(closed.aggregatedOutput).toMatch(/⟦redacted: 107193 chars trimmed⟧\n19951\n[\s\S]*\n20000$/);
  });

  it("acp-claude approval-allow seq 31: toolResponse.stdout '' says the touch printed nothing, as the native lane's empty output", () => {
    expect(close("acp-claude", "approval-allow", "call_parity_1_1").aggregatedOutput).toBe("");
  });

  it("acp-codex turn-tools seq 44: stdout '3 notes.txt\\n' whole", () => {
    expect(close("acp-codex", "turn-tools", "call_parity_3_1").aggregatedOutput).toBe("3 notes.txt\n");
  });

  it("acp-copilot command-fails seq 36: the <shellId> trailer comes off, the output's own newline stays, the exit code moves to the item", () => {
    const closed = close("acp-copilot", "command-fails", "call_parity_1_1");
    expect(closed.aggregatedOutput).toBe("first line\nsecond line\nsomething went wrong\n");
    expect(closed.exitCode).toBe(3);
  });

  it("acp-copilot approval-allow: '\\n<shellId…>' of a touch is no output at all", () => {
    const closed = close("acp-copilot", "approval-allow", "call_parity_1_1");
    expect(closed.aggregatedOutput).toBeUndefined();
    expect(closed.exitCode).toBe(0);
  });

  it("acp-omp command-fails seq 34: the wall-time and exit-code trailers come off with their blank lines only", () => {
    const closed = close("acp-omp", "command-fails", "call_parity_1_1");
    expect(closed.aggregatedOutput).toBe("first line\nsecond line\nsomething went wrong\n");
    expect(closed.exitCode).toBe(3);
  });

  it("acp-qwen approval-allow seq 24: qwen's 'Output: (empty)' in its labelled report is no output", () => {
    // The driver feeds no permission requests, through which qwen alone names this call: its text is read as the bridge's reader reads it.
    const line = readLane("approval-allow", "provider→bridge.ndjson", path.join(REPO_ROOT, "recordings", "acp-qwen")).find((entry) => entry.seq === 24);
    const text = line?.message.params.update.content[0].content.text as string;
    expect(text).toContain("Output: (empty)");
    expect(unwrapCommandText(text)).toEqual({ text: "", exitCode: 0 });
  });

  it("acp-claude-zed approval-allow seq 21/29: the call's description ('Create approved.txt') is not its output; its toolResponse (seq 27) says it printed nothing", () => {
    const closed = close("acp-claude-zed", "approval-allow", "call_parity_2_1");
    expect(closed.aggregatedOutput).toBe("");
    expect(closed.resultText).toBe("");
  });
});

describe("where and how long a command ran", () => {
  it("acp-opencode command-fails seq 24: rawInput.cwd is the item's cwd, at its open and its close", () => {
    const all = deltas("acp-opencode", "command-fails");
    const open = all.find((delta): delta is Open => delta.kind === "item.open" && delta.key.providerItemId === "call_parity_1_1");
    expect(open).toBeDefined();
    expect(command(open!).cwd).toBe("/tmp/parity-workspace");
    expect(command(close("acp-opencode", "command-fails", "call_parity_1_1")).cwd).toBe("/tmp/parity-workspace");
  });

  it("acp-copilot command-fails seq 36: the cwd of the shell_exit entry", () => {
    expect(command(close("acp-copilot", "command-fails", "call_parity_1_1")).cwd).toBe("/tmp/parity-workspace");
  });

  it("acp-codex turn-tools seq 44: rawOutput.duration {secs: 0, nanos: 12503} is 0 ms; rawInput.cwd", () => {
    const shape = command(close("acp-codex", "turn-tools", "call_parity_3_1"));
    expect(shape.durationMs).toBe(0);
    expect(shape.cwd).toBe("/tmp/parity-workspace");
  });

  it("acp-omp command-fails seq 34: details.wallTimeMs 2754.94 is 2755 ms", () => {
    expect(command(close("acp-omp", "command-fails", "call_parity_1_1")).durationMs).toBe(2755);
  });

  it("acp-gemini turn-tools seq 43: the directory gemini names in the call's content stays at the close (seq 45 sends content [])", () => {
    const all = deltas("acp-gemini", "turn-tools");
    const open = all.find((delta): delta is Open => delta.kind === "item.open" && delta.key.providerItemId === "run_shell_command__call_parity_3_1");
    expect(command(open!).cwd).toBe("/tmp/parity-workspace");
    const closed = close("acp-gemini", "turn-tools", "run_shell_command__call_parity_3_1");
    expect(command(closed).cwd).toBe("/tmp/parity-workspace");
    expect(closed.aggregatedOutput).toBeUndefined();
  });

  it("an agent that names no directory (acp-claude turn-tools) keeps the empty cwd: the session's is not put in its place", () => {
    expect(command(close("acp-claude", "turn-tools", "call_parity_3_1")).cwd).toBe("");
  });
});

/**
 * The agent's side of a committed cell's first prompt as a fixture script: every `session/update`
 * and `session/request_permission` the agent sent after the bridge's `session/prompt`, in order,
 * then the prompt's stop reason. Read from the recording at test time (nothing copied).
 */
function promptScript(provider: string, cell: string): FixtureScriptInput {
  const root = path.join(REPO_ROOT, "recordings", provider);
  const promptSeq = readLane(cell, "bridge→provider.ndjson", root).find((line) => line.message.method === "session/prompt")?.seq ?? Infinity;
  const steps: unknown[] = [];
  let stopReason = "end_turn";
  for (const line of readLane(cell, "provider→bridge.ndjson", root)) {
    if (line.seq < promptSeq) continue;
    const { message } = line;
    if (message.method === "session/update") steps.push({ update: message.params.update });
    else if (message.method === "session/request_permission") steps.push({ permission: { toolCall: message.params.toolCall, options: message.params.options } });
    else if (message.method === undefined && typeof message.result?.stopReason === "string") {
      stopReason = message.result.stopReason;
      break;
    }
  }
  return { prompts: [{ steps: [...steps, { end: stopReason }] }] };
}

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/** The assembled `item/completed` items of one turn of `script`, the runtime answering every approval with `decision`. */
async function completedItems(script: FixtureScriptInput, threadId: string, decision: string): Promise<AnyRecord[]> {
  bridge = startInProcessBridge();
  const { spec } = fixtureLaunchSpec(bridge.dir, script);
  bridge.onRuntimeRequest(() => ({ decision }));
  await bridge.request("thread/start", threadStartParams(threadId, spec, bridge.dir));
  await bridge.request("turn/start", turnStartParams(threadId, "go", "creq_2424242424"));
  await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === threadId);
  const assembler = createDeltaAssembler({ providerId: "acp-fixture", entropyPrefix: "t", textDeltaFlushMs: 0, now: () => 0 });
  const items: AnyRecord[] = [];
  for (const m of bridge.out) {
    if (m.method !== "thread/delta" || m.params.threadId !== threadId) continue;
    for (const event of assembler.assemble({ threadId, deltas: m.params.deltas })) if (event.type === "item/completed") items.push(event.item);
  }
  return items;
}

describe("an approval as it was decided", () => {
  it("acp-opencode approval-allow seq 23: the runtime's allow_once makes the command's approvalStatus 'approved'", async () => {
    const items = await completedItems(promptScript("acp-opencode", "approval-allow"), "thr_allow", "allow_once");
    expect(items.filter((item) => item.type === "commandExecution").map((item) => [item.command, item.approvalStatus])).toEqual([["touch approved.txt", "approved"]]);
  });

  it("acp-opencode approval-deny: a deny still says 'denied', never 'approved'", async () => {
    const items = await completedItems(promptScript("acp-opencode", "approval-deny"), "thr_deny", "deny");
    expect(items.filter((item) => item.type === "commandExecution").map((item) => item.approvalStatus)).toEqual(["denied"]);
  });
});

describe("the prompt's token usage", () => {
  const usages = (provider: string, cell: string) => deltas(provider, cell).filter((delta): delta is Extract<ThreadDelta, { kind: "usage" }> => delta.kind === "usage");
  const breakdown = (inputTokens: number, outputTokens: number, totalTokens: number) => ({ totalTokens, inputTokens, cachedInputTokens: 0, outputTokens, reasoningOutputTokens: 0 });

  it("acp-opencode command-fails seq 69: the session/prompt answer's usage is the turn's usage", () => {
    expect(usages("acp-opencode", "command-fails")).toEqual([{ kind: "usage", total: breakdown(1020, 20, 1040), last: breakdown(1020, 20, 1040), modelContextWindow: null }]);
  });

  it("acp-copilot turn-tools seq 82: usage with cachedReadTokens, sized by the last usage_update (seq 54)", () => {
    const [usage] = usages("acp-copilot", "turn-tools");
    expect(usage?.last).toEqual(breakdown(4100, 80, 4180));
    expect(usage?.modelContextWindow).toBe(128000);
  });

  it("acp-gemini command-fails seq 59: _meta.quota.token_count (total = input + output)", () => {
    expect(usages("acp-gemini", "command-fails").map((usage) => usage.last)).toEqual([breakdown(2030, 40, 2070)]);
  });

  it("acp-claude resume: each prompt's usage is its `last`; the resumed agent is a new process, so its `total` starts again", () => {
    const all = usages("acp-claude", "resume");
    expect(all.map((usage) => usage.last.totalTokens)).toEqual([1030, 1040]);
    expect(all.map((usage) => usage.total.totalTokens)).toEqual([1030, 1040]);
  });
});

describe("output streamed while the command runs", () => {
  const snapshots = (provider: string, cell: string) =>
    deltas(provider, cell)
      .filter((delta): delta is Extract<ThreadDelta, { kind: "command.outputSnapshot" }> => delta.kind === "command.outputSnapshot")
      .map((delta) => [delta.key.providerItemId, delta.text]);

  it("acp-opencode command-fails seq 33 and 35: each in_progress update's content is a snapshot of the output so far", () => {
    expect(snapshots("acp-opencode", "command-fails")).toEqual([
      ["call_parity_1_1", "first line\nsecond line\n"],
      ["call_parity_1_1", "first line\nsecond line\nsomething went wrong\n"],
    ]);
  });

  it("acp-copilot command-fails seq 34: a status-less update with content is output too", () => {
    expect(snapshots("acp-copilot", "command-fails")).toEqual([["call_parity_1_1", "first line\nsecond line\nsomething went wrong\n"]]);
  });

  it("acp-claude command-fails seq 30: the description Claude Code puts in content is no output", () => {
    const line = readLane("command-fails", "provider→bridge.ndjson", path.join(REPO_ROOT, "recordings", "acp-claude")).find((entry) => entry.seq === 30);
    expect(line?.message.params.update.content).toEqual([{ type: "content", content: { type: "text", text: "Run the failing check" } }]);
    expect(snapshots("acp-claude", "command-fails")).toEqual([]);
  });

  it("acp-omp command-fails seq 30 and 32: the output is read from rawOutput.content (omp's content starts with the command line), its trailers off", () => {
    expect(snapshots("acp-omp", "command-fails")).toEqual([
      ["call_parity_1_1", "first line\nsecond line\nsomething went wrong\n"],
      ["call_parity_1_1", "first line\nsecond line\nsomething went wrong\n"],
    ]);
  });
});

describe("the agent's own unified diff, hunks and context included", () => {
  const diffOf = (provider: string, cell: string, toolCallId: string) => {
    const item = close(provider, cell, toolCallId).item;
    expect(item.type).toBe("fileChange");
    return (item as Extract<Close["item"], { type: "fileChange" }>).changes.map((change) => change.diff);
  };

  it("acp-codex turn-tools seq 39: changes[path].unified_diff", () => {
    expect(diffOf("acp-codex", "turn-tools", "call_parity_2_1")).toEqual(["@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n"]);
  });

  it("acp-opencode turn-tools seq 45: rawOutput.metadata.filediff.patch, as sent", () => {
    const [diff] = diffOf("acp-opencode", "turn-tools", "call_parity_2_1");
    expect(diff).toMatch(
      /^Index: \/tmp\/parity-workspace\/notes.txt\n=+\n--- \/tmp\/parity-workspace\/notes.txt\n\+\+\+ \/tmp\/parity-workspace\/notes.txt\n@@ -1,3 \+1,3 @@\n title: parity notes\n-status: draft\n\+status: final\n owner: nobody\n$/,
    );
  });

  it("acp-qwen turn-tools: rawOutput.fileDiff; acp-copilot: rawOutput.detailedContent; acp-claude-zed: the diff text block of rawOutput", () => {
    expect(diffOf("acp-qwen", "turn-tools", "call_parity_2_1")[0]).toContain("@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n");
    expect(diffOf("acp-copilot", "turn-tools", "call_parity_2_1")[0]).toContain("diff --git a/tmp/parity-workspace/notes.txt b/tmp/parity-workspace/notes.txt\n");
    expect(diffOf("acp-claude-zed", "turn-tools", "call_parity_3_1")[0]).toContain("@@ -1,3 +1,3 @@\n");
  });

  it("acp-claude turn-tools seq 52: the structuredPatch of _meta.claudeCode.toolResponse, kept past the closing update's _meta (seq 54), as the native claude-code lane writes it", () => {
    expect(diffOf("acp-claude", "turn-tools", "call_parity_2_1")).toEqual([
      "--- a/tmp/parity-workspace/notes.txt\n+++ b/tmp/parity-workspace/notes.txt\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n",
    ]);
  });

  const PI_NOTES_DIFF = "--- a/tmp/parity-workspace/notes.txt\n+++ b/tmp/parity-workspace/notes.txt\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n";

  it("acp-pi turn-tools seq 53 without pi-acp's diff entry (test/fixtures/pi-acp-edit-race): pi's own rawOutput.details.diff, as the committed run (with the entry) shows it", () => {
    const raced = driveCell("turn-tools", selectAcpDialect({ command: "pi-acp" }), path.join(REPO_ROOT, "test", "fixtures", "pi-acp-edit-race", "acp-pi"));
    const closed = raced.deltas.find((delta): delta is Close => delta.kind === "item.close" && delta.key.providerItemId === "call_parity_2_1");
    expect(closed?.item).toEqual({ type: "fileChange", changes: [{ path: "/tmp/parity-workspace/notes.txt", kind: "update", diff: PI_NOTES_DIFF }] });
    expect(diffOf("acp-pi", "turn-tools", "call_parity_2_1")).toEqual([PI_NOTES_DIFF]);
  });

  it("an agent that sends no unified diff (acp-gemini turn-tools seq 41) gets the diff of the file texts it sent, with its hunk (issue 37)", () => {
    expect(diffOf("acp-gemini", "turn-tools", "replace__call_parity_2_1")).toEqual([
      "--- a/tmp/parity-workspace/notes.txt\n+++ b/tmp/parity-workspace/notes.txt\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n",
    ]);
  });
});

describe("a model error as the agent typed it", () => {
  /** The JSON-RPC error the agent answered the cell's first `session/prompt` with. */
  const promptError = (provider: string) => {
    const root = path.join(REPO_ROOT, "recordings", provider);
    const prompt = readLane("model-error", "bridge→provider.ndjson", root).find((line) => line.message.method === "session/prompt");
    const answer = readLane("model-error", "provider→bridge.ndjson", root).find((line) => line.message.id === prompt?.message.id && line.message.error !== undefined);
    if (answer === undefined) throw new Error(`${provider}/model-error: no error answer to session/prompt`);
    return answer.message.error as { code: number; message: string; data?: unknown };
  };

  it.each([
    ["acp-claude", { category: "unauthorized", providerCode: "authentication_failed", httpStatusCode: 401 }],
    ["acp-claude-zed", { category: "unauthorized", providerCode: null, httpStatusCode: 401 }],
    ["acp-codex", { category: "unauthorized", providerCode: "other", httpStatusCode: 401 }],
    ["acp-gemini", { category: "unauthorized", providerCode: null, httpStatusCode: 401 }],
    ["acp-qwen", { category: "unauthorized", providerCode: null, httpStatusCode: 401 }],
    ["acp-opencode", { category: "unknown", providerCode: "APIError", httpStatusCode: null }],
  ])("%s model-error: the status and kind the agent's error answer names", (provider, expected) => {
    expect(modelErrorInfo(promptError(provider))).toEqual(expected);
  });

  /** The assembled events of one turn whose prompt the fixture agent rejects with `error`. */
  async function rejectedTurn(error: { code: number; message: string; data?: unknown }, threadId: string): Promise<AnyRecord[]> {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [{ fail: error }] }] });
    await bridge.request("thread/start", threadStartParams(threadId, spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams(threadId, "go", "creq_3939393939"));
    await bridge.waitFor((m) => m.method === "error" && m.params.threadId === threadId);
    const assembler = createDeltaAssembler({ providerId: "acp-fixture", entropyPrefix: "t", textDeltaFlushMs: 0, now: () => 0 });
    const events: AnyRecord[] = [];
    for (const m of bridge.out) {
      if (m.method !== "thread/delta" || m.params.threadId !== threadId) continue;
      events.push(...assembler.assemble({ threadId, deltas: m.params.deltas }));
    }
    return events;
  }

  // Issue 39: the native lanes end a failed turn with its error (lanes/codex/model-error.json);
  // the grammar's settling provider.error completes it without one, which lost the agent's words.
  it.each([
    [
      "acp-codex",
      "seq 19",
      'Internal error: {"message":"unexpected status 401 Unauthorized: Invalid API key (a scripted model error), url: http://127.0.0.1:0/v1/responses","codex_error_info":"other"}',
    ],
    ["acp-claude", "seq 23", 'Internal error: Failed to authenticate. API Error: 401 Invalid API key (a scripted model error): {"errorKind":"authentication_failed"}'],
    [
      "acp-claude-zed",
      "seq 19",
      'Internal error: Failed to authenticate. API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"Invalid API key (a scripted model error)"}}',
    ],
  ])("%s model-error %s: the failed turn carries the agent's error as it answered it", async (provider, _seq, message) => {
    const events = await rejectedTurn(promptError(provider), `thr_${provider.replace(/-/g, "_")}`);
    const completed = events.filter((event) => event.type === "turn/completed");
    expect(completed).toEqual([expect.objectContaining({ status: "failed", error: { message } })]);
    // Once as the agent's error, once as the turn's: the provider/error's detail is the same text.
    expect(events.filter((event) => event.type === "provider/error").map((event) => event.detail)).toEqual([message]);
  });

  it("a JSON-RPC error naming no status and no kind has no typed facts", () => {
    expect(modelErrorInfo({ code: -32603, message: "Internal error" })).toBeUndefined();
  });
});
