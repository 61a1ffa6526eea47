import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Issue 39: a class-wide allowlist entry (provider or cell "*") failed as stale in every cell where
// it happened to mask nothing, so a budget of known differences across cells could not be written
// (the "everywhere" example of `parity allow --help` failed all four echo cells).
describe("a class-wide allowlist entry is judged stale over the whole selection", () => {
  let dir: string;
  let lanes: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-class-wide-"));
    lanes = path.join(dir, "lanes");
    await cp(path.join(repoRoot, "lanes", "echo"), path.join(lanes, "echo"), { recursive: true });
    // One oracle differs from the live lane in one delta: only echo/turn has a difference to mask.
    const turn = path.join(lanes, "echo", "turn.json");
    const events = JSON.parse(await readFile(turn, "utf8")) as Array<{ type: string; delta?: string }>;
    const delta = events.find((e) => e.type === "item/agentMessage/delta")!;
    delta.delta = `${delta.delta!}(changed)`;
    await writeFile(turn, `${JSON.stringify(events, null, 2)}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function allowlist(name: string, entry: object): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, `${JSON.stringify([{ layer: "events", pr: "#39", reason: "deltas may split differently", ...entry }], null, 2)}\n`);
    return file;
  }

  test("masking a difference in one cell keeps it: every echo cell passes", async () => {
    const file = await allowlist("masks-one.json", { provider: "echo", cell: "*", path: "/*/delta" });
    const r = await runCli(["check", "--provider", "echo", "--lanes", lanes, "--allowlist", file, "--reporter", "json"]);
    const report = JSON.parse(r.out) as { cells: Array<{ cell: string; status: string; stale: unknown[] }> };
    expect(report.cells.map((c) => [c.cell, c.status, c.stale.length])).toEqual(report.cells.map((c) => [c.cell, "pass", 0]));
    expect(report.cells.length).toBeGreaterThan(1);
    expect(r.code).toBe(0);
  });

  test("masking nothing anywhere: stale once, on the first cell it applies to, naming the selection", async () => {
    const file = await allowlist("masks-none.json", { provider: "*", cell: "*", path: "/**/durationMs" });
    const r = await runCli(["check", "--provider", "echo", "--allowlist", file]);
    expect(r.code).toBe(1);
    const stale = r.out.split("\n").filter((line) => line.includes("stale allowlist entry"));
    expect(stale).toHaveLength(1);
    expect(stale[0]).toContain("masks no difference in any selected cell it applies to");
    expect(r.out).toMatch(/1 failed/);
  });

  test("an entry for one cell is still judged in that cell", async () => {
    const file = await allowlist("one-cell.json", { provider: "echo", cell: "zero-work", path: "/*/delta" });
    const r = await runCli(["check", "--provider", "echo", "--cell", "zero-work", "--lanes", lanes, "--allowlist", file]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("masks no difference in this cell");
  });
});
