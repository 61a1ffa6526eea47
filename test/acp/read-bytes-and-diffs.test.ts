/**
 * Issue 37 build point 5, the ACP bridge's reads and diffs: a `fileRead` item's `resultText` is
 * the file's exact bytes wherever the agent-side traffic carries them (the agent's structured
 * result, or the bridge's own answer to the call's `fs/read_text_file`), never bytes from a read
 * that belongs to another call; a file change the agent sent as texts gets a unified diff with
 * its hunks, which turns the file before into the file after. Inputs are the committed
 * recordings (recordings/acp-*) and their cell's facts (cells/<cell>/facts.json), driven through
 * the translator as the bridge drives it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { selectAcpDialect } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";
import { exactReadBytes } from "../../stack/acp/translate/read-bytes.js";
import { textsUnifiedDiff } from "../../stack/bridge-kit/texts-diff.js";
import { fsWriteChange } from "../../stack/acp/translate/tool-calls.js";
import { driveCell, REPO_ROOT } from "./translate-recording-driver.js";

type AnyDelta = Record<string, any>;

/** The committed recordings of `provider`. */
const root = (provider: string) => path.join(REPO_ROOT, "recordings", provider);

/** The facts of a cell (cells/<cell>/facts.json): a read's bytes, an edit's file before and after. */
function facts(cell: string): { steps: Array<Record<string, any>> } {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, "cells", cell, "facts.json"), "utf8"));
}

/** The item.close deltas of a provider's cell, driven through the translator with the dialect its command implies. */
function closes(provider: string, cell: string, command = "agent"): AnyDelta[] {
  const dialect = selectAcpDialect({ command });
  return (driveCell(cell, dialect, root(provider)).deltas as AnyDelta[]).filter((delta) => delta.kind === "item.close");
}

const readOf = (provider: string, cell: string, command?: string) => closes(provider, cell, command).filter((delta) => delta.item.type === "fileRead");
const changesOf = (provider: string, cell: string, command?: string) => closes(provider, cell, command).flatMap((delta) => (delta.item.type === "fileChange" ? delta.item.changes : []));

describe("a read's resultText is the file's exact bytes where the agent-side traffic carries them", () => {
  const notes = facts("turn-tools").steps.find((step) => step.kind === "read")!.content as string;
  const twoFiles = facts("two-tool-calls").steps.find((step) => step.kind === "read")!.content as string;

  it("acp-claude: the agent's structured result (_meta.claudeCode.toolResponse.file.content), not its fenced, numbered display", () => {
    expect(readOf("acp-claude", "turn-tools").map((close) => close.resultText)).toEqual([notes]);
    expect(readOf("acp-claude", "two-tool-calls").map((close) => close.resultText)).toEqual([twoFiles]);
  });

  it("acp-claude-zed: the bridge's own answer to the fs/read_text_file the read call made while it ran, not the fenced display", () => {
    expect(readOf("acp-claude-zed", "turn-tools").map((close) => close.resultText)).toEqual([notes]);
    // Two calls in flight at once (the read and a command): the fs read names the read call's file, so it is the read's.
    expect(readOf("acp-claude-zed", "two-tool-calls").map((close) => close.resultText)).toEqual([twoFiles]);
  });

  it("acp-omp: the fs answer keeps the last newline omp's display cuts", () => {
    expect(readOf("acp-omp", "turn-tools", "omp").map((close) => close.resultText)).toEqual([notes]);
    expect(readOf("acp-omp", "two-tool-calls", "omp").map((close) => close.resultText)).toEqual([twoFiles]);
    expect(readOf("acp-omp-fixture", "turn-tools", "omp").map((close) => close.resultText)).toEqual([notes]);
  });

  it("acp-gemini: an fs read made after the read call settled is not the read's (gemini reads for its edit's permission request); no bytes are made up", () => {
    const reads = readOf("acp-gemini", "turn-tools");
    expect(reads).toHaveLength(1);
    expect(reads[0]!.resultText).toBeUndefined();
  });

  it("a read of another file, or two read calls of the same file in flight, claim no fs answer", () => {
    const translator = createAcpTranslator({ threadId: "thr_reads", dialect: selectAcpDialect({ command: "agent" }), now: () => 0 });
    translator.turnStarted();
    const read = (toolCallId: string, file: string) => ({ sessionUpdate: "tool_call", toolCallId, title: "read", kind: "read", status: "pending", locations: [{ path: file }] });
    translator.update(read("r1", "/w/a.txt"));
    expect(translator.readClaimant("/w/b.txt")).toBeUndefined();
    expect(translator.readClaimant("/w/a.txt")).toBe("r1");
    translator.update(read("r2", "/w/a.txt"));
    expect(translator.readClaimant("/w/a.txt")).toBeUndefined();
    // A relative path on the call names the same file as the absolute one the bridge resolved.
    translator.update(read("r3", "c.txt"));
    expect(translator.readClaimant("/w/c.txt")).toBe("r3");
    translator.fsRead("c\n", "r3");
    const closed = translator.update({ sessionUpdate: "tool_call_update", toolCallId: "r3", status: "completed", content: [{ type: "content", content: { type: "text", text: "c" } }] }) as AnyDelta[];
    expect(closed.find((delta) => delta.kind === "item.close")).toMatchObject({ resultText: "c\n", item: { type: "fileRead", path: "c.txt" } });
    // The call settled: a later read of its file belongs to nothing, and its answer changes nothing.
    expect(translator.readClaimant("/w/c.txt")).toBeUndefined();
    expect(() => translator.fsRead("late\n", "r3")).not.toThrow();
  });

  it("exactReadBytes: the structured result names the call's file, and differing fs answers give no bytes", () => {
    const event = { toolCallId: "t", _meta: { claudeCode: { toolResponse: { file: { filePath: "/w/other.txt", content: "other\n" } } } } };
    expect(exactReadBytes(event, "/w/notes.txt", [])).toBeUndefined();
    expect(exactReadBytes(event, "/w/other.txt", [])).toBe("other\n");
    expect(exactReadBytes({ toolCallId: "t" }, "/w/notes.txt", ["a\n", "a\n"])).toBe("a\n");
    expect(exactReadBytes({ toolCallId: "t" }, "/w/notes.txt", ["a\n", "b\n"])).toBeUndefined();
  });
});

