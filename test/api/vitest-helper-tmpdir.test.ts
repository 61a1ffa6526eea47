import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/run-cli.js";

// Issue 42 point 6: the vitest helper (bridge-parity/vitest) leaves nothing in TMPDIR in any
// outcome — a pass, a failure, a test that times out while its cell still replays, and a bridge
// holding a long timer. A user's vitest run with its own TMPDIR must leave that TMPDIR empty.

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** Every path under `dir`, relative, sorted (empty when nothing is left). */
async function leftIn(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe("the vitest helper leaves TMPDIR empty", () => {
  it("pass, fail, a test timeout mid-replay and a bridge with a one-hour timer: nothing left in the run's TMPDIR", async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), "parity-helper-tmpdir-"));
    scratch.push(work);
    await cp(path.join(repoRoot, "recordings/echo"), path.join(work, "recordings/echo"), { recursive: true });
    await cp(path.join(repoRoot, "lanes/echo"), path.join(work, "lanes/echo"), { recursive: true });
    const resume = path.join(work, "lanes/echo/resume.json");
    await writeFile(resume, (await readFile(resume, "utf8")).replace('"Remember "', '"Forget "'));
    const echo = JSON.stringify(path.join(repoRoot, "dist/stack/echo/bridge.js"));
    const slow = path.join(work, "slow.mjs");
    // Every line waits 400 ms before the echo sees it: the replay outlives the 300 ms test.
    await writeFile(
      slow,
      `import { experimental_providerBridge as echo } from ${echo};\nexport const experimental_providerBridge = { ...echo, handleLine: (line, ctx, message) => new Promise((resolve) => setTimeout(resolve, 400)).then(() => echo.handleLine(line, ctx, message)) };\n`,
    );
    const timer = path.join(work, "timer.mjs");
    await writeFile(timer, `export { experimental_providerBridge } from ${echo};\nsetTimeout(() => {}, 3_600_000);\n`);
    const tmp = await mkdtemp(path.join(os.tmpdir(), "parity-helper-tmp-"));
    scratch.push(tmp);
    const config = path.join(work, "vitest.config.mjs");
    await writeFile(config, `export default { test: { root: ${JSON.stringify(repoRoot)}, include: ["test/api/fixtures/tmpdir-outcomes.fixture.ts"], testTimeout: 60000 } };\n`);
    const r = spawnSync(process.execPath, [path.join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "--config", config, "--reporter", "verbose"], {
      cwd: repoRoot,
      env: { ...process.env, PARITY_FIXTURE_CWD: work, PARITY_FIXTURE_SLOW: slow, PARITY_FIXTURE_TIMER: timer, TMPDIR: tmp, NO_COLOR: "1", FORCE_COLOR: "0" },
      encoding: "utf8",
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(1);
    expect(out).toMatch(/✓ .*a passing cell/);
    expect(out).toMatch(/× .*a failing cell/);
    expect(out).toMatch(/✓ .*a bridge that holds a long timer/);
    expect(out).toMatch(/× .*a cell slower than the test's timeout/);
    expect(await leftIn(tmp)).toEqual([]);
  });
});
