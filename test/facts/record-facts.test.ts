import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkFactsFresh } from "../../harness/facts/fresh.js";
import { readFactsFile } from "../../harness/facts/reader.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// `parity record` refreshes the facts that judge the lane it recorded (issue 37: computed at
// record time, never during check), in the cells root it recorded from.
const tmp = mkdtempSync(path.join(os.tmpdir(), "facts-record-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("parity record refreshes the facts of the cell it records", () => {
  it("writes the variant's facts the recording is judged by, and says so", async () => {
    const cells = path.join(tmp, "cells");
    cpSync(path.join(repoRoot, "cells", "stop-interrupt"), path.join(cells, "stop-interrupt"), { recursive: true });
    rmSync(path.join(cells, "stop-interrupt", "facts"), { recursive: true });
    const factsFile = path.join(cells, "stop-interrupt", "facts", "echo.json");
    const r = await runCli(["record", "--provider", "echo", "--cell", "stop-interrupt", "--cells", cells, "--out", path.join(tmp, "rec")], { cwd: tmp });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`  cells/stop-interrupt/facts/echo.json: facts written (0 step(s))\n`);
    expect(await checkFactsFresh(cells, "stop-interrupt", "echo")).toMatchObject({ status: "fresh" });
    expect((await readFactsFile(factsFile)).turns.map((t) => t.end)).toEqual(["interrupted", "completed"]);
  });

  it("under CI=true it writes no facts", async () => {
    const cells = path.join(tmp, "cells-ci");
    cpSync(path.join(repoRoot, "cells", "zero-work"), path.join(cells, "zero-work"), { recursive: true });
    rmSync(path.join(cells, "zero-work", "facts"), { recursive: true });
    const r = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--cells", cells, "--out", path.join(tmp, "rec-ci")], { cwd: tmp, ci: true });
    expect(r.code).toBe(0);
    expect(existsSync(path.join(cells, "zero-work", "facts", "echo.json"))).toBe(false);
  });
});
