import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../cli/run-cli.js";

// QA: `npm run bench -- --help` said `expected --flag value pairs, got "--help"`.
// Spawns the compiled entry (npm test builds dist/ first).
describe("bench --help", () => {
  const entry = path.join(repoRoot, "dist", "bench", "run.js");

  it("lists the benches and exits 0 without running any", () => {
    const out = execFileSync(process.execPath, [entry, "--help"], { encoding: "utf8" });
    expect(out).toMatch(/^usage: npm run bench/);
    expect(out).toMatch(/\n {2}assembler/);
  });

  it("a bad flag is still one line on stderr and exit 2", () => {
    const r = spawnSync(process.execPath, [entry, "--nope", "1"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^bench: unknown flag --nope; known: /);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

// QA (issue 25): `node dist/bench/lane-diff.js --help` ran the whole bench instead of printing help.
describe("lane-diff bench --help", () => {
  const entry = path.join(repoRoot, "dist", "bench", "lane-diff.js");

  it("prints its usage and exits 0 without running", () => {
    const r = spawnSync(process.execPath, [entry, "--help"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: node dist\/bench\/lane-diff\.js/);
    expect(r.stdout).not.toMatch(/lane-diff: \d+ vs/);
  });

  it("a bad flag is one line on stderr and exit 2", () => {
    const r = spawnSync(process.execPath, [entry, "--nope", "1"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^lane-diff bench: unknown flag --nope/)]);
  });
});
