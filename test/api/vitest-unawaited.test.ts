import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/run-cli.js";

// Issue 26: `expect(opts).toMatchParityOracle()` without `await` used to pass (and leak the
// replay's temp files). Now it fails its test, once the replay is over; an awaited one passes.

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

describe("the vitest helper cannot pass silently", () => {
  it("an un-awaited matcher fails its test file; the awaited one passes; no replay temp dir is left", async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), "parity-unawaited-"));
    scratch.push(work);
    await cp(path.join(repoRoot, "recordings/echo"), path.join(work, "recordings/echo"), { recursive: true });
    await cp(path.join(repoRoot, "lanes/echo"), path.join(work, "lanes/echo"), { recursive: true });
    const tmp = await mkdtemp(path.join(os.tmpdir(), "parity-unawaited-tmp-"));
    scratch.push(tmp);
    const config = path.join(work, "vitest.config.mjs");
    await writeFile(config, `export default { test: { root: ${JSON.stringify(repoRoot)}, include: ["test/api/fixtures/unawaited-matcher.fixture.ts"], testTimeout: 60000 } };\n`);
    const r = spawnSync(process.execPath, [path.join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "--config", config, "--reporter", "verbose"], {
      cwd: repoRoot,
      env: { ...process.env, PARITY_FIXTURE_CWD: work, TMPDIR: tmp, NO_COLOR: "1", FORCE_COLOR: "0" },
      encoding: "utf8",
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(1);
    expect(out).toContain('expect({ provider: "echo", cell: "turn" }).toMatchParityOracle() was not awaited');
    expect(out).toMatch(/✓ .*awaited matcher on a passing cell/);
    expect(out).toMatch(/× .*un-awaited matcher on a passing cell/);
    expect((await readdir(tmp)).filter((n) => n.startsWith("pr-"))).toEqual([]);
  });
});
