import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

// New-user trial: `check` on a corrupt oracle named no line, while `parity diff` on the same file
// said `file:18: …`. Both now report `file:line: problem`.
describe("parity check on a corrupt oracle", () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await mkdtemp(path.join(tmpdir(), "parity-ux-oracle-"));
    await cp(path.join(repoRoot, "recordings", "echo", "turn"), path.join(cwd, "recordings", "echo", "turn"), { recursive: true });
  });
  afterEach(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it("exits 2 with one ERROR line naming file:line (the same line parity diff names); the cell is an error, not an abort", async () => {
    const first = await runCli(["check", "-u"], { cwd });
    expect(first.code).toBe(0);
    const oracle = path.join(cwd, "lanes", "echo", "turn.json");
    const lines = (await readFile(oracle, "utf8")).split("\n");
    expect(lines.length).toBeGreaterThan(8);
    lines[7] = `${lines[7]!.replace(/,$/, "")} oops,`;
    await writeFile(oracle, lines.join("\n"));

    const result = await runCli(["check"], { cwd });
    expect(result.code).toBe(2);
    expect(result.err).toBe("");
    const outLines = result.out.trimEnd().split("\n");
    expect(outLines).toHaveLength(2);
    expect(outLines[0]).toMatch(/^ERROR echo\/turn {2}\S*turn\.json:8:\d+: oracle is not valid JSON: expected "," or "\}" \(closing the "\{" opened at line \d+, column \d+\), found "o"$/);
    expect(outLines[1]).toMatch(/^0 passed, 0 failed, 0 skipped, 1 unreadable \(1 cell\)/);

    const diff = await runCli(["diff", oracle, oracle]);
    expect(diff.code).toBe(2);
    expect(diff.err).toMatch(/turn\.json:8:22: /);
  });

  it("an empty oracle says so, naming the file", async () => {
    expect((await runCli(["check", "-u"], { cwd })).code).toBe(0);
    await writeFile(path.join(cwd, "lanes", "echo", "turn.json"), "");
    const result = await runCli(["check"], { cwd });
    expect(result.code).toBe(2);
    expect(result.out).toMatch(/^ERROR echo\/turn {2}\S*turn\.json: oracle is not valid JSON: the file is empty\n/);
  });
});
