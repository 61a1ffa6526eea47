import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCell, parityMatchers, toMatchParityOracle } from "../../harness/vitest/index.js";
import { repoRoot } from "../helpers/run-cli.js";

expect.extend(parityMatchers);

// bridge-parity/vitest from the sources: checkCell and the toMatchParityOracle matcher on the
// committed echo recordings and on a copy whose oracle was edited.

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-vitest-"));
  await cp(path.join(repoRoot, "recordings/echo"), path.join(work, "recordings/echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes/echo"), path.join(work, "lanes/echo"), { recursive: true });
  const file = path.join(work, "lanes/echo/turn.json");
  const oracle = JSON.parse(await readFile(file, "utf8")) as Array<Record<string, unknown>>;
  oracle[4]!.delta = "edited ";
  await writeFile(file, `${JSON.stringify(oracle, null, 2)}\n`);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("checkCell and toMatchParityOracle", () => {
  it("a cell that keeps parity passes, from options (awaited) and from a result", async () => {
    const result = await checkCell({ provider: "echo", cell: "turn", cwd: repoRoot });
    expect(result.status).toBe("pass");
    expect(result.text).toMatch(/^PASS echo\/turn /);
    expect(result).toMatchParityOracle();
    await expect({ provider: "echo", cell: "zero-work", recordings: path.join(repoRoot, "recordings"), lanes: path.join(repoRoot, "lanes") }).toMatchParityOracle();
  });

  it("a changed cell fails with the text report as the message; .not inverts it", async () => {
    const result = await checkCell({ provider: "echo", cell: "turn", cwd: work });
    expect(result.status).toBe("fail");
    expect(result.diffs.map((d) => d.path)).toEqual(["/4/delta"]);
    const verdict = toMatchParityOracle(result) as { pass: boolean; message(): string };
    expect(verdict.pass).toBe(false);
    expect(verdict.message()).toMatch(/^expected echo\/turn to match its parity oracle \(status fail\):\nFAIL echo\/turn .*\n[\s\S]*"edited " → "this " {2}\(\/4\/delta\)/);
    expect(() => expect(result).toMatchParityOracle()).toThrow(/\(\/4\/delta\)/);
    expect(result).not.toMatchParityOracle();
    await expect(expect({ provider: "echo", cell: "turn", cwd: work }).toMatchParityOracle()).rejects.toThrow(/to match its parity oracle/);
  });

  it("advice names the test's own recordings and lanes, never the package's (node_modules) defaults", async () => {
    const result = await checkCell({ provider: "echo", cell: "turn", cwd: work });
    expect(result.text).toContain("accept it:  parity check -u --provider echo --cell turn --recordings recordings --lanes lanes");
    expect(result.text).not.toContain("node_modules");
    const outside = await checkCell({ provider: "echo", cell: "turn", cwd: work, recordings: path.join(work, "recordings"), lanes: "lanes" });
    expect(outside.text).toContain("--recordings recordings --lanes lanes");
  });

  it("a missing oracle fails (it never writes one); an unknown cell is a usage error", async () => {
    await rm(path.join(work, "lanes/echo/resume.json"));
    const result = await checkCell({ provider: "echo", cell: "resume", cwd: work });
    expect(result.status).toBe("fail");
    expect(result.detail?.error).toMatch(/missing oracle/);
    await expect(checkCell({ provider: "echo", cell: "nope", cwd: work })).rejects.toThrow(/unknown --cell nope/);
  });
});
