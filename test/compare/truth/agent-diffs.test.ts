/**
 * The truth judge reads every diff format the agents of the committed recordings send (pi's
 * line-numbered diff, Claude Code's structuredPatch hunks, unified diffs) as a diff, and cites it
 * when a lane's file change is untrue: before, only a text with `@@` hunks counted, so pi's own diff
 * was never evidence.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evidenceIndex } from "../../../harness/compare/truth/evidence.js";
import { judgeTruth } from "../../../harness/compare/truth/judge.js";
import { agentDiff, diffApplies } from "../../../harness/compare/truth/unified-diff.js";
import { parseFactsText } from "../../../harness/facts/reader.js";
import { buildThreadLane, normalizeThreadLane } from "../../../harness/lanes/index.js";
import { readRecording } from "../../../harness/recording/reader.js";
import { findingLines } from "../../../harness/report/truth-text.js";
import { agentSideOf, committed, repoRoot } from "./agent-side.js";

const factsFile = path.join(repoRoot, "cells/turn-tools/facts.json");
const facts = parseFactsText(readFileSync(factsFile, "utf8"), factsFile);
const edit = facts.steps.find((s) => s.kind === "edit")!;
if (edit.kind !== "edit" || edit.after === null) throw new Error("cells/turn-tools/facts.json: its edit changed notes.txt");
const before = edit.before!.split("{{cwd}}").join("/tmp/parity-workspace");
const after = edit.after.split("{{cwd}}").join("/tmp/parity-workspace");

/** The committed lane with its edit's diff made to say `final` as `FINAL`: a diff that does not give the file after. */
function corrupted(lane: readonly unknown[]): unknown[] {
  const text = JSON.stringify(lane);
  const bad = text.replace(/\+status: final\\n/g, "+status: FINAL\\n");
  expect(bad).not.toBe(text);
  return JSON.parse(bad) as unknown[];
}

/** The agent-side lines with every copy of the file's bytes before the edit cut out (as sent, and as JSON inside a string). */
function withoutFileBefore(lines: ReturnType<typeof agentSideOf>): ReturnType<typeof agentSideOf> {
  const once = JSON.stringify(before).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  const cut = lines.map((l) => ({ ...l, line: l.line.split(twice).join("(cut)").split(once).join("(cut)") }));
  expect(cut.filter((l, i) => l.line !== lines[i]!.line).length).toBeGreaterThan(0);
  return cut;
}

describe("agentDiff: each diff format a committed recording's agent sends is read as a unified diff that gives the file after", () => {
  it.each([
    ["pi", "pi", 53, "$.result.details.diff"],
    ["acp-pi", "pi", 53, "$.params.update.rawOutput.details.diff"],
    ["claude-code", "structuredPatch", 51, "$.tool_use_result.structuredPatch"],
    ["acp-claude", "structuredPatch", 52, "$.params.update._meta.claudeCode.toolResponse.structuredPatch"],
    ["codex", "unified", 47, "$.params.item.changes[0].diff"],
  ] as const)("%s turn-tools: a %s diff at seq %i", (provider, format, seq, at) => {
    const diffs = evidenceIndex(committed(provider, "turn-tools").agentSide).diffs();
    const applying = diffs.filter((d) => diffApplies(d.unified, before, after));
    expect(applying[0]).toMatchObject({ format, seq, path: at, dir: "provider→bridge" });
    expect(new Set(applying.map((d) => d.format))).toEqual(new Set([format]));
  });

  it("pi's own text converts with the pi bridge's parser; a text that is no diff, and hunks of another shape, are none", () => {
    const pi = " 1 title: parity notes\n-2 status: draft\n+2 status: final\n 3 owner: nobody";
    expect(agentDiff(pi)).toEqual({ format: "pi", unified: "--- a/file\n+++ b/file\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n" });
    // A numbered view with no change line (a read's output) is no diff.
    expect(agentDiff(" 1 title: parity notes\n 2 status: draft")).toBeUndefined();
    expect(agentDiff("3 notes.txt\n")).toBeUndefined();
    // omp's `<n>|text` lines: no bridge reads them (unified-diff.ts AgentDiffFormat).
    expect(agentDiff(" 1|title: parity notes\n-2|status: draft\n+2|status: final")).toBeUndefined();
    expect(agentDiff([{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b"] }, { oldStart: 2 }])).toBeUndefined();
    expect(agentDiff([])).toBeUndefined();
  });
});

describe("judgeTruth cites pi's line-numbered diff as the change the bridge had", () => {
  it.each([
    ["pi", "$.result.details.diff"],
    ["acp-pi", "$.params.update.rawOutput.details.diff"],
  ])("%s turn-tools: the committed lane's diff is true; a copy whose diff says FINAL is changed by the bridge, pi's diff (seq 53) the evidence", (provider, at) => {
    const { lane, agentSide } = committed(provider, "turn-tools");
    expect(judgeTruth({ lane, agentSide, facts }).judged.find((j) => j.fact === "edit#1.diff")?.verdict).toBe("true");
    const verdict = judgeTruth({ lane: corrupted(lane), agentSide, facts });
    expect(verdict.findings.find((f) => f.fact === "edit#1.diff")).toMatchObject({
      kind: "changed",
      cause: "bridge",
      field: "item.changes.diff",
      evidence: [{ seq: 53, dir: "provider→bridge", path: at, format: "pi" }],
    });
    const lines = findingLines(
      verdict.findings.find((f) => f.fact === "edit#1.diff")!,
      true,
      100,
    );
    expect(lines.at(-1)).toBe(
      `    evidence: seq 53 (provider→bridge) ${at} (pi's line-numbered diff, read as a unified diff) = " 1 title: parity notes\\n-2 status: draft\\n+2 status: final\\n 3 owner: nobody"`,
    );
    // Where the file's bytes before the edit are nowhere else, pi's diff still places the change: the bridge's, not the adapter's.
    const alone = judgeTruth({ lane: corrupted(lane), agentSide: withoutFileBefore(agentSide), facts });
    expect(alone.findings.find((f) => f.fact === "edit#1.diff")).toMatchObject({ kind: "changed", cause: "bridge", evidence: [{ seq: 53, path: at, format: "pi" }] });
  });

  it("test/fixtures/pi-acp-edit-race (real: pi-acp sent no diff entry): the lane the bridge wrote then, a fileChange without a diff, lost the diff pi sent at seq 53", async () => {
    const dir = path.join(repoRoot, "test/fixtures/pi-acp-edit-race/acp-pi/turn-tools");
    const lane = normalizeThreadLane(buildThreadLane(await readRecording(dir)).events);
    const verdict = judgeTruth({ lane, agentSide: agentSideOf(dir), facts });
    expect(verdict.findings.find((f) => f.fact === "edit#1.diff")).toMatchObject({
      kind: "lost",
      cause: "bridge",
      evidence: [{ seq: 53, path: "$.params.update.rawOutput.details.diff", format: "pi" }],
    });
  });

  it("claude-code turn-tools: a corrupted diff cites Claude Code's structuredPatch (seq 51), not the replaced snippet", () => {
    const { lane, agentSide } = committed("claude-code", "turn-tools");
    const verdict = judgeTruth({ lane: corrupted(lane), agentSide, facts });
    expect(verdict.findings.find((f) => f.fact === "edit#1.diff")).toMatchObject({
      kind: "changed",
      cause: "bridge",
      evidence: [{ seq: 51, path: "$.tool_use_result.structuredPatch", format: "structuredPatch" }],
    });
  });
});
