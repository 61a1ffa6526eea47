import { describe, expect, it } from "vitest";
import { compareParity } from "../../harness/compare/parity.js";
import { cellResultFromVerdict, checkExitCode, toCheckReport, type CheckRunResult } from "../../harness/report/check-report.js";
import { escapeCommandData, renderGithubReport } from "../../harness/report/github.js";
import { renderJsonReport } from "../../harness/report/json.js";
import { escapeXml, renderJunitReport } from "../../harness/report/junit.js";
import { selectReporter } from "../../harness/report/reporters.js";
import { renderTextReport } from "../../harness/report/text.js";
import { UsageError } from "../../harness/errors.js";
import { referenceLane, xmlProblem } from "./helpers.js";

/** A run of three cells on the real turn-tools lane: one failing (changed field + stale entry + divergence), one passing, one skipped. */
async function sampleRun(): Promise<{ run: CheckRunResult; commandIndex: number }> {
  const expected = await referenceLane("turn-tools");
  const live = structuredClone(expected);
  const commandIndex = live.findIndex((e) => e.type === "item/completed" && e.item?.type === "commandExecution");
  live[commandIndex]!.item.exitCode = 7;
  // A value full of characters the XML and workflow-command formats must escape.
  live[commandIndex]!.item.aggregatedOutput = `a<b & "c" 'd' %0A 100% \u0001 ]]> \n line2`;
  const stale = {
    provider: "acp-cursor",
    cell: "turn-tools",
    layer: "events" as const,
    path: "/**/noSuchField",
    pr: "#4",
    reason: "old",
    source: { file: "allowlists/acp-cursor.json", index: 0 },
  };
  const failing = cellResultFromVerdict({
    verdict: compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live }, oracle: { events: expected }, allowlist: [stale] }),
    ms: 1500,
    events: live.length,
    divergences: [{ seq: 12, expected: '{"method":"thread/delta"}', actual: null }],
  });
  const passing = cellResultFromVerdict({
    verdict: compareParity({ provider: "acp-cursor", cell: "resume", live: { events: expected }, oracle: { events: expected }, allowlist: [] }),
    ms: 200,
    events: expected.length,
  });
  const run: CheckRunResult = {
    ms: 1800,
    cells: [
      failing,
      passing,
      { provider: "acp-cursor", cell: "model-list", status: "skip", ms: 0, events: 0, diffs: [], stale: [], divergences: [], detail: { skipReason: "process-scoped recording" } },
    ],
  };
  return { run, commandIndex };
}

describe("json reporter", () => {
  it("prints exactly the fixed shape", async () => {
    const { run, commandIndex } = await sampleRun();
    const report = JSON.parse(renderJsonReport(run));
    expect(Object.keys(report)).toEqual(["schemaVersion", "passed", "failed", "skipped", "errors", "untrue", "ms", "cells", "truthStale", "versions", "catalogChanges"]);
    expect([report.schemaVersion, report.passed, report.failed, report.skipped, report.errors, report.untrue, report.ms, report.truthStale, report.versions, report.catalogChanges]).toEqual([
      7,
      1,
      1,
      1,
      0,
      0,
      1800,
      [],
      [],
      [],
    ]);
    for (const cell of report.cells) {
      expect(Object.keys(cell)).toEqual(["provider", "cell", "status", "ms", "events", "diffs", "stale", "divergences"]);
      for (const diff of cell.diffs) expect(Object.keys(diff)).toEqual(["against", "op", "path", "layer", "address", "selector", "old", "new"]);
    }
    const failing = report.cells[0];
    expect(failing.status).toBe("fail");
    const address = (field: string) => expect.stringMatching(new RegExp(`^turn 1 / commandExecution \\d+ / item/completed: item\\.${field}$`));
    const selector = (field: string) => expect.stringMatching(new RegExp(`^/\\*\\[turn=1\\]\\[item=commandExecution:\\d+\\]\\[type=item/completed\\]/item/${field}$`));
    expect(failing.diffs).toEqual([
      {
        against: "oracle",
        op: "replace",
        path: `/${commandIndex}/item/aggregatedOutput`,
        layer: "events",
        address: address("aggregatedOutput"),
        selector: selector("aggregatedOutput"),
        old: expect.any(String),
        new: expect.any(String),
      },
      { against: "oracle", op: "replace", path: `/${commandIndex}/item/exitCode`, layer: "events", address: address("exitCode"), selector: selector("exitCode"), old: 0, new: 7 },
    ]);
    expect(failing.stale).toEqual([{ provider: "acp-cursor", cell: "turn-tools", layer: "events", path: "/**/noSuchField", pr: "#4", reason: "old" }]);
    expect(failing.divergences).toEqual([{ seq: 12, expected: '{"method":"thread/delta"}', actual: null }]);
    expect(report.cells[1]).toMatchObject({ status: "pass", events: 98, diffs: [], stale: [] });
    expect(checkExitCode(run)).toBe(1);
    expect(toCheckReport({ ms: 1, cells: [run.cells[1]!] }).failed).toBe(0);
  });
});

