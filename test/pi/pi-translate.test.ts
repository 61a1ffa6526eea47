/**
 * The pure parts of the pi bridge: pi's line-numbered edit diff as a unified diff (with the
 * real diff of the committed turn-tools recording), bash's exit trailer, error categories.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unifiedDiffFromPi } from "../../stack/bridge-kit/pi-diff.js";
import { bashOutcome, readResultText } from "../../stack/pi/tools.js";
import { createPiTurnTranslator, errorCategoryOf, httpStatusOf, type PiEvent } from "../../stack/pi/translate.js";
import { gatedCallOf, gatedToolsFor } from "../../stack/pi/extension.js";
import { repoRoot } from "../cli/run-cli.js";

describe("unifiedDiffFromPi", () => {
  it("converts the diff pi 0.73.1 reported in the committed turn-tools recording", () => {
    const lines = readFileSync(path.join(repoRoot, "recordings/pi/turn-tools/provider→bridge.ndjson"), "utf8").trim().split("\n");
    const end = lines.map((l) => JSON.parse(JSON.parse(l).line)).find((m) => m.type === "tool_execution_end" && m.toolName === "edit");
    expect(end.result.details.diff).toBe(" 1 title: parity notes\n-2 status: draft\n+2 status: final\n 3 owner: nobody");
    expect(unifiedDiffFromPi(end.result.details.diff, "notes.txt")).toBe("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n");
  });

  it("splits hunks at pi's `...` and carries the line offset of earlier hunks", () => {
    const pi = ["  1 a", "+ 2 new", "  2 b", "    ...", " 10 j", "-11 k", "+12 K", " 12 l"].join("\n");
    expect(unifiedDiffFromPi(pi, "f")).toBe("--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+new\n b\n@@ -10,3 +11,3 @@\n j\n-k\n+K\n l\n");
  });

  it("a pure insertion or deletion names the line before it, as diff(1) does", () => {
    expect(unifiedDiffFromPi("+1 only", "f")).toBe("--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+only\n");
    expect(unifiedDiffFromPi("-1 gone", "f")).toBe("--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-gone\n");
  });

  it("gives no diff for an empty or foreign text, rather than a wrong one", () => {
    expect(unifiedDiffFromPi("", "f")).toBeUndefined();
    expect(unifiedDiffFromPi("@@ -1 +1 @@\n-a\n+b", "f")).toBeUndefined();
  });
});

describe("bash results, errors, the gate", () => {
  it("takes the exit code only from pi's own trailer, never inventing one", () => {
    expect(bashOutcome({ text: "out\nerr\n\n\nCommand exited with code 3", details: undefined, isError: true })).toEqual({ output: "out\nerr\n", exitCode: 3 });
    expect(bashOutcome({ text: "3 notes.txt\n", details: undefined, isError: false })).toEqual({ output: "3 notes.txt\n" });
    // pi's placeholder where the command printed nothing (recordings/pi/approval-allow's `touch`) is not output.
    expect(bashOutcome({ text: "(no output)", details: undefined, isError: false })).toEqual({ output: "" });
    expect(bashOutcome({ text: "(no output)\n\nCommand exited with code 1", details: undefined, isError: true })).toEqual({ output: "", exitCode: 1 });
  });

  it("reads the HTTP status pi's error message starts with", () => {
    expect(httpStatusOf("401 Invalid API key (a scripted model error)")).toBe(401);
    expect(httpStatusOf("Connection error.")).toBeNull();
    expect([401, 429, 400, 503, 500, null].map((s) => errorCategoryOf(s))).toEqual(["unauthorized", "rate-limit", "bad-request", "overloaded", "internal", "unknown"]);
  });

  it("gates nothing in full mode, bash in accept-edits, bash and file writes otherwise", () => {
    expect(gatedToolsFor("full")).toEqual([]);
    expect(gatedToolsFor("accept-edits")).toEqual(["bash"]);
    expect(gatedToolsFor("read-only")).toEqual(["bash", "edit", "write"]);
  });
});

describe("reads and approvals as pi reports them", () => {
  const events = (cell: string): PiEvent[] =>
    readFileSync(path.join(repoRoot, "recordings/pi", cell, "provider→bridge.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(JSON.parse(l).line) as PiEvent);

  it("the turn-tools recording's read closes with the file's bytes as its resultText", () => {
    const translator = createPiTurnTranslator({ cwd: "/tmp/parity-workspace", modelContextWindow: null, usageBefore: undefined });
    const closes = events("turn-tools")
      .flatMap((event) => translator.event(event))
      .filter((d) => d.kind === "item.close");
    expect(closes.find((d) => d.kind === "item.close" && d.item.type === "fileRead")).toMatchObject({ status: "completed", resultText: "title: parity notes\nstatus: draft\nowner: nobody\n" });
  });

  it("a read pi cut returns the bytes it kept, not its continuation notice; otherwise the result's text", () => {
    const notice = "\n\n[Showing lines 1-2 of 9. Use offset=3 to continue.]";
    expect(readResultText({ text: `a\nb${notice}`, details: { truncation: { content: "a\nb", truncated: true } }, isError: false })).toBe("a\nb");
    expect(readResultText({ text: "[Line 1 is 60KB, exceeds 50KB limit. Use bash: …]", details: { truncation: { content: "", firstLineExceedsLimit: true } }, isError: false })).toBe(
      "[Line 1 is 60KB, exceeds 50KB limit. Use bash: …]",
    );
    expect(readResultText({ text: "x\n", details: undefined, isError: false })).toBe("x\n");
  });

  it("the approval-allow recording's gated bash closes approved once the runtime allowed it; without an answer noted, it carries none", () => {
    const run = (allowed: boolean | undefined) => {
      const translator = createPiTurnTranslator({ cwd: "/tmp/parity-workspace", modelContextWindow: null, usageBefore: undefined });
      return events("approval-allow").flatMap((event) => {
        const gated = event.type === "extension_ui_request" ? gatedCallOf(event as { title?: unknown; message?: unknown }) : undefined;
        if (gated && allowed !== undefined) translator.noteApproval(gated.toolCallId, allowed);
        return translator.event(event).filter((d) => d.kind === "item.close" && d.item.type === "command");
      });
    };
    expect(run(true)).toMatchObject([{ status: "completed", approvalStatus: "approved" }]);
    expect(run(undefined)[0]).not.toHaveProperty("approvalStatus");
  });

  it("the new-file-folder recording's write closes as the new file's diff with its hunk (applying it to no file gives the content)", () => {
    const translator = createPiTurnTranslator({ cwd: "/tmp/parity-workspace", modelContextWindow: null, usageBefore: undefined });
    const closes = events("new-file-folder")
      .flatMap((event) => translator.event(event))
      .filter((d) => d.kind === "item.close");
    expect(closes).toMatchObject([
      {
        status: "completed",
        item: {
          type: "fileChange",
          changes: [{ path: "/tmp/parity-workspace/src/new/hello.txt", kind: "add", diff: "--- /dev/null\n+++ b/tmp/parity-workspace/src/new/hello.txt\n@@ -0,0 +1,1 @@\n+hello\n" }],
        },
      },
    ]);
  });
});
