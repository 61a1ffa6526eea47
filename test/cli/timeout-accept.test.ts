import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import { repoRoot, runCli } from "./run-cli.js";

// Issue 26: a timed-out cell has no verdict, so the accept flows neither write for it nor go
// green. Before, `check --update` said "nothing to commit" and `review` "none changed", exit 0.

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** A project holding copies of the committed echo recordings and oracles. */
async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-timeout-accept-"));
  scratch.push(dir);
  await cp(path.join(repoRoot, "recordings/echo"), path.join(dir, "recordings/echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes/echo"), path.join(dir, "lanes/echo"), { recursive: true });
  return dir;
}

/** sha256 of every file under the project's recordings/ and lanes/, by relative path. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const top of ["recordings", "lanes"]) {
    for (const rel of readdirSync(path.join(dir, top), { recursive: true }).map(String)) {
      const file = path.join(dir, top, rel);
      if (statSync(file).isFile()) out[`${top}/${rel}`] = createHash("sha256").update(readFileSync(file)).digest("hex");
    }
  }
  return out;
}

describe("timed-out cells in the accept flows", () => {
  it("check --update with a timed-out cell: exit 4, says so, writes nothing", async () => {
    const dir = await project();
    const before = hashes(dir);
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--update", "--timeout", "1"], { cwd: dir });
    expect(r.code).toBe(4);
    expect(r.out).toContain("not updated echo/turn: it timed out (no verdict); nothing written for it\n");
    // Not "nothing to commit": a cell was left as it is (issue 42).
    expect(r.out).toContain("nothing written: 1 cell was not updated (above)\n");
    expect(hashes(dir)).toEqual(before);
  });

  it("check --dump-dir with a timed-out cell: exit 4, nothing dumped from the cut-short lane", async () => {
    const dir = await project();
    const dump = path.join(dir, "dump");
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--dump-dir", dump, "--timeout", "1"], { cwd: dir });
    expect(r.code).toBe(4);
    expect(readdirSync(dump)).toEqual([]);
  });

  it("review with timed-out cells: exit 4, not reviewable, writes nothing, asks nothing", async () => {
    const dir = await project();
    const before = hashes(dir);
    let out = "";
    const review = createReviewCommand({ input: Readable.from(["a\n", "a\n", "a\n", "a\n"]) });
    const code = await review.run({ provider: ["echo"], timeout: "1" }, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd: dir });
    const r = { code, out };
    expect(r.code).toBe(4);
    expect(r.out).toContain("not reviewable: echo/turn: it timed out (no verdict); nothing written for it\n");
    expect(r.out).toContain("nothing to review\n");
    expect(r.out).not.toContain("none changed");
    expect(hashes(dir)).toEqual(before);
  });
});
