import { mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../cli/run-cli.js";

// QA: under CI=true, `parity lanes --out lanes-link` (a symbolic link to lanes/) and
// `--out lanes/echo` wrote oracles: the guard compared the --out text with "lanes" only.
describe("parity lanes --out under CI", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function checkout(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "parity-qa-ci-out-"));
    dirs.push(dir);
    await mkdir(path.join(dir, "lanes"));
    await mkdir(path.join(dir, "recordings"));
    return dir;
  }
  const recordings = path.join(repoRoot, "recordings");

  it.each([
    ["a symbolic link to lanes/", "lanes-link", "lanes"],
    ["a subdirectory of lanes/", "lanes/echo", "lanes"],
    ["a path through ..", "recordings/../lanes", "lanes"],
    ["the recordings tree", "recordings/echo", "recordings"],
  ])("refuses %s and writes nothing", async (_what, out, guarded) => {
    const dir = await checkout();
    await symlink(path.join(dir, "lanes"), path.join(dir, "lanes-link"));
    const r = await runCli(["lanes", "--recordings", recordings, "--provider", "echo", "--out", out], { ci: true, cwd: dir });
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: --out ${out}: that is inside ${guarded}/, and nothing writes oracles or recordings under CI=true\n`);
    expect(await readdir(path.join(dir, "lanes"))).toEqual([]);
    expect(await readdir(path.join(dir, "recordings"))).toEqual([]);
  });

  it("still writes elsewhere under CI", async () => {
    const dir = await checkout();
    const r = await runCli(["lanes", "--recordings", recordings, "--provider", "echo", "--cell", "turn", "--out", "out"], { ci: true, cwd: dir });
    expect(r.code).toBe(0);
    expect(await readdir(path.join(dir, "out", "echo"))).toEqual(["turn.json", "turn.version"]);
  });
});
