import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { judgeTruth, type TruthFinding } from "../../../harness/compare/truth/judge.js";
import { isInterleaving } from "../../../harness/compare/truth/output.js";
import { diffApplies } from "../../../harness/compare/truth/unified-diff.js";
import { APPROVAL_ALLOW, COMMAND_FAILS, MODEL_ERROR, TURN_TOOLS } from "./hand-facts.js";
import { committed, repoRoot } from "./agent-side.js";
import { parseFactsText } from "../../../harness/facts/reader.js";
import { acpOwnership } from "../../../harness/compare/truth/acp-ownership.js";

const brief = (f: TruthFinding) => ({ fact: f.fact, kind: f.kind, cause: f.cause, seqs: f.evidence.map((e) => e.seq) });

describe("isInterleaving: exact bytes, any order of the two pipes' lines", () => {
  const out = "first line\nsecond line\n";
  const err = "something went wrong\n";
  it("accepts both pipes in any line order", () => {
    expect(isInterleaving(out + err, out, err)).toBe(true);
    expect(isInterleaving(err + out, out, err)).toBe(true);
    expect(isInterleaving("first line\nsomething went wrong\nsecond line\n", out, err)).toBe(true);
  });
  it("refuses a trimmed newline, a reordered pipe, an extra or a changed byte", () => {
    expect(isInterleaving("first line\nsecond line\nsomething went wrong", out, err)).toBe(false);
    expect(isInterleaving("second line\nfirst line\nsomething went wrong\n", out, err)).toBe(false);
    expect(isInterleaving(`${out + err}\n`, out, err)).toBe(false);
    expect(isInterleaving("first line\nsecond line\nsomething went wronG\n", out, err)).toBe(false);
    expect(isInterleaving(" first line\nsecond line\n", out, "")).toBe(false);
  });
  it("keeps carriage returns and escapes as bytes", () => {
    expect(isInterleaving("a\r\n\u001b[31mred\u001b[0m\n", "a\r\n\u001b[31mred\u001b[0m\n", "")).toBe(true);
    expect(isInterleaving("a\n\u001b[31mred\u001b[0m\n", "a\r\n\u001b[31mred\u001b[0m\n", "")).toBe(false);
  });
});

describe("diffApplies: a diff is true when it turns the file before into the file after", () => {
  const before = "title: parity notes\nstatus: draft\nowner: nobody\n";
  const after = before.replace("draft", "final");
  it("a hunk with its context applies", () => {
    expect(diffApplies("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n", before, after)).toBe(true);
  });
  it("a diff without hunks, or one that gives another file, does not", () => {
    expect(diffApplies("--- a/notes.txt\n+++ b/notes.txt\n-status: draft\n+status: final\n", before, after)).toBe(false);
    expect(diffApplies("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: done\n owner: nobody\n", before, after)).toBe(false);
  });
  it("a new file is a diff from nothing", () => {
    expect(diffApplies("--- /dev/null\n+++ b/new/file.txt\n@@ -0,0 +1 @@\n+hello\n", null, "hello\n")).toBe(true);
  });
});

