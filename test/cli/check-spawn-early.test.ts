import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, sharedRecordings } from "./run-cli.js";

// Issue 25 (start-up): `parity check` spawns the bridges its first batches need before it loads
// the rest of the gate (harness/cli/check.ts → harness/check/gate-start.ts; check-finish.ts is
// imported after), so a bridge's start-up overlaps the CLI's own loading. And a bridge spawned
// ahead that no replay takes (every cell skipped, an error after the spawn) is ended and reaped.
//
// The real `parity` process (the bundle `bin/parity.js` loads) is run with a preload that logs,
// in order, every module the CLI loads (a module hook: the bundle's chunks are ES modules) and
// every process it spawns, with its pid.

// The real cursor recordings, read by path (in a worktree under /work/wt/ they sit one level further up).
const cursorRoot = existsSync(sharedRecordings) ? sharedRecordings : path.resolve(repoRoot, "../../shared/recordings");

let dir = "";
let preload = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "parity-spawn-early-"));
  const hooks = path.join(dir, "hooks.mjs");
  await writeFile(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (process.env.SPAWN_ORDER_LOG) appendFileSync(process.env.SPAWN_ORDER_LOG, "load " + url + "\\n");
  return next(url, context);
}
`,
  );
  preload = path.join(dir, "preload.mjs");
  await writeFile(
    preload,
    `import { register, syncBuiltinESMExports } from "node:module";
import childProcess from "node:child_process";
import { appendFileSync } from "node:fs";
register(${JSON.stringify(`file://${hooks}`)});
const spawn = childProcess.spawn;
childProcess.spawn = function (...args) {
  const child = spawn.apply(this, args);
  appendFileSync(process.env.SPAWN_ORDER_LOG, "spawn " + child.pid + " " + JSON.stringify([args[0], ...(Array.isArray(args[1]) ? args[1] : [])]) + "\\n");
  return child;
};
syncBuiltinESMExports();
`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Logged {
  code: number | null;
  stderr: string;
  /** The log's lines in order: `load <url>` and `spawn <pid> <argv JSON>`. */
  lines: string[];
}

let runs = 0;
/** Runs the real `parity check <args>` from the repository root with the logging preload. */
async function logged(args: string[]): Promise<Logged> {
  const log = path.join(dir, `log-${(runs += 1)}.txt`);
  await writeFile(log, "");
  const child = spawn(process.execPath, ["--import", preload, path.join(repoRoot, "bin/parity.js"), "check", ...args], {
    cwd: repoRoot,
    env: { ...process.env, SPAWN_ORDER_LOG: log, CI: "true" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stderr, lines: readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

/** The line of the first bridge spawned (through the bridge bootstrap), or -1. */
const bridgeSpawnAt = (lines: readonly string[]) => lines.findIndex((l) => l.startsWith("spawn ") && l.includes("bootstrap"));
const pidOf = (line: string) => Number(line.split(" ")[1]);

/** Whether the process `pid` still exists (a zombie counts: not reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Modules of the bundle that only the replays, comparisons and reports need (harness/cli/check-finish.ts
 * and what it loads); zod (its schema classes) and the schemas built on import of the recording
 * reader: the selection finds cells by their files' names alone (harness/recording/locations.ts).
 */
const LATE_MODULES = [
  "harness/compare/allowlist.ts",
  "stack/assembler/assembler.ts",
  "harness/report/reporters.ts",
  "harness/replay/walk/walk-lines.ts",
  "harness/cli/check-finish.ts",
  "node_modules/zod/v4/classic/schemas.js",
  "harness/recording/lane-entry.ts",
  "harness/recording/manifest.ts",
  "harness/recording/reader.ts",
];

/** Which of {@link LATE_MODULES} a loaded bundle file holds (esbuild marks each module with a `// <path>` comment). */
function lateModulesIn(url: string): string[] {
  if (!url.startsWith("file://") || !url.includes("/dist/bundle/")) return [];
  const text = readFileSync(new URL(url), "utf8");
  return LATE_MODULES.filter((m) => text.includes(`// ${m}\n`));
}

describe("parity check spawns its bridge before it loads the rest of the gate (issue 25)", () => {
  it("the bridge is spawned before any comparator, assembler, allowlist, replay walk, reporter, zod or schema of the recording reader is loaded; the check passes", async () => {
    const run = await logged(["--recordings", cursorRoot, "--provider", "acp-cursor", "--cell", "fork"]);
    expect(run.stderr).not.toMatch(/^parity:/m);
    expect(run.code).toBe(0);
    const at = bridgeSpawnAt(run.lines);
    expect(at).toBeGreaterThan(-1);
    const before = run.lines.slice(0, at).flatMap((l) => (l.startsWith("load ") ? lateModulesIn(l.slice(5)) : []));
    const after = run.lines.slice(at).flatMap((l) => (l.startsWith("load ") ? lateModulesIn(l.slice(5)) : []));
    expect(before).toEqual([]);
    // They are loaded, after it: the markers find them (this test could fail).
    expect(new Set(after)).toEqual(new Set(LATE_MODULES));
    expect(alive(pidOf(run.lines[at]!))).toBe(false);
  });

  it("every cell skipped: the bridge spawned ahead is ended and reaped, exit 0", async () => {
    const run = await logged(["--recordings", cursorRoot, "--provider", "acp-cursor", "--cell", "model-list"]);
    expect(run.code).toBe(0);
    const spawns = run.lines.filter((l) => l.startsWith("spawn ") && l.includes("bootstrap"));
    expect(spawns).toHaveLength(1);
    expect(alive(pidOf(spawns[0]!))).toBe(false);
  });

  it("an allowlist that cannot be read, found after the spawn: one line, exit 2, the bridge ended and reaped", async () => {
    const bad = path.join(dir, "bad-allowlist.json");
    await writeFile(bad, "{ not json");
    const run = await logged(["--recordings", cursorRoot, "--provider", "acp-cursor", "--cell", "fork", "--allowlist", bad]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(bad);
    const at = bridgeSpawnAt(run.lines);
    expect(at).toBeGreaterThan(-1);
    expect(alive(pidOf(run.lines[at]!))).toBe(false);
  });

  it("a bad flag value spawns no bridge: one line naming it, exit 2", async () => {
    const run = await logged(["--recordings", cursorRoot, "--provider", "acp-cursor", "--timeout", "soon"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^parity: --timeout soon/);
    expect(bridgeSpawnAt(run.lines)).toBe(-1);
  });

  it("an unknown --provider spawns no bridge: exit 2 naming the recorded ones", async () => {
    const run = await logged(["--recordings", cursorRoot, "--provider", "acp-nobody"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown --provider acp-nobody; recorded providers: .*acp-cursor/);
    expect(bridgeSpawnAt(run.lines)).toBe(-1);
  });
});
