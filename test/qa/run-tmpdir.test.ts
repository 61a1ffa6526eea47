import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/run-cli.js";

// Issue 42 point 6: `npm test` leaves nothing in TMPDIR, whatever its tests leave and however
// they end: its global setup (test/helpers/run-tmpdir.ts) runs the suite in one directory under
// TMPDIR and removes it at the end. Shown with a vitest of its own, given its own TMPDIR, over a
// test that leaves a temp dir and a test that fails — with the setup, and without it.

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

async function runFixture(globalSetup: string[]): Promise<{ status: number | null; left: string[]; out: string }> {
  const work = await mkdtemp(path.join(os.tmpdir(), "parity-run-tmpdir-"));
  const tmp = await mkdtemp(path.join(os.tmpdir(), "parity-run-tmpdir-own-"));
  scratch.push(work, tmp);
  const config = path.join(work, "vitest.config.mjs");
  await writeFile(config, `export default { test: { root: ${JSON.stringify(repoRoot)}, include: ["test/qa/fixtures/run-tmpdir.fixture.ts"], globalSetup: ${JSON.stringify(globalSetup)} } };\n`);
  const r = spawnSync(process.execPath, [path.join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "--config", config], {
    cwd: repoRoot,
    env: { ...process.env, TMPDIR: tmp, NO_COLOR: "1", FORCE_COLOR: "0" },
    encoding: "utf8",
  });
  return { status: r.status, left: (await readdir(tmp)).sort(), out: `${r.stdout}${r.stderr}` };
}

describe("npm test's run directory", () => {
  it("a failing run whose test leaves a temp dir leaves its TMPDIR empty", async () => {
    const run = await runFixture([path.join(repoRoot, "test/helpers/run-tmpdir.ts")]);
    expect(run.status, run.out).toBe(1);
    expect(run.left).toEqual([]);
  });

  it("without the run directory, the same run leaves the test's dir behind", async () => {
    const run = await runFixture([]);
    expect(run.status, run.out).toBe(1);
    expect(run.left.some((name) => name.startsWith("left-behind-"))).toBe(true);
  });
});
