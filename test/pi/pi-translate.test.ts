/**
 * The pure parts of the pi bridge: pi's line-numbered edit diff as a unified diff (with the
 * real diff of the committed turn-tools recording), bash's exit trailer, error categories.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unifiedDiffFromPi } from "../../stack/pi/diff.js";
import { bashOutcome } from "../../stack/pi/tools.js";
import { errorCategoryOf, httpStatusOf } from "../../stack/pi/translate.js";
import { gatedToolsFor } from "../../stack/pi/extension.js";
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
