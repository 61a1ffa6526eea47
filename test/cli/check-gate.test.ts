import path from "node:path";
import { describe, expect, it } from "vitest";
import { entryApplies, loadAllowlists } from "../../harness/compare/allowlist.js";
import { readRecording } from "../../harness/recording/reader.js";
import { rewriteRuntimeLine } from "../../harness/replay/sandbox/rewrite.js";
import type { CheckReport } from "../../harness/report/check-report.js";
import { repoRoot, runCli, sharedRecordings } from "./run-cli.js";

// The gate over the real acp-cursor recordings with the COMMITTED allowlists (docs/design/00-product.md, Real
// input; allowlist entries stay narrow): what `.ci/run` runs.

/** `--explain` text → `provider/cell` → path → total values masked (live + oracle + recording). */
function parseExplain(text: string): Map<string, Map<string, number>> {
  const cells = new Map<string, Map<string, number>>();
  let current: Map<string, number> | undefined;
  for (const line of text.split("\n")) {
    const header = /^(\S+\/\S+):$/.exec(line);
    if (header) {
      current = new Map();
      cells.set(header[1]!, current);
      continue;
    }
    const masked = /^ {2}(?:events|grammar) (\S+) \(#\d+\): (.*)$/.exec(line);
    if (masked && current) {
      const total = [...masked[2]!.matchAll(/(?:live|oracle|recording) (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      current.set(masked[1]!, total);
    }
  }
  return cells;
}

describe("parity check --recordings ../shared/recordings --explain (the CI gate)", () => {
  it("replays every real thread cell without divergence; committed entries mask every other difference, none stale", async () => {
    const r = await runCli(["check", "--recordings", sharedRecordings, "--explain", "--reporter", "json"], { ci: true });
    const report = JSON.parse(r.out) as CheckReport;
    const explained = parseExplain(r.err);

    expect(report.cells.filter((c) => c.status !== "skip").map((c) => c.cell)).toEqual(["approval-allow", "approval-deny", "fork", "resume", "stop-interrupt", "subagent", "turn-tools"]);
    for (const cell of report.cells) {
      expect(cell.divergences, `${cell.cell} diverged`).toEqual([]);
      expect(cell.stale, `${cell.cell} has stale entries`).toEqual([]);
      if (cell.status === "skip") continue;
      expect(cell.diffs, `${cell.cell}: an unmasked difference`).toEqual([]);
      expect(cell.status).toBe("pass");
    }
    expect(r.code).toBe(0);

    // Every committed entry applies somewhere and masks at least one value in each cell it applies to.
    const committed = (await loadAllowlists({ cwd: repoRoot })).filter((e) => e.provider === "acp-cursor" || e.provider === "*");
    expect(committed.length).toBeGreaterThan(0);
    for (const entry of committed) {
      // #5: the bridge rewrite the reference lanes predate; #24: denied calls settle "denied";
      // #37: the lane carries what the agent said (an allowed call says "approved").
      expect(["#5", "#24", "#37"], entry.path).toContain(entry.pr);
      const cells = report.cells.filter((c) => c.status !== "skip" && entryApplies(entry, c.provider, c.cell, path.join(sharedRecordings, c.provider, c.cell)));
      expect(cells.length, `${entry.path} applies to no replayed cell`).toBeGreaterThan(0);
      for (const cell of cells) {
        const total = explained.get(`${cell.provider}/${cell.cell}`)?.get(entry.path);
        expect(total, `${entry.cell} ${entry.path} masked nothing in ${cell.cell}`).toBeGreaterThanOrEqual(1);
      }
    }
  });
});

describe("the replay pins the dialect its recorded agent command implies (spec 30 §1.2)", () => {
  const rewrite = { childCommand: process.execPath, childArgs: ["replay-child.js"], workspace: "/tmp/ws", path: undefined };
  const dialectsOf = (lines: string[]) => lines.filter((l) => l.includes('"acpLaunchSpec"')).map((l) => JSON.parse(l).params.options.providerOptions.acpDialect as unknown);

  it("pins cursor on every launch-spec line of a real cursor-agent recording, whose command is rewritten to node", async () => {
    const recording = await readRecording(path.join(sharedRecordings, "acp-cursor", "subagent"));
    const original = recording.lanes["runtime→bridge"].map((e) => e.line);
    expect(dialectsOf(original).length).toBeGreaterThan(0);
    expect(dialectsOf(original).every((d) => d === undefined)).toBe(true);
    const rewritten = original.map((line) => rewriteRuntimeLine(line, rewrite));
    expect(dialectsOf(rewritten).every((d) => d === "cursor")).toBe(true);
    for (const line of rewritten.filter((l) => l.includes('"acpLaunchSpec"'))) {
      expect(JSON.parse(line).params.options.providerOptions.acpLaunchSpec.command).toBe(process.execPath);
    }
  });

  it("keeps a dialect the recording already names, and pins nothing for a command of no known dialect", async () => {
    const recording = await readRecording(path.join(repoRoot, "recordings", "acp-cursor", "turn-tools"));
    const lines = recording.lanes["runtime→bridge"].map((e) => e.line);
    const named = dialectsOf(lines);
    expect(named.every((d) => typeof d === "string")).toBe(true);
    expect(dialectsOf(lines.map((line) => rewriteRuntimeLine(line, rewrite)))).toEqual(named);
    const generic = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "thread/start",
      params: { options: { providerOptions: { acpLaunchSpec: { displayName: "x", command: "my-agent", args: [], env: {} } } } },
    });
    expect(dialectsOf([rewriteRuntimeLine(generic, rewrite)])).toEqual([undefined]);
  });
});
