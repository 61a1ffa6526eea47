/**
 * A fresh re-record of acp-qwen/long-output checked against the committed oracle (README "A fresh
 * re-record of the pinned version"): qwen-code 0.15.10 reports its terminal's last 10 030 rows of
 * what it read, and where its read stopped is the scheduler's (harness/compare/run-to-run.ts rule 5).
 * The recording is a second live run (test/fixtures/fresh-rerecord/acp-qwen/long-output, recorded
 * 2026-12-07 with `parity record --repeat 4`: lines 8957 to the middle of 18986; the committed one
 * holds 7938 to the middle of 17967). The rule's reference is the cell's facts, read for a fresh
 * root inside the project (where the truth check runs too) and outside it.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { repoRoot, runCli } from "../helpers/run-cli.js";

const FIXTURE = path.join(repoRoot, "test", "fixtures", "fresh-rerecord");
const SELECT = ["--provider", "acp-qwen", "--cell", "long-output", "--reporter", "json"];

interface Report {
  cells: Array<{ status: string; diffs?: unknown[]; truth?: { facts: string; findings: unknown[]; masked: number } }>;
}

describe("acp-qwen/long-output re-recorded: another window of the same output", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-terminal-window-"));
    await cp(path.join(FIXTURE, "acp-qwen"), path.join(dir, "fresh", "acp-qwen"), { recursive: true });
    // An oracle whose window lost its last three lines, as a bridge that drops a chunk would write it.
    const oracle = JSON.parse(await readFile(path.join(repoRoot, "lanes", "acp-qwen", "long-output.json"), "utf8")) as Array<{ item?: { type?: string; aggregatedOutput?: string } }>;
    const item = oracle.find((e) => e.item?.type === "commandExecution")!.item!;
    const dropped = item.aggregatedOutput!.replace(/\n17964\n17965\n17966\n1796$/, "");
    expect(dropped).not.toBe(item.aggregatedOutput);
    item.aggregatedOutput = dropped;
    const lanes = path.join(dir, "dropped", "acp-qwen");
    await mkdir(lanes, { recursive: true });
    await cp(path.join(repoRoot, "lanes", "acp-qwen", "long-output.version"), path.join(lanes, "long-output.version"));
    await writeFile(path.join(lanes, "long-output.json"), `${JSON.stringify(oracle, null, 2)}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("inside the project: passes against the committed oracle, the truth check judged", async () => {
    const r = await runCli(["check", "--recordings", FIXTURE, "--lanes", path.join(repoRoot, "lanes"), ...SELECT]);
    const report = JSON.parse(r.out) as Report;
    expect(report.cells.map((c) => c.status)).toEqual(["pass"]);
    expect(report.cells[0]!.truth?.facts).toBe("judged");
    expect(r.code).toBe(0);
  });

  test("outside the project (a record --out folder): passes too", async () => {
    const r = await runCli(["check", "--recordings", path.join(dir, "fresh"), "--lanes", path.join(repoRoot, "lanes"), ...SELECT]);
    expect((JSON.parse(r.out) as Report).cells.map((c) => c.status)).toEqual(["pass"]);
    expect(r.code).toBe(0);
  });

  test("an oracle whose window lost rows still fails", async () => {
    const r = await runCli(["check", "--recordings", path.join(dir, "fresh"), "--lanes", path.join(dir, "dropped"), ...SELECT]);
    expect((JSON.parse(r.out) as Report).cells.map((c) => c.status)).toEqual(["fail"]);
    expect(r.code).toBe(1);
  });
});
