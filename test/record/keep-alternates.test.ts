/**
 * `parity record --repeat N --keep-alternates` (issue 41, "When the agent itself varies";
 * harness/cli/keep-alternates.ts). The echo bridge answers every turn itself, so its runs are all
 * alike: the temp project's committed oracle of echo/resume is made another path (echo's real
 * `turn` lane), so every run takes a path the project does not have. It is kept once, pending;
 * a second repeat finds it pending, and once `parity review` accepted it, accepted.
 */
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import type { RepeatReport } from "../../harness/cli/record-repeat.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-keep-"));
  temps.push(dir);
  return dir;
}

/** A temp project with echo/resume, its oracle replaced by echo's turn lane (path 1 is another path than the runs take). */
async function project(): Promise<string> {
  const dir = await tempDir();
  await cp(path.join(repoRoot, "cells", "resume"), path.join(dir, "cells", "resume"), { recursive: true });
  await cp(path.join(repoRoot, "recordings", "echo", "resume"), path.join(dir, "recordings", "echo", "resume"), { recursive: true });
  await mkdir(path.join(dir, "lanes", "echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), path.join(dir, "lanes", "echo", "resume.json"));
  return dir;
}

const repeat = (dir: string, out: string, extra: string[] = []) =>
  runCli(["record", "--provider", "echo", "--cell", "resume", "--repeat", "2", "--keep-alternates", "--out", out, ...extra], { cwd: dir });

describe("parity record --repeat N --keep-alternates", () => {
  it("keeps a path the project does not have once, pending, with the runs' evidence; then finds it pending, then accepted", async () => {
    const dir = await project();
    const runs = await tempDir();
    const first = await repeat(dir, path.join(runs, "a"), ["--json"]);
    expect(first.code, first.err).toBe(0);
    const report = JSON.parse(first.out) as RepeatReport;
    const pendingDir = path.join(dir, "recordings", "echo", "resume", "alternates", ".2.pending");
    const oracle = path.join(dir, "lanes", "echo", "resume", "alternates", "2.json");
    expect(report.alternates).toEqual([
      { cell: "resume", paths: [{ path: 2, runs: [1, 2], state: "kept" }], wrote: [pendingDir, `${oracle}.pending`, path.join(path.dirname(oracle), "2.version.pending")] },
    ]);
    const manifest = JSON.parse(await readFile(path.join(pendingDir, "manifest.json"), "utf8")) as { cell: string; alternateOf: unknown };
    expect(manifest.cell).toBe("resume");
    expect(manifest.alternateOf).toEqual({
      cell: "resume",
      path: 2,
      why: "parity record --repeat 2 --keep-alternates: the thread lane of runs 1, 2 of 2 matched neither the cell's committed oracle nor an accepted alternate (after the run-to-run rules)",
      evidence: { runs: 2, paths: [{ path: 2, runs: [1, 2] }] },
    });

    const second = await repeat(dir, path.join(runs, "b"));
    expect(second.out).toContain("  resume: path 2 (a pending alternate): runs 1, 2\n");
    expect(second.out).toContain("no new path: every run matched the committed oracle or an accepted or pending alternate\n");
    expect(existsSync(path.join(dir, "recordings", "echo", "resume", "alternates", ".3.pending"))).toBe(false);

    const review = createReviewCommand({ input: Readable.from("a\n") });
    let said = "";
    const code = await review.run({}, { out: (t) => void (said += t), err: (t) => void (said += t), color: false, verbose: false, ci: false, cwd: dir });
    expect(code, said).toBe(0);
    expect(existsSync(oracle)).toBe(true);

    const third = await repeat(dir, path.join(runs, "c"));
    expect(third.out).toContain("  resume: path 2 (an accepted alternate): runs 1, 2\n");
    // The fresh re-record of one run passes on the accepted alternate, naming it.
    const check = await runCli(["check", "--recordings", path.join(runs, "c", "run-1"), "--lanes", "lanes"], { cwd: dir });
    expect(check.out).toContain("  agent took alternate path 2 of cell resume (lanes/echo/resume/alternates/2.json)\n");
    expect(check.code).toBe(0);
  });

  it("is refused under CI, without --repeat ≥ 2, and with --agent-version: one line, exit 2, nothing written", async () => {
    const dir = await project();
    const out = path.join(await tempDir(), "runs");
    const ci = await runCli(["record", "--provider", "echo", "--cell", "resume", "--repeat", "2", "--keep-alternates", "--out", out], { cwd: dir, ci: true });
    expect([ci.code, ci.err]).toEqual([2, "parity: --keep-alternates: under CI=true nothing writes the project's recordings or oracles; run it locally, then parity review\n"]);
    const once = await runCli(["record", "--provider", "echo", "--cell", "resume", "--keep-alternates", "--out", out], { cwd: dir });
    expect([once.code, once.err]).toEqual([2, "parity: --keep-alternates: needs --repeat N (N ≥ 2): it keeps the paths the runs took that the project does not have\n"]);
    const version = await runCli(["record", "--provider", "echo", "--cell", "resume", "--repeat", "2", "--agent-version", "1.0.0", "--keep-alternates", "--out", out], { cwd: dir });
    expect(version.code).toBe(2);
    expect(version.err).toContain("--keep-alternates: alternates are paths of the pinned agent");
    expect([existsSync(out), existsSync(path.join(dir, "recordings", "echo", "resume", "alternates"))]).toEqual([false, false]);
  });
});