describe("junit reporter", () => {
  it("is well-formed XML with escaped text and counts", async () => {
    const { run } = await sampleRun();
    const xml = renderJunitReport(run);
    expect(xmlProblem(xml)).toBeUndefined();
    expect(xml).toMatch(/<testsuites name="parity" tests="3" failures="1" errors="0" skipped="1" time="1\.800">/);
    expect(xml).toContain('<testcase classname="parity.acp-cursor" name="resume" time="0.200"/>');
    expect(xml).toContain('<skipped message="process-scoped recording"/>');
    expect(xml).toContain("&quot;a&lt;b &amp; \\&quot;c\\&quot; &apos;d&apos;");
    const withControl = renderJunitReport({ ms: 0, cells: [{ ...run.cells[2]!, detail: { skipReason: "bad \u0001 byte" } }] });
    // A control character XML forbids is made visible, as in every reporter (harness/report/visible.ts).
    expect(withControl).toContain('<skipped message="bad \\u0001 byte"/>');
    expect(xmlProblem(withControl)).toBeUndefined();
  });

  it("the checker itself rejects broken XML", () => {
    expect(xmlProblem("<a><b></a>")).toBeDefined();
    expect(xmlProblem('<a x="1 < 2"/>')).toBeDefined();
    expect(xmlProblem("<a>x & y</a>")).toBeDefined();
    expect(xmlProblem("<a/><b/>")).toBeDefined();
    expect(xmlProblem(`<a>${escapeXml('x & <y> "z"')}</a>`)).toBeUndefined();
  });
});

describe("github reporter", () => {
  it("emits one short escaped annotation per difference group, stale entry and divergence run, a notice per skip, and a summary", async () => {
    const { run, commandIndex } = await sampleRun();
    const lines = renderGithubReport(run, { cwd: "/nowhere" }).trimEnd().split("\n");
    expect(lines).toHaveLength(6);
    // Both changed fields are in one event: one group, no line= without the oracle's layout.
    expect(lines[0]).toMatch(/^::error file=lanes\/acp-cursor\/turn-tools\.json,title=parity acp-cursor\/turn-tools::2 differences at oracle event \d+:%0A/);
    expect(lines[0]).toContain(`/${commandIndex}/item/exitCode`);
    expect(lines[0]).toContain("100%25");
    expect(lines[1]).toMatch(/^::error file=allowlists\/acp-cursor\.json,title=parity acp-cursor\/turn-tools::stale allowlist entry 0: \/\*\*\/noSuchField/);
    expect(lines[2]).toMatch(/::1 replay divergence; first at seq 12/);
    expect(lines[3]).toBe("::notice file=lanes/acp-cursor/model-list.json,title=parity acp-cursor/model-list::skipped: process-scoped recording");
    expect(lines[4]).toBe("::error title=parity summary::parity: 1 passed, 1 failed, 1 skipped (3 cells)");
    expect(lines[5]).toBe("parity: 1 passed, 1 failed, 1 skipped (3 cells)");
    expect(escapeCommandData("100%\r\nx")).toBe("100%25%0D%0Ax");
  });

  it("makes absolute oracle paths inside the project relative and adds line= from the oracle's event lines", async () => {
    const { run } = await sampleRun();
    const failing = run.cells[0]!;
    const lines = Array.from({ length: 98 }, (_, i) => 2 + i * 10);
    const cell = { ...failing, detail: { ...failing.detail, oracleFile: "/proj/lanes/acp-cursor/turn-tools.json", oracleEventLines: lines } };
    const out = renderGithubReport({ ms: 1, cells: [cell] }, { cwd: "/proj" });
    const index = Number(/at oracle event (\d+)/.exec(out)![1]);
    expect(out).toContain(`::error file=lanes/acp-cursor/turn-tools.json,line=${lines[index]},title=`);
    expect(renderGithubReport({ ms: 1, cells: [cell] }, { cwd: "/elsewhere" })).toContain("file=/proj/lanes/acp-cursor/turn-tools.json,line=");
  });
});

