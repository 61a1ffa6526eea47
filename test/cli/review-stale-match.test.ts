import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import { copyProviderProject } from "../helpers/provider-project.js";
import { repoRoot, runCli } from "./run-cli.js";

// Issue 42, build point 3: `parity review` shows the cells that fail only by stale allowlist
// entries and offers to prune them (before, it said "not reviewable" and such a cell's entries
// stayed until `allow --prune`), and `review --match` with no pending files replays only the
// cells its globs name (before, it ran the whole gate and filtered afterwards).

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-review-stale-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let n = 0;
async function project(): Promise<string> {
  n += 1;
  return copyProviderProject(repoRoot, "echo", path.join(work, `p${n}`));
}

/** An entry on echo/turn's deltas: they are equal on every side, so it masks no difference (stale). */
const staleEntry = { provider: "echo", cell: "turn", layer: "events", path: "/*/delta", pr: "#12", reason: "chunks may split differently" };

/** Runs `parity review` in `cwd` with `answers` on its input; progress lines (one per finished cell) collected apart. */
async function reviewIn(cwd: string, answers: string[], extra: Record<string, unknown> = {}): Promise<{ code: number; out: string; progress: string[] }> {
  const command = createReviewCommand({ input: Readable.from(answers.map((a) => `${a}\n`).join("")) });
  let out = "";
  const progress: string[] = [];
  const code = await command.run(extra, {
    out: (t) => void (out += t),
    err: (t) => void (out += t),
    progress: { isTTY: false, write: (t: string) => void progress.push(...t.split("\n").filter(Boolean)) },
    color: false,
    verbose: false,
    ci: false,
    cwd,
  });
  return { code, out, progress };
}

describe("parity review: stale-only cells and --match (issue 42 point 3)", () => {
  it("a cell failing only by a stale entry is shown with its entry and pruned on 'p'; the next check passes", async () => {
    const cwd = await project();
    await mkdir(path.join(cwd, "allowlists"));
    await writeFile(path.join(cwd, "allowlists", "echo.json"), JSON.stringify([staleEntry], null, 2));
    expect((await runCli(["check", "--cell", "turn"], { cwd, ci: true })).code).toBe(1);

    const r = await reviewIn(cwd, ["p"]);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain("not reviewable");
    expect(r.out).toContain("1 cell fails only by stale allowlist entries (they mask no difference): [p]rune them (as parity allow --prune)  [s]kip  [q]uit\n");
    expect(r.out).toContain("── echo/turn (stale entries 1/1) ──\n  stale: allowlists/echo.json entry 0: /*/delta (#12): chunks may split differently\n");
    expect(r.out).toContain("pruned allowlists/echo.json entry 0: echo/turn /*/delta (#12): masks no difference in any cell it applies to\n");
    expect(r.out).toContain("reviewed: 0 accepted, 0 allowed, 0 rejected, 1 pruned, 0 skipped\n");
    expect(r.out).toContain("to commit:\n  git add allowlists/echo.json\n");
    expect(JSON.parse(await readFile(path.join(cwd, "allowlists", "echo.json"), "utf8"))).toEqual([]);
    expect((await runCli(["check"], { cwd, ci: true })).code).toBe(0);
  });

  it("skipping a stale-only cell leaves its entry and exits 1, as the next check would", async () => {
    const cwd = await project();
    await mkdir(path.join(cwd, "allowlists"));
    await writeFile(path.join(cwd, "allowlists", "echo.json"), JSON.stringify([staleEntry], null, 2));
    const r = await reviewIn(cwd, ["s"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("nothing written\n");
    expect(JSON.parse(await readFile(path.join(cwd, "allowlists", "echo.json"), "utf8"))).toHaveLength(1);
  });

  it("--match with no pending files replays only the matching cells", async () => {
    const cwd = await project();
    const r = await reviewIn(cwd, [], { match: ["echo/tu*"] });
    expect(r.code).toBe(0);
    expect(r.out).toBe("nothing to review: 1 cells, none changed\n");
    expect(r.progress).toEqual([expect.stringMatching(/^1\/1 cells · echo\/turn passed/)]);
  });

  it("--match naming no selected cell is one line, exit 2, before anything runs", async () => {
    const cwd = await project();
    const r = await runCli(["review", "--match", "nope/*"], { cwd });
    expect(r.code).toBe(2);
    expect(r.err).toContain("--match 'nope/*' matches none of the 4 selected cells");
  });
});
