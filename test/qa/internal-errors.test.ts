import { spawnSync } from "node:child_process";
import { openSync, closeSync, lstatSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../cli/run-cli.js";

// Issue 26: a file, directory or stream the machine cannot read or write is one line naming it,
// exit 5 (never 1, the parity-failure code), no stack trace, checked before any work where it can be.

const parityBin = path.join(repoRoot, "bin/parity.js");
const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** A project with copies of the committed echo/turn recording and its oracle. */
async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-internal-"));
  scratch.push(dir);
  await cp(path.join(repoRoot, "recordings/echo/turn"), path.join(dir, "recordings/echo/turn"), { recursive: true });
  await mkdir(path.join(dir, "lanes/echo"), { recursive: true });
  return dir;
}

function parity(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  // INIT_CWD (set by npm/npx) would win over cwd as the project directory.
  return spawnSync(process.execPath, [parityBin, ...args], { cwd, env: { ...process.env, CI: "", INIT_CWD: cwd, ...env }, encoding: "utf8" });
}

/** Runs `parity` in a private mount namespace with `dir` a tmpfs of 256 KiB (a full disk for the run). */
function parityOnFullDisk(args: string[], cwd: string, dir: string, env: NodeJS.ProcessEnv = {}) {
  const script = 'mount -t tmpfs -o size=256k tmpfs "$1" && shift && exec "$@"';
  return spawnSync("unshare", ["-rm", "sh", "-c", script, "sh", dir, process.execPath, parityBin, ...args], {
    cwd,
    env: { ...process.env, CI: "", INIT_CWD: cwd, ...env },
    encoding: "utf8",
  });
}
const canUnshare = spawnSync("unshare", ["-rm", "true"]).status === 0;

describe("internal errors: one line, exit 5", () => {
  it("an oracle path that is a directory names it (EISDIR)", async () => {
    const dir = await project();
    await mkdir(path.join(dir, "lanes/echo/turn.json"));
    const r = parity(["check", "--provider", "echo", "--cell", "turn"], dir);
    expect(r.status).toBe(5);
    expect(r.stderr).toBe(`parity: ${path.join(dir, "lanes/echo/turn.json")}: is a directory, not a file (EISDIR)\n`);
  });

  it("a symlink-loop oracle is an error naming it, never a missing oracle replaced (ELOOP)", async () => {
    const dir = await project();
    const oracle = path.join(dir, "lanes/echo/turn.json");
    await symlink("turn.json", oracle);
    const r = parity(["check", "--provider", "echo", "--cell", "turn"], dir);
    expect(r.status).toBe(5);
    expect(r.stderr).toBe(`parity: ${oracle}: a symbolic link loop (ELOOP)\n`);
    expect(lstatSync(oracle).isSymbolicLink()).toBe(true);
  });

  it("--lanes naming a file is refused before any replay: exit 2", async () => {
    const r = parity(["check", "--provider", "echo", "--cell", "turn", "--lanes", "README.md"], repoRoot);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("parity: --lanes README.md: not a directory\n");
  });

  it("standard output on a full device: one line naming it, exit 5, no stack trace", () => {
    const full = openSync("/dev/full", "w");
    try {
      const r = spawnSync(process.execPath, [parityBin, "list"], { cwd: repoRoot, stdio: ["ignore", full, "pipe"], encoding: "utf8" });
      expect(r.status).toBe(5);
      expect(r.stderr).toBe("parity: standard output: no space left on the device (ENOSPC)\n");
    } finally {
      closeSync(full);
    }
  });

  it.runIf(canUnshare)("TMPDIR on a full disk: refused before any replay, exit 5", async () => {
    const dir = await project();
    const tmp = path.join(dir, "tmp");
    await mkdir(tmp);
    const r = parityOnFullDisk(["check", "--provider", "echo", "--cell", "turn"], dir, tmp, { TMPDIR: tmp });
    expect(r.status).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`^parity: TMPDIR=${tmp}: no space left on the device \\(ENOSPC\\); \\d+ KiB free, at least 1024 KiB needed; free some space or point it elsewhere\\n$`));
  });

  it.runIf(canUnshare)("record --out on a full disk: refused before the agent runs, exit 5", async () => {
    const dir = await project();
    const out = path.join(dir, "out");
    await mkdir(out);
    const r = parityOnFullDisk(["record", "--provider", "echo", "--cell", "turn", "--out", out], dir, out);
    expect(r.status).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`^parity: --out ${out}: no space left on the device \\(ENOSPC\\); \\d+ KiB free`));
  });
});
