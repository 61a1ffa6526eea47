import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { approvalPayload, codexDecision } from "../../stack/codex/approvals.js";
import { commandShape, itemShape, unifiedDiff, unwrapShellCommand } from "../../stack/codex/items.js";
import { codexInput, recoveryOf } from "../../stack/codex/sessions.js";
import { CodexTranslator, errorInfoOf } from "../../stack/codex/translate.js";

describe("codex items → shapes (spec 60 Mapping)", () => {
  it("unwraps Codex's shell wrapper, single- and double-quoted (the command-fails recording's form)", () => {
    expect(unwrapShellCommand("/bin/bash -lc 'wc -l notes.txt'")).toBe("wc -l notes.txt");
    expect(unwrapShellCommand("/bin/bash -lc 'echo '\\''hi'\\'''")).toBe("echo 'hi'");
    expect(unwrapShellCommand(`/bin/bash -lc "sh -c 'echo first line; echo something went wrong >&2; exit 3'"`)).toBe("sh -c 'echo first line; echo something went wrong >&2; exit 3'");
    expect(unwrapShellCommand('/bin/bash -lc "echo \\"\\$HOME\\""')).toBe('echo "$HOME"');
    expect(unwrapShellCommand("ls -la")).toBe("ls -la");
  });

  it("a wrapper whose quoting the unwrapper does not undo gives Codex's own parsed command (codex command-signal: `$$` quoted apart)", () => {
    // The item as the committed recording has it (recordings/codex/command-signal, item/completed).
    const line = readFileSync(new URL("../../recordings/codex/command-signal/provider→bridge.ndjson", import.meta.url), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse((JSON.parse(l) as { line: string }).line) as { method?: string; params?: { item?: Record<string, unknown> } })
      .find((m) => m.method === "item/completed" && m.params?.item?.type === "commandExecution")!;
    const item = line.params!.item! as Parameters<typeof commandShape>[0];
    expect(unwrapShellCommand(String(item.command))).toMatch(/^\/bin\/bash -lc /);
    expect(commandShape(item, true)).toMatchObject({ type: "command", command: "sh -c 'echo before the signal; kill -TERM $$; echo never printed'" });
  });

  it("a lone read action is a fileRead; a wc is a command with its output, exit code and duration", () => {
    const read = {
      type: "commandExecution",
      id: "call_1",
      command: "/bin/bash -lc 'cat notes.txt'",
      cwd: "/w",
      commandActions: [{ type: "read", command: "cat notes.txt", name: "notes.txt", path: "/w/notes.txt" }],
    };
    expect(commandShape(read, true)).toEqual({ type: "fileRead", path: "/w/notes.txt", cmd: "cat notes.txt" });
    const wc = {
      type: "commandExecution",
      id: "call_2",
      command: "/bin/bash -lc 'wc -l notes.txt'",
      cwd: "/w",
      commandActions: [{ type: "unknown", command: "wc -l notes.txt" }],
      aggregatedOutput: "3 notes.txt\n",
      exitCode: 0,
      durationMs: 430,
    };
    expect(commandShape(wc, false)).toEqual({ type: "command", command: "wc -l notes.txt", cwd: "/w" });
    expect(commandShape(wc, true)).toEqual({ type: "command", command: "wc -l notes.txt", cwd: "/w", aggregatedOutput: "3 notes.txt\n", exitCode: 0, durationMs: 430 });
  });

  it("a file change gets a unified diff with headers, relative to the workspace; an added file's content becomes one hunk", () => {
    expect(unifiedDiff({ path: "/w/notes.txt", kind: { type: "update", move_path: null }, diff: "@@ -1 +1 @@\n-a\n+b\n" }, "/w")).toBe("--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-a\n+b\n");
    expect(unifiedDiff({ path: "/w/new.txt", kind: { type: "add" }, diff: "x\ny\n" }, "/w")).toBe("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n");
    expect(itemShape({ type: "enteredReviewMode", id: "r" }, "/w", false)).toBeUndefined();
  });

  it("error info: 401 is unauthorized, 429 rate-limit; the recovery hints follow (spec 10 §1.1)", () => {
    expect(errorInfoOf({ responseStreamConnectionFailed: { httpStatusCode: 401 } })).toEqual({ category: "unauthorized", httpStatusCode: 401 });
    expect(errorInfoOf("usageLimitExceeded")).toEqual({ category: "rate-limit", httpStatusCode: null });
    expect(errorInfoOf("badRequest")).toEqual({ category: "bad-request", httpStatusCode: null });
    expect(recoveryOf({ message: "x", codexErrorInfo: { responseStreamConnectionFailed: { httpStatusCode: 401 } } })).toEqual({ kind: "authRequired", retryable: false });
    expect(recoveryOf({ message: "x", codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 429 } } })).toEqual({ kind: "rateLimited", retryable: true });
    expect(recoveryOf({ message: "x", codexErrorInfo: "badRequest" })).toBeUndefined();
  });

  it("decisions and input map to Codex's own", () => {
    expect(["allow_once", "allow_for_session", "deny", undefined].map(codexDecision)).toEqual(["accept", "acceptForSession", "decline", "cancel"]);
    expect(codexInput([{ type: "text", text: "hi" }, { type: "image" }])).toEqual([{ type: "text", text: "hi", text_elements: [] }]);
    const payload = approvalPayload("item/commandExecution/requestApproval", {
      threadId: "t",
      turnId: "u",
      itemId: "call_1",
      command: "/bin/bash -lc 'touch a'",
      cwd: "/w",
      commandActions: [{ type: "unknown", command: "touch a" }],
    });
    expect(payload).toMatchObject({ kind: "approval", subject: { kind: "command", itemId: "call_1", command: "touch a", cwd: "/w" }, availableDecisions: ["allow_once", "allow_for_session", "deny"] });
  });
});