describe("a file change sent as texts gets a unified diff with its hunks", () => {
  const edit = facts("turn-tools").steps.find((step) => step.kind === "edit")!;

  it.each([
    ["acp-gemini", "agent"],
    ["acp-grok", "grok"],
    ["acp-omp", "omp"],
    ["acp-omp-fixture", "omp"],
    ["acp-pi", "agent"],
  ])("%s turn-tools: the diff of the ACP diff content's texts applies to the file before and gives the file after", (provider, command) => {
    const changes = changesOf(provider, "turn-tools", command);
    expect(changes.length).toBeGreaterThan(0);
    for (const change of changes) {
      expect(change.diff).toMatch(/^--- a\/tmp\/parity-workspace\/notes\.txt\n\+\+\+ b\/tmp\/parity-workspace\/notes\.txt\n@@ -1,3 \+1,3 @@\n/);
      expect(applyPatch(edit.before, change.diff)).toBe(edit.after);
    }
  });

  it("acp-hermes-agent: texts that are the call's own snippet (rawInput old_string/new_string) get no made-up hunk position", () => {
    const changes = changesOf("acp-hermes-agent", "turn-tools");
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ oldText: "status: draft", newText: "status: final" });
    expect(changes[0]!.diff).toBeUndefined();
  });

  it("an agent's own unified diff is kept as sent (acp-opencode's metadata diff, acp-claude's structuredPatch)", () => {
    for (const [provider, command] of [
      ["acp-opencode", "opencode"],
      ["acp-claude", "agent"],
    ] as const) {
      const diffs = changesOf(provider, "turn-tools", command).map((change) => change.diff);
      expect(diffs.length).toBeGreaterThan(0);
      for (const diff of diffs) expect(applyPatch(edit.before, diff)).toBe(edit.after);
    }
  });

  it("a new file written through fs/write_text_file (acp-opencode new-file-folder): a diff from /dev/null with its hunk", () => {
    const write = facts("new-file-folder").steps.find((step) => step.kind === "write" || step.kind === "edit")!;
    const change = fsWriteChange({ path: "/tmp/parity-workspace/src/new/hello.txt", oldText: null, newText: write.after });
    expect(change).toMatchObject({ kind: "add", diff: "--- /dev/null\n+++ b/tmp/parity-workspace/src/new/hello.txt\n@@ -0,0 +1,1 @@\n+hello\n" });
    expect(applyPatch("", change.diff!)).toBe(write.after);
  });

  it("textsUnifiedDiff: same texts give none; a text without its last newline is marked, and the diff still applies", () => {
    expect(textsUnifiedDiff("/w/x", "a\n", "a\n")).toBeUndefined();
    const diff = textsUnifiedDiff("/w/x", "a\nb", "a\nc")!;
    expect(diff).toContain("\\ No newline at end of file");
    expect(applyPatch("a\nb", diff)).toBe("a\nc");
    const emptied = textsUnifiedDiff("/w/x", "a\n", "")!;
    expect(emptied).toContain("@@ -1,1 +0,0 @@");
    expect(applyPatch("a\n", emptied)).toBe("");
  });
});
