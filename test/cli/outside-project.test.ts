import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

// A newcomer's `parity list` outside a project printed an empty table and exit 0 (and `lanes`,
// `facts` the same; `check` said "no recorded cells under (no recordings root)"). Every command
// that reads the project's recordings/ or cells/ by default now says, in one line, where it
// looked, that this is not a project (or a project without them), and how to fix it; exit 2.

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});
async function tempDir(withPackageJson: boolean): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-outside-"));
  scratch.push(dir);
  if (withPackageJson) await writeFile(path.join(dir, "package.json"), "{}\n");
  return dir;
}

const READERS = [["list"], ["list", "--json"], ["lanes"], ["check"], ["rerecord"], ["review"], ["replay", "--provider", "echo", "--cell", "turn"], ["allow", "--prune"]];

describe("a command run where there is no project", () => {
  it.each(READERS)("parity %s outside any project: one line naming where it looked and the fix, exit 2, nothing written", async (...argv) => {
    const dir = await tempDir(false);
    const r = await runCli(argv, { cwd: dir });
    expect(r.out).toBe("");
    expect(r.err).toBe(
      `parity: not in a project: no recordings/ in ${dir}, and no package.json there or above it (parity works from the nearest directory that has one); run parity from your project, or give --recordings <dir>\n`,
    );
    expect(r.code).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it.each(READERS)("parity %s in a project without recordings/: says so and how to make one", async (...argv) => {
    const dir = await tempDir(true);
    const r = await runCli(argv, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: no recordings/ in the project at ${dir}: record a cell (parity record --help) or import one (parity import --help), or give --recordings <dir>\n`);
  });

  it("parity facts: cells/ missing outside a project, in a project, and a --cells that is not there", async () => {
    const outside = await tempDir(false);
    expect(await runCli(["facts"], { cwd: outside })).toEqual({
      code: 2,
      out: "",
      err: `parity: not in a project: no cells/ in ${outside}, and no package.json there or above it (parity works from the nearest directory that has one); run parity from your project, or give --cells <dir>\n`,
    });
    const project = await tempDir(true);
    expect((await runCli(["facts"], { cwd: project })).err).toBe(
      `parity: no cells/ in the project at ${project}: parity facts computes the facts of the project's own cells (cells/<cell>/), or give --cells <dir>\n`,
    );
    const r = await runCli(["facts", "--cells", "nope"], { cwd: project });
    expect(r).toEqual({ code: 2, out: "", err: `parity: --cells nope: directory not found (${path.join(project, "nope")})\n` });
  });

  it("parity record and parity import (which write into the project) say it too; import with --out writes where it is told", async () => {
    const outside = await tempDir(false);
    expect(await runCli(["record", "--provider", "echo", "--cell", "turn"], { cwd: outside })).toEqual({
      code: 2,
      out: "",
      err: `parity: not in a project: no cells/ in ${outside}, and no package.json there or above it (parity works from the nearest directory that has one); run parity from your project, or give --cells <dir>\n`,
    });
    const project = await tempDir(true);
    expect((await runCli(["record", "--provider", "echo", "--cell", "turn"], { cwd: project })).err).toBe(
      `parity: no cells/ in the project at ${project}: record runs the project's cells (cells/<cell>/cell.json), or give --cells <dir>\n`,
    );
    const source = path.join(repoRoot, "test", "fixtures", "import-race");
    expect(await runCli(["import", source], { cwd: outside })).toEqual({
      code: 2,
      out: "",
      err: `parity: not in a project: no project to write recordings/ into, and no package.json there or above it (parity works from the nearest directory that has one); run parity from your project, or give --out <dir>\n`,
    });
    expect(await readdir(outside)).toEqual([]);
  });

  it("--recordings given still decides (an empty root is an empty listing, not 'not in a project')", async () => {
    const dir = await tempDir(false);
    const r = await runCli(["list", "--recordings", dir], { cwd: dir });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("0 recording(s)");
  });
});