describe("codex translator", () => {
  const scoped = { threadId: "th", turnId: "tu" };
  it("an interrupted turn closes the message Codex left open, with the text it streamed, before the boundary", () => {
    const t = new CodexTranslator("/w");
    t.translate("turn/started", { threadId: "th", turn: { id: "tu", status: "inProgress" } });
    t.translate("item/started", { ...scoped, item: { type: "agentMessage", id: "msg_1", text: "" } });
    t.translate("item/agentMessage/delta", { ...scoped, itemId: "msg_1", delta: "Thinking…" });
    const done = t.translate("turn/completed", { threadId: "th", turn: { id: "tu", status: "interrupted", error: null } });
    expect(done).not.toBe("unknown");
    const deltas = (done as { deltas: unknown[] }).deltas;
    expect(deltas).toEqual([
      { kind: "item.close", key: { providerItemId: "msg_1" }, status: "interrupted", item: { type: "agentMessage", text: "Thinking…" } },
      { kind: "turn.boundary", status: "interrupted", providerCheckpointId: "tu" },
    ]);
  });

  it("the agentMessage Codex starts and completes with empty text (recordings/codex/zero-work) never reaches the thread", () => {
    const lines = readFileSync(new URL("../../recordings/codex/zero-work/provider→bridge.ndjson", import.meta.url), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(JSON.parse(l).line) as { method?: string; params?: { item?: { type?: string } } });
    const message = lines.filter((m) => (m.method === "item/started" || m.method === "item/completed") && m.params?.item?.type === "agentMessage");
    expect(message.map((m) => m.method)).toEqual(["item/started", "item/completed"]);
    const t = new CodexTranslator("/w");
    expect(message.map((m) => t.translate(m.method!, m.params))).toEqual([{ deltas: [] }, { deltas: [] }]);
    expect(t.closeOpenItems("completed")).toEqual([]);
  });

  it("a message opens on its first text, or at its completion when its text came without deltas", () => {
    const t = new CodexTranslator("/w");
    expect(t.translate("item/started", { ...scoped, item: { type: "agentMessage", id: "msg_1", text: "" } })).toEqual({ deltas: [] });
    expect(t.translate("item/agentMessage/delta", { ...scoped, itemId: "msg_1", delta: "Hi" })).toEqual({
      deltas: [
        { kind: "item.open", key: { providerItemId: "msg_1" }, item: { type: "agentMessage", text: "" } },
        { kind: "item.textDelta", key: { providerItemId: "msg_1" }, channel: "agentMessage", text: "Hi" },
      ],
    });
    t.translate("item/started", { ...scoped, item: { type: "agentMessage", id: "msg_2", text: "" } });
    expect(t.translate("item/completed", { ...scoped, item: { type: "agentMessage", id: "msg_2", text: "Done." } })).toEqual({
      deltas: [
        { kind: "item.open", key: { providerItemId: "msg_2" }, item: { type: "agentMessage", text: "" } },
        { kind: "item.close", key: { providerItemId: "msg_2" }, status: "completed", item: { type: "agentMessage", text: "Done." } },
      ],
    });
  });

  it("a command's output reaches the thread once: streamed deltas, or (a `cat` completed under load with no delta) its aggregated output as one delta", () => {
    const t = new CodexTranslator("/w");
    const cmd = (id: string, extra: Record<string, unknown> = {}) => ({
      type: "commandExecution",
      id,
      command: "/bin/bash -lc 'cat a.txt'",
      cwd: "/w",
      commandActions: [],
      status: "inProgress",
      ...extra,
    });
    t.translate("item/started", { ...scoped, item: cmd("call_1") });
    const done = cmd("call_1", { status: "completed", aggregatedOutput: "a\n", exitCode: 0 });
    const unstreamed = t.translate("item/completed", { ...scoped, item: done }) as { deltas: Array<Record<string, unknown>> };
    expect(unstreamed.deltas.filter((d) => d.kind === "item.outputDelta")).toEqual([{ kind: "item.outputDelta", key: { providerItemId: "call_1" }, channel: "command", text: "a\n" }]);
    t.translate("item/started", { ...scoped, item: cmd("call_2") });
    t.translate("item/commandExecution/outputDelta", { ...scoped, itemId: "call_2", delta: "a\n" });
    const streamed = t.translate("item/completed", { ...scoped, item: { ...done, id: "call_2" } }) as { deltas: Array<Record<string, unknown>> };
    expect(streamed.deltas.filter((d) => d.kind === "item.outputDelta")).toEqual([]);
  });

  it("a declined command closes failed with approvalStatus denied; bookkeeping notifications are ignored; an unknown one is reported", () => {
    const t = new CodexTranslator("/w");
    const item = {
      type: "commandExecution",
      id: "call_1",
      command: "/bin/bash -lc 'touch d'",
      cwd: "/w",
      commandActions: [{ type: "unknown", command: "touch d" }],
      status: "declined",
      aggregatedOutput: null,
      exitCode: null,
    };
    t.noteApproval("call_1", false);
    expect(t.translate("item/completed", { ...scoped, item })).toEqual({
      deltas: [{ kind: "item.close", key: { providerItemId: "call_1" }, status: "failed", approvalStatus: "denied", item: { type: "command", command: "touch d", cwd: "/w" } }],
    });
    expect(t.translate("thread/status/changed", {})).toBe("ignored");
    expect(t.translate("thread/realtime/started", {})).toBe("unknown");
    expect(t.translate("thread/goal/cleared", { threadId: "th" })).toEqual({ deltas: [{ kind: "extension.state", extensionKind: "provider-codex/goal", payload: null }] });
  });

  it("the turn-tools recording's read (a lone `cat`) closes with the bytes Codex's item carries as its resultText", () => {
    const lines = readFileSync(new URL("../../recordings/codex/turn-tools/provider→bridge.ndjson", import.meta.url), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(JSON.parse(l).line) as { method?: string; params?: unknown });
    const t = new CodexTranslator("/tmp/parity-workspace");
    const closes = lines.flatMap((m) => {
      const out = m.method === undefined ? "ignored" : t.translate(m.method, m.params);
      return typeof out === "string" ? [] : out.deltas.filter((d) => d.kind === "item.close");
    });
    const read = closes.find((d) => d.kind === "item.close" && d.item.type === "fileRead");
    expect(read).toMatchObject({ status: "completed", resultText: "title: parity notes\nstatus: draft\nowner: nobody\n", item: { type: "fileRead", path: "/tmp/parity-workspace/notes.txt" } });
    // Only the read says what it returned as resultText; a command keeps its output where it was.
    expect(closes.filter((d) => d.kind === "item.close" && d.item.type !== "fileRead" && "resultText" in d)).toEqual([]);
  });

  it("a read whose completed item carries no aggregatedOutput returns what its output deltas streamed", () => {
    const t = new CodexTranslator("/w");
    const read = { type: "commandExecution", id: "call_r", command: "/bin/bash -lc 'cat a.txt'", cwd: "/w", commandActions: [{ type: "read", command: "cat a.txt", name: "a.txt", path: "/w/a.txt" }] };
    t.translate("item/started", { ...scoped, item: { ...read, status: "inProgress" } });
    t.translate("item/commandExecution/outputDelta", { ...scoped, itemId: "call_r", delta: "one\n" });
    t.translate("item/commandExecution/outputDelta", { ...scoped, itemId: "call_r", delta: "two\n" });
    const done = t.translate("item/completed", { ...scoped, item: { ...read, status: "completed", aggregatedOutput: null, exitCode: 0 } }) as { deltas: Array<Record<string, unknown>> };
    expect(done.deltas.find((d) => d.kind === "item.close")).toMatchObject({ resultText: "one\ntwo\n", item: { type: "fileRead" } });
  });

  it("a command the runtime allowed closes approved; one Codex ran without asking carries no approvalStatus", () => {
    const t = new CodexTranslator("/w");
    const cmd = (id: string) => ({
      type: "commandExecution",
      id,
      command: "/bin/bash -lc 'touch a'",
      cwd: "/w",
      commandActions: [{ type: "unknown", command: "touch a" }],
      status: "completed",
      aggregatedOutput: null,
      exitCode: 0,
    });
    t.noteApproval("call_1", true);
    expect(t.translate("item/completed", { ...scoped, item: cmd("call_1") })).toMatchObject({ deltas: [{ kind: "item.close", status: "completed", approvalStatus: "approved" }] });
    expect((t.translate("item/completed", { ...scoped, item: cmd("call_2") }) as { deltas: object[] }).deltas[0]).not.toHaveProperty("approvalStatus");
  });
});
