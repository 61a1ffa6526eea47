import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, sharedRecordings } from "./run-cli.js";

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "parity-check-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const base = ["check", "--recordings", sharedRecordings, "--provider", "acp-cursor"];

describe("interim parity check on the real acp-cursor recordings", () => {
  it("without oracles: every thread cell is validated and skipped, model-list skipped as process-scoped", async () => {
    const r = await runCli([...base, "--lanes", path.join(work, "none")]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines).toHaveLength(9);
    expect(lines).toContain("SKIP acp-cursor/model-list: process-scoped (no thread lane)");
    expect(lines.find((l) => l.startsWith("SKIP acp-cursor/turn-tools:"))).toMatch(/current 98 events, .*grammar drops \d+→1; no oracle/);
    expect(lines.at(-1)).toBe("0 passed, 0 failed, 8 skipped (8 cells)");
  });

  it("in CI a missing oracle fails the cell", async () => {
    const r = await runCli([...base, "--cell", "resume", "--lanes", path.join(work, "none")], { ci: true });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL acp-cursor\/resume: .*missing oracle/);
    expect(r.out).toMatch(/0 passed, 1 failed, 0 skipped \(1 cells\)\n$/);
  });

  it("oracles written by `lanes --out` pass; an edited oracle fails with exit 1", async () => {
    const lanes = path.join(work, "lanes");
    expect((await runCli(["lanes", "--recordings", sharedRecordings, "--out", lanes])).code).toBe(0);
    const pass = await runCli([...base, "--lanes", lanes]);
    expect(pass.code).toBe(0);
    expect(pass.out).toMatch(/PASS acp-cursor\/turn-tools: .*equals its oracle\n/);
    expect(pass.out.trimEnd().split("\n").at(-1)).toBe("7 passed, 0 failed, 1 skipped (8 cells)");

    const file = path.join(lanes, "acp-cursor", "subagent.json");
    const oracle = JSON.parse(await readFile(file, "utf8")) as unknown[];
    oracle.splice(3, 1);
    await writeFile(file, JSON.stringify(oracle));
    const fail = await runCli([...base, "--lanes", lanes]);
    expect(fail.code).toBe(1);
    expect(fail.out).toMatch(/FAIL acp-cursor\/subagent: .*differs from its oracle at event 3 .*50 vs 49 events/);
    expect(fail.out.trimEnd().split("\n").at(-1)).toBe("6 passed, 1 failed, 1 skipped (8 cells)");
  });

  it("an oracle that is not JSON is an input error (exit 2)", async () => {
    const lanes = path.join(work, "bad-lanes");
    await runCli(["lanes", "--recordings", sharedRecordings, "--cell", "fork", "--out", lanes]);
    await writeFile(path.join(lanes, "acp-cursor", "fork.json"), "[{");
    const r = await runCli([...base, "--cell", "fork", "--lanes", lanes]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${path.join(lanes, "acp-cursor", "fork.json")}: oracle is not valid JSON\n`);
  });
});