describe("judgeTruth on committed lanes (facts as the cells' scripts make them)", () => {
  it("codex's command-fails lane is true in every fact", () => {
    const verdict = judgeTruth({ ...committed("codex", "command-fails"), facts: COMMAND_FAILS });
    expect(verdict.findings).toEqual([]);
    expect(verdict.judged.map((j) => `${j.fact}=${j.verdict}`)).toEqual(["command#1.output=true", "command#1.exit=true", "command#1.approval=true", "turn#1.end=true"]);
  });

  it("acp-pi's command-fails: the agent sent the command (seq 24), the exact output (seq 41) and the exit code (seq 43); a lane showing a tool call with pi's trailer and no exit code is untrue by the bridge", () => {
    const { lane, agentSide } = committed("acp-pi", "command-fails");
    // The committed lane, doctored back to what the bridge made before the pi dialect: the
    // command a generic toolCall whose result is pi's text, trailer included; no streamed output.
    const text = "first line\nsecond line\nsomething went wrong\n\n\nCommand exited with code 3";
    const generic = (lane as Array<Record<string, any>>).flatMap((event) => {
      if (event.type === "item/commandExecution/outputDelta") return [];
      if (event.item?.type !== "commandExecution") return [event];
      const { command, cwd: _cwd, aggregatedOutput: _output, exitCode: _exit, approvalStatus: _approval, ...rest } = event.item;
      const done = event.type === "item/completed" ? { result: { content: [{ type: "text", text }], details: {} }, error: text } : {};
      return [{ ...event, item: { ...rest, type: "toolCall", tool: "other", arguments: { command }, ...done } }];
    });
    expect(generic).toHaveLength(lane.length - 2);
    const verdict = judgeTruth({ lane: generic, agentSide, facts: COMMAND_FAILS });
    expect(verdict.findings.map(brief)).toEqual([
      { fact: "command#1.item", kind: "changed", cause: "bridge", seqs: [24] },
      { fact: "command#1.output", kind: "changed", cause: "bridge", seqs: [41] },
      { fact: "command#1.exit", kind: "lost", cause: "bridge", seqs: [43] },
    ]);
  });

  it("acp-pi's command-fails lane, through the pi dialect, is true in every fact", () => {
    const verdict = judgeTruth({ ...committed("acp-pi", "command-fails"), facts: COMMAND_FAILS });
    expect(verdict.findings).toEqual([]);
    expect(verdict.judged.map((j) => `${j.fact}=${j.verdict}`)).toEqual(["command#1.output=true", "command#1.exit=true", "command#1.approval=true", "turn#1.end=true"]);
  });

  it("claude-code's command-fails: the agent itself trimmed the output (the adapter), the exit code is true", () => {
    const verdict = judgeTruth({ ...committed("claude-code", "command-fails"), facts: COMMAND_FAILS });
    expect(verdict.findings.map(brief)).toEqual([{ fact: "command#1.output", kind: "changed", cause: "adapter", seqs: [36] }]);
  });

  it("acp-gemini's command-fails: no output and no exit code in the agent-side lanes: lost by the adapter", () => {
    const verdict = judgeTruth({ ...committed("acp-gemini", "command-fails"), facts: COMMAND_FAILS });
    expect(verdict.findings.map(brief)).toEqual([
      { fact: "command#1.output", kind: "lost", cause: "adapter", seqs: [] },
      { fact: "command#1.exit", kind: "lost", cause: "adapter", seqs: [] },
    ]);
  });

  it("acp-claude-zed's approval-allow: the touch printed nothing and the lane shows nothing; approved after the allow (the bridge once showed the call's description as output and no status)", () => {
    const verdict = judgeTruth({ ...committed("acp-claude-zed", "approval-allow"), facts: APPROVAL_ALLOW });
    const byFact = new Map(verdict.judged.map((j) => [j.fact, j]));
    expect(byFact.get("command#1.output")?.verdict).toBe("true");
    expect(byFact.get("command#1.approval")?.verdict).toBe("true");
  });

  it("acp-omp's model-error: a 401 shown as a completed turn, and the agent never said so: invented, adapter", () => {
    const verdict = judgeTruth({ ...committed("acp-omp", "model-error"), facts: MODEL_ERROR });
    expect(verdict.findings.map(brief)).toEqual([
      { fact: "turn#1.end", kind: "invented", cause: "adapter", seqs: [] },
      { fact: "turn#1.error", kind: "lost", cause: "adapter", seqs: [] },
    ]);
  });

  it("codex's and pi's model-error: a failed turn with a typed error is true", () => {
    for (const provider of ["codex", "pi"]) expect(judgeTruth({ ...committed(provider, "model-error"), facts: MODEL_ERROR }).findings).toEqual([]);
  });

  it("turn-tools: claude-code's diff applies; its read's text is the bytes the agent sent (seq 40): true; the lane as it was, with Claude Code's numbered view, is changed by the bridge", () => {
    const verdict = judgeTruth({ ...committed("claude-code", "turn-tools"), facts: TURN_TOOLS });
    const byFact = new Map(verdict.judged.map((j) => [j.fact, j]));
    expect(byFact.get("edit#1.diff")?.verdict).toBe("true");
    expect(byFact.get("edit#1.path")?.verdict).toBe("true");
    expect(byFact.get("edit#1.created")?.verdict).toBe("true");
    expect(byFact.get("read#1.content")?.verdict).toBe("true");
    // The lane as the bridge wrote it before issue 37's fix: the numbered view the tool_result shows the model.
    const { lane, agentSide } = committed("claude-code", "turn-tools");
    const numbered = JSON.parse(
      JSON.stringify(lane).replace('"resultText":"title: parity notes\\nstatus: draft\\nowner: nobody\\n"', '"resultText":"1\\ttitle: parity notes\\n2\\tstatus: draft\\n3\\towner: nobody\\n4\\t"'),
    ) as unknown[];
    expect(numbered).not.toEqual(lane);
    const before = judgeTruth({ lane: numbered as typeof lane, agentSide, facts: TURN_TOOLS });
    expect(before.findings.find((f) => f.fact === "read#1.content")).toMatchObject({ kind: "changed", cause: "bridge", evidence: [{ seq: 40, dir: "provider→bridge" }] });
  });

  it("turn-tools: a diff without hunks is changed, with the agent's new text as the bridge's evidence (acp-grok as its lane was before the bridge gave it hunks); acp-grok's diff now, and opencode's own unified diff, are true", () => {
    const { lane, agentSide } = committed("acp-grok", "turn-tools");
    expect(judgeTruth({ lane, agentSide, facts: TURN_TOOLS }).judged.find((j) => j.fact === "edit#1.diff")?.verdict).toBe("true");
    // The lane as the bridge wrote it before issue 37's fix: the same -/+ lines without their @@ hunk.
    const hunkless = "--- a/tmp/parity-workspace/notes.txt\n+++ b/tmp/parity-workspace/notes.txt\n-status: draft\n+status: final\n";
    const before = JSON.parse(
      JSON.stringify(lane).replace(/"diff":"--- a\/tmp\/parity-workspace\/notes\.txt\\n\+\+\+ b\/tmp\/parity-workspace\/notes\.txt\\n@@[^"]*"/g, `"diff":${JSON.stringify(hunkless)}`),
    ) as unknown[];
    expect(JSON.stringify(before)).toContain(JSON.stringify(hunkless));
    const grok = judgeTruth({ lane: before, agentSide, facts: TURN_TOOLS });
    expect(grok.findings.find((f) => f.fact === "edit#1.diff")).toMatchObject({ kind: "changed", cause: "bridge", field: "item.changes.diff" });
    const opencode = judgeTruth({ ...committed("acp-opencode", "turn-tools"), facts: TURN_TOOLS });
    expect(opencode.judged.find((j) => j.fact === "edit#1.diff")?.verdict).toBe("true");
  });

  it("turn-tools: the bridge's fs/read_text_file answer is a read's evidence only when the read call of the file was in flight (acp-omp: bridge; acp-gemini: the read after its read call settled is its edit's, so adapter)", () => {
    // acp-omp as its lane was before the bridge carried the fs answer: omp's display, its last newline cut.
    const { lane, agentSide } = committed("acp-omp", "turn-tools");
    expect(judgeTruth({ lane, agentSide, facts: TURN_TOOLS }).judged.find((j) => j.fact === "read#1.content")?.verdict).toBe("true");
    const trimmed = JSON.parse(
      JSON.stringify(lane).replace('"resultText":"title: parity notes\\nstatus: draft\\nowner: nobody\\n"', '"resultText":"title: parity notes\\nstatus: draft\\nowner: nobody"'),
    ) as unknown[];
    const omp = judgeTruth({ lane: trimmed, agentSide, facts: TURN_TOOLS });
    expect(omp.findings.find((f) => f.fact === "read#1.content")).toMatchObject({ kind: "changed", cause: "bridge", evidence: [{ seq: 33, dir: "bridge→provider", path: "$.result.content" }] });
    const gemini = judgeTruth({ ...committed("acp-gemini", "turn-tools"), facts: TURN_TOOLS });
    expect(gemini.findings.find((f) => f.fact === "read#1.content")).toMatchObject({ kind: "lost", cause: "adapter", evidence: [] });
    expect(acpOwnership(committed("acp-gemini", "turn-tools").agentSide).unownedReadAnswers).toEqual(new Set([34, 38]));
    expect(acpOwnership(agentSide).unownedReadAnswers).toEqual(new Set());
  });

  it("turn-tools: an edit's diff path is not a read's path (acp-cursor's Read File names no file: adapter)", () => {
    const cursor = judgeTruth({ ...committed("acp-cursor", "turn-tools"), facts: TURN_TOOLS });
    expect(cursor.findings.find((f) => f.fact === "read#1.path")).toMatchObject({ kind: "lost", cause: "adapter", evidence: [] });
    expect(acpOwnership(committed("acp-cursor", "turn-tools").agentSide).changedFilePaths).toEqual(new Set(["25 $.params.update.content[0].path"]));
  });

  it("turn-tools: a replaced snippet without the file before gives no position for a diff (acp-hermes-agent: adapter); with the file's bytes beside it, the bridge had the change", () => {
    const { lane, agentSide } = committed("acp-hermes-agent", "turn-tools");
    const hermes = judgeTruth({ lane, agentSide, facts: TURN_TOOLS });
    expect(hermes.findings.find((f) => f.fact === "edit#1.diff")).toMatchObject({ kind: "changed", cause: "adapter" });
    const withFile = [
      ...agentSide,
      { dir: "bridge→provider" as const, seq: 999, line: JSON.stringify({ jsonrpc: "2.0", id: 9, result: { content: TURN_TOOLS.steps[0]!.kind === "read" ? TURN_TOOLS.steps[0]!.content : "" } }) },
    ];
    expect(judgeTruth({ lane, agentSide: withFile, facts: TURN_TOOLS }).findings.find((f) => f.fact === "edit#1.diff")).toMatchObject({ kind: "changed", cause: "bridge" });
  });

  it("new-file-folder: a write sent as its content only (pi-acp) gives no file before: the missing diff is the adapter's; once the agent says the file is new (an empty old text), the bridge had the change", () => {
    const facts = parseFactsText(readFileSync(path.join(repoRoot, "cells/new-file-folder/facts.json"), "utf8"), "cells/new-file-folder/facts.json");
    const { lane, agentSide } = committed("acp-pi", "new-file-folder");
    expect(judgeTruth({ lane, agentSide, facts }).findings.find((f) => f.fact === "write#1.diff")).toMatchObject({ kind: "lost", cause: "adapter" });
    const saysNew = agentSide.map((l) => ({ ...l, line: l.line.replace('"rawInput":{"path"', '"rawInput":{"oldText":"","path"') }));
    expect(saysNew.some((l) => l.line.includes('"oldText":""'))).toBe(true);
    expect(judgeTruth({ lane, agentSide: saysNew, facts }).findings.find((f) => f.fact === "write#1.diff")).toMatchObject({ kind: "lost", cause: "bridge" });
  });

  it("a read the agent made only through the client (fs/read_text_file), reporting no tool call: the missing item is the adapter's, not the bridge's", () => {
    const lane = [
      { type: "turn/started", scope: { kind: "turn", turnId: "#1" } },
      { type: "turn/completed", scope: { kind: "turn", turnId: "#1" }, status: "completed" },
    ];
    const fsOnly = [
      { dir: "provider→bridge" as const, seq: 20, line: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "fs/read_text_file", params: { sessionId: "s", path: "/tmp/parity-workspace/notes.txt" } }) },
      { dir: "bridge→provider" as const, seq: 21, line: JSON.stringify({ jsonrpc: "2.0", id: 0, result: { content: "title: parity notes\n" } }) },
    ];
    expect(judgeTruth({ lane, agentSide: fsOnly, facts: TURN_TOOLS }).findings.find((f) => f.fact === "read#1.item")).toMatchObject({ kind: "lost", cause: "adapter" });
    const reported = [
      {
        dir: "provider→bridge" as const,
        seq: 19,
        line: JSON.stringify({
          jsonrpc: "2.0",
          method: "session/update",
          params: { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "c1", title: "read", kind: "other", rawInput: { path: "/tmp/parity-workspace/notes.txt" } } },
        }),
      },
      ...fsOnly,
    ];
    expect(judgeTruth({ lane, agentSide: reported, facts: TURN_TOOLS }).findings.find((f) => f.fact === "read#1.item")).toMatchObject({ kind: "lost", cause: "bridge", evidence: [{ seq: 19 }] });
  });

  it("an item no step made is invented (the omp fixture's extra grep), told by the agent: adapter", () => {
    const verdict = judgeTruth({ ...committed("acp-omp-fixture", "turn-tools"), facts: TURN_TOOLS });
    expect(verdict.findings.find((f) => f.fact === "command+1.item")).toMatchObject({ kind: "invented", cause: "adapter", actual: "grep -q draft notes.txt" });
  });

  it("a created file reported as an update at another path, and an approval status after a deny", () => {
    const lane = [
      { type: "turn/started", scope: { kind: "turn", turnId: "#1" } },
      {
        type: "item/completed",
        scope: { kind: "turn", turnId: "#1" },
        item: {
          type: "fileChange",
          id: "#2",
          changes: [{ path: "/tmp/parity-workspace/file.txt", kind: "update", diff: "--- a/file.txt\n+++ b/file.txt\n@@ -0,0 +1 @@\n+hi\n" }],
          status: "completed",
          approvalStatus: null,
        },
      },
      { type: "item/completed", scope: { kind: "turn", turnId: "#1" }, item: { type: "commandExecution", id: "#3", command: "rm x", cwd: "", status: "failed", approvalStatus: null } },
      { type: "turn/completed", scope: { kind: "turn", turnId: "#1" }, status: "completed" },
    ];
    const agentSide = [
      {
        dir: "provider→bridge" as const,
        seq: 7,
        line: JSON.stringify({ method: "session/update", params: { update: { content: [{ type: "diff", path: "/tmp/parity-workspace/src/new/file.txt", oldText: null, newText: "hi\n" }] } } }),
      },
      { dir: "provider→bridge" as const, seq: 9, line: JSON.stringify({ id: 1, method: "session/request_permission", params: {} }) },
    ];
    const verdict = judgeTruth({
      lane,
      agentSide,
      facts: {
        cell: "x",
        steps: [
          { response: 0, call: 0, tool: "write", kind: "write", path: "src/new/file.txt", approval: null, ran: true, before: null, after: "hi\n", created: true, error: null },
          { response: 1, call: 0, tool: "bash", kind: "command", command: "rm x", approval: "deny", ran: false, stdout: null, stderr: null, exit: null },
        ],
        turns: [{ prompt: 1, end: "completed" }],
      },
    });
    expect(verdict.findings.map(brief)).toEqual([
      { fact: "write#1.path", kind: "changed", cause: "bridge", seqs: [7] },
      { fact: "write#1.created", kind: "changed", cause: "bridge", seqs: [7] },
      { fact: "command#1.approval", kind: "lost", cause: "bridge", seqs: [9] },
    ]);
  });
});