describe("text reporter", () => {
  it("gives a summary line per cell, the diff with a legend, and what to do", async () => {
    const { run, commandIndex } = await sampleRun();
    const text = renderTextReport(run, { color: false });
    expect(text).not.toMatch(/\u001b\[/);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^FAIL acp-cursor\/turn-tools {2}live 98 events; oracle 98 events; 2 differences; 1 stale entry; 1 divergence {2}\(1\.5 s\)$/);
    expect(text).toContain("legend: - only in the expected lane");
    expect(text).toContain(`    - ${commandIndex} `);
    expect(text).toContain(`    + ${" ".repeat(String(commandIndex).length)} ${commandIndex} `);
    expect(text).toMatch(new RegExp(`replace turn 1 / commandExecution \\d+ / item/completed: item\\.exitCode  0 → 7  \\(/${commandIndex}/item/exitCode\\)`));
    expect(text).toContain("stale allowlist entry (allowlists/acp-cursor.json entry 0): /**/noSuchField (#4) masks no difference in this cell");
    expect(text).toContain("divergence at seq 12");
    // A divergence outranks the lane differences: the lane is not the bridge's whole answer, so
    // the advice is to trace the replay, never to allow or accept (test/report/advice.test.ts).
    expect(text).toContain("Trace it: parity replay --trace --provider acp-cursor --cell turn-tools");
    expect(text).not.toMatch(/parity allow --provider|parity rerecord|check -u --provider/);
    expect(text).toMatch(/^PASS acp-cursor\/resume {2}live 98 events; oracle 98 {2}\(200 ms\)$/m);
    expect(text).toMatch(/^SKIP acp-cursor\/model-list .* — process-scoped recording$/m);
    expect(lines.slice(-6, -1)).toEqual([
      "failing cells (1):",
      "  FAIL acp-cursor/turn-tools: 2 differences, 1 stale entry, 1 divergence",
      "what next:",
      "  1 cell: the replay diverged from the recording; fix the bridge or record again",
      "1 passed, 1 failed, 1 skipped (3 cells) in 1.8 s",
    ]);
  });

  it("uses colour only when asked", async () => {
    const { run } = await sampleRun();
    expect(renderTextReport(run, { color: true })).toMatch(/\u001b\[31mFAIL/);
  });

  it("shows context around a change and nothing for unchanged stretches", async () => {
    const expected = await referenceLane("resume");
    const live = structuredClone(expected);
    live.splice(10, 1);
    const cell = cellResultFromVerdict({
      verdict: compareParity({ provider: "acp-cursor", cell: "resume", live: { events: live }, oracle: { events: expected }, allowlist: [] }),
      ms: 1,
      events: live.length,
    });
    const text = renderTextReport({ ms: 1, cells: [cell] }, { color: false, context: 1 });
    const eventLines = text.split("\n").filter((l) => /^ {4}[-+ ] /.test(l));
    expect(eventLines.map((l) => l.slice(4, 11).trim())).toEqual(["9  9", "- 10", "11 10"]);
    expect(text).toContain("@@ -9 +9 @@");
    expect(text).toContain(`allow it:   parity allow --provider acp-cursor --cell resume --path '/*[type=${expected[10]!.type}]'`);
  });
});

describe("text reporter limits", () => {
  it("caps the lines shown per comparison and says how many were left out", async () => {
    const expected = await referenceLane("turn-tools");
    const live = expected.filter((_, index) => index % 10 !== 0); // ten separate removals
    const cell = cellResultFromVerdict({
      verdict: compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live }, oracle: { events: expected }, allowlist: [] }),
      ms: 1,
      events: live.length,
    });
    const text = renderTextReport({ ms: 1, cells: [cell] }, { color: false, context: 1, maxLines: 6 });
    expect(text.split("\n").filter((l) => l.startsWith("    @@ "))).toHaveLength(3); // 2 + 3 lines, then the budget of 6 is spent
    expect(text).toContain("… 21 more lines in 7 more hunk(s)");
  });
});

describe("selectReporter", () => {
  it("names the valid reporters for an unknown one", () => {
    expect(() => selectReporter("xml")).toThrow(UsageError);
    expect(() => selectReporter("xml")).toThrow(/text, json, junit, github/);
    expect(selectReporter("json")).toBeTypeOf("function");
  });
});
