import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/run-cli.js";

// The README's first command, as a new user runs it in a fresh clone: `npm ci` builds the project
// once (its `prepare`), and the gate command, `npm run gate`, builds nothing more — run from a
// subdirectory, with a read-only HOME, and beside an `npx parity` that installs the project into
// npx's cache (whose `prepare` finds the build current: build/prepare.mjs). The clone has no
// sibling folder of real recordings: the gate over the committed matrix does not need it.

let work = "";
let clone = "";
let home = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-build-once-"));
  clone = path.join(work, "bridge-parity");
  home = path.join(work, "home");
  await mkdir(home);
  execFileSync("git", ["clone", "--quiet", repoRoot, clone]);
  execFileSync("git", ["checkout", "--quiet", "-B", "main"], { cwd: clone });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** `npm …` in `cwd` with a HOME of the test's own (npm's cache stays where CI's `npm ci` filled it). */
function npm(args: string[], cwd: string, extra: Record<string, string> = {}): SpawnSyncReturns<string> {
  const env = { ...process.env, HOME: home, npm_config_cache: path.join(os.homedir(), ".npm"), npm_config_update_notifier: "false", FORCE_COLOR: "0", ...extra };
  return spawnSync("npm", args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

/** Runs `script` in a private mount namespace where HOME is mounted read-only; undefined where that cannot be made. */
function withReadOnlyHome(script: string, cwd: string): SpawnSyncReturns<string> | undefined {
  const probe = spawnSync("unshare", ["-m", "true"]);
  if (probe.status !== 0) return undefined;
  const env = { ...process.env, HOME: home, npm_config_update_notifier: "false", FORCE_COLOR: "0" };
  return spawnSync("unshare", ["-m", "sh", "-c", `mount --bind -o ro "$HOME" "$HOME" && ${script}`], { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

const builds = (output: string) => output.split("\n").filter((line) => line.includes("tsc -p tsconfig.build.json")).length;

describe("npm ci && npm run gate in a fresh clone", () => {
  it("builds exactly once, and the gate runs from a subdirectory with a read-only HOME", async () => {
    const install = npm(["ci", "--no-audit", "--no-fund", "--prefer-offline", "--foreground-scripts"], clone);
    expect(install.status, install.stderr.slice(-2000)).toBe(0);
    expect(builds(install.stdout + install.stderr)).toBe(1);
    const stamp = path.join(clone, "dist", ".sources.sha256");
    const bundle = path.join(clone, "dist", "bundle", "cli.js");
    const before = [(await stat(stamp)).mtimeMs, (await stat(bundle)).mtimeMs];

    // The gate from a subdirectory: it finds the project's recordings from the root (harness/cli/project-dir.ts).
    const sub = path.join(clone, "harness");
    const gate = withReadOnlyHome("npm run gate", sub) ?? npm(["run", "gate"], sub);
    expect(gate.status, (gate.stdout + gate.stderr).slice(-3000)).toBe(0);
    expect(gate.stdout).toMatch(/\b\d+ passed\b/);
    expect(builds(gate.stdout + gate.stderr)).toBe(0);

    // npx installs the project into its cache and runs `prepare` there, in place: no second build.
    const npx = spawnSync("npx", ["parity", "--version"], {
      cwd: clone,
      env: { ...process.env, HOME: home, npm_config_update_notifier: "false" },
      encoding: "utf8",
    });
    expect(npx.status, npx.stderr.slice(-2000)).toBe(0);
    expect(npx.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

    expect([(await stat(stamp)).mtimeMs, (await stat(bundle)).mtimeMs]).toEqual(before);
  }, 900_000);
});
