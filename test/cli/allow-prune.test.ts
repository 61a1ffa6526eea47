import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

// Issue 26: a fixed difference makes its allowlist entry fail the gate as stale (it masks no
// difference), and `parity allow --prune` removes such entries, printing each.

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

const fixedEntry = {
  provider: "echo",
  cell: "turn",
  layer: "events",
  path: "/*[type=item/agentMessage/delta]/delta",
  pr: "#26",
  reason: "the echo text changed once; the bridge has since been fixed",
};
const otherCellEntry = { ...fixedEntry, cell: "resume", path: "/*/item/nothingHere" };

async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-prune-"));
  scratch.push(dir);
  await cp(path.join(repoRoot, "recordings/echo"), path.join(dir, "recordings/echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes/echo"), path.join(dir, "lanes/echo"), { recursive: true });
  await mkdir(path.join(dir, "allowlists"));
  await writeFile(path.join(dir, "allowlists/echo.json"), `${JSON.stringify([fixedEntry, otherCellEntry], null, 2)}\n`);
  return dir;
}

describe("stale entries and parity allow --prune", () => {
  it("an entry over equal values fails the check as stale, with its PR and the fix", async () => {
    const dir = await project();
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--explain"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "allowlists/echo.json entry 0): /*[type=item/agentMessage/delta]/delta (#26) masks no difference in this cell (every value it selects is equal on both sides) — remove it: parity allow --prune",
    );
    expect(r.out).toMatch(/events \/\*\[type=item\/agentMessage\/delta\]\/delta \(#26\): live [1-9]\d*, oracle [1-9]\d*, recording [1-9]\d* — stale: masks no difference/);
  });

  it("--prune removes only the entries stale in every cell they apply to, prints each, and the gate then passes", async () => {
    const dir = await project();
    const r = await runCli(["allow", "--prune", "--provider", "echo", "--cell", "turn"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.out).toContain("pruned allowlists/echo.json entry 0: echo/turn /*[type=item/agentMessage/delta]/delta (#26): masks no difference in any cell it applies to\n");
    expect(r.out).toContain("to commit:\n  git add allowlists/echo.json\n");
    // The resume entry was not checked in this run: it stays.
    expect(JSON.parse(await readFile(path.join(dir, "allowlists/echo.json"), "utf8"))).toEqual([otherCellEntry]);
    const after = await runCli(["check", "--provider", "echo", "--cell", "turn"], { cwd: dir });
    expect(after.code).toBe(0);
  });

  it("--prune with a timed-out cell prunes nothing and exits 4", async () => {
    const dir = await project();
    const before = await readFile(path.join(dir, "allowlists/echo.json"), "utf8");
    const r = await runCli(["allow", "--prune", "--provider", "echo", "--cell", "turn", "--timeout", "1"], { cwd: dir });
    expect(r.code).toBe(4);
    expect(r.out).toBe("nothing pruned: no complete verdict for echo/turn (timeout)\n");
    expect(await readFile(path.join(dir, "allowlists/echo.json"), "utf8")).toBe(before);
  });
});
