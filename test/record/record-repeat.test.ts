/**
 * `parity record --repeat N` (issue 41): each cell recorded N times into `<out>/run-<k>/`, then what
 * varies from run to run named as drift names changes. The echo bridge answers every turn itself,
 * so two runs of its cells are the same: nothing varies, exit 0. (Codex 0.170.0's run-to-run
 * streaming of command output is the real case: test/record/agent-drift.ci.ts.)
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RepeatReport } from "../../harness/cli/record-repeat.js";
import { runCli } from "../cli/run-cli.js";

let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-record-repeat-"));
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});

describe("parity record --repeat", () => {
  it("records each cell N times into run-<k>/ and reports that nothing varies (exit 0)", async () => {
    const out = path.join(root, "echo");
    const run = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--repeat", "2", "--out", out, "--json"]);
    expect(run.err).toContain("[1/1] echo run 2/2 zero-work: recorded");
    const report = JSON.parse(run.out) as RepeatReport;
    expect(report.runs.map((r) => [r.run, r.root, r.recorded, r.failed])).toEqual([
      [1, path.join(out, "run-1"), ["zero-work"], []],
      [2, path.join(out, "run-2"), ["zero-work"], []],
    ]);
    expect([report.wire, report.lanes, report.unstableCells]).toEqual([[], [], []]);
    expect(existsSync(path.join(out, "run-2", "lanes", "echo", "zero-work.json"))).toBe(true);
    expect(run.code).toBe(0);
    const text = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--repeat", "2", "--out", path.join(root, "echo-text")]);
    expect(text.out).toContain("the thread lanes did not vary from run to run\n");
  });

  it("a repeat that is not a whole number ≥ 1 is one line, exit 2", async () => {
    const run = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--repeat", "0", "--out", path.join(root, "bad")]);
    expect([run.code, run.err]).toEqual([2, "parity: --repeat 0: expected a positive whole number of runs\n"]);
    expect(existsSync(path.join(root, "bad"))).toBe(false);
  });
});
