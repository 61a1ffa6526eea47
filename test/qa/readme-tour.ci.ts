import { execFileSync, spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/run-cli.js";

// The README's tour, run as written, top to bottom, in a fresh clone of the committed tree
// (node_modules linked, dist copied: no network): every command exits as its comment says and
// `git status` stays clean.

/** The tour's lines: each `npx parity …` (or `T=…`) line and the exit code its comment documents. */
export function tourCommands(readme: string): Array<{ line: string; exit: number }> {
  const section = readme.slice(readme.indexOf("## A short tour"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => ({ line, exit: Number(/# exit (\d+)\b/.exec(line)?.[1] ?? 0) }));
}

let work = "";
let clone = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-tour-"));
  clone = path.join(work, "bridge-parity");
  execFileSync("git", ["clone", "--quiet", repoRoot, clone]);
  // A fresh clone of the repository has main checked out at HEAD. `checkout -B` makes it so whether
  // this checkout is on main (as in CI; `branch --force` refuses a checked-out branch), another
  // branch, or a detached HEAD.
  execFileSync("git", ["checkout", "--quiet", "-B", "main"], { cwd: clone });
  await symlink(path.join(repoRoot, "node_modules"), path.join(clone, "node_modules"), "dir");
  await cp(path.join(repoRoot, "dist"), path.join(clone, "dist"), { recursive: true });
  // The tour reads the shared real recordings at ../shared, as from the repository's own place.
  await symlink(path.resolve(repoRoot, "../shared"), path.join(work, "shared"), "dir");
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("the README tour", () => {
  it("runs top to bottom in a fresh clone: each command exits as documented and git status stays clean", async () => {
    const commands = tourCommands(await readFile(path.join(repoRoot, "README.md"), "utf8"));
    expect(commands.length).toBeGreaterThan(10);
    // One shell, so `T=$(mktemp -d)` carries over; each command's exit code is printed after it.
    const script = commands.map(({ line }) => `${line}\necho "::exit $?"`).join("\n");
    const r = spawnSync("bash", ["-c", script], {
      cwd: clone,
      env: { ...process.env, CI: "", FORCE_COLOR: "0" },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const exits = [...r.stdout.matchAll(/^::exit (\d+)$/gm)].map((m) => Number(m[1]));
    expect(exits, r.stderr.slice(-2000)).toEqual(commands.map((c) => c.exit));
    // node_modules is this test's symlink (the .gitignore's `node_modules/` matches only a directory).
    expect(execFileSync("git", ["status", "--porcelain", "--", ".", ":!node_modules"], { cwd: clone, encoding: "utf8" })).toBe("");
  }, 600_000);
});
