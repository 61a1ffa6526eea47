/**
 * Issue 38: `parity` installs its signal handling before anything else. A signal that comes while
 * the CLI's bundle is still loading (before any command's own handling, harness/cli/interrupt.ts)
 * ends the run with the CLI's code and one line, not with Node's silent death by the signal.
 *
 * The real entry is run with a module hook that, when the bundle is asked for, sends the process
 * the signal and never lets the load finish, and a preload that keeps the process alive (an
 * unsettled top-level await would otherwise end it with exit 13): the process ends only by the
 * signal's handling, so nothing here depends on when the signal is delivered.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./run-cli.js";

let dir = "";
let preload = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "parity-entry-signals-"));
  const hooks = path.join(dir, "hooks.mjs");
  await writeFile(
    hooks,
    `export async function load(url, context, next) {
  if (!url.endsWith("/dist/bundle/cli.js")) return next(url, context);
  process.kill(process.pid, process.env.ENTRY_SIGNAL);
  return new Promise(() => {});
}
`,
  );
  preload = path.join(dir, "preload.mjs");
  await writeFile(preload, `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hooks}`)});\nsetInterval(() => {}, 2 ** 30);\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the real entry, signalled with `signal` while its bundle loads. */
async function signalledWhileLoading(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", preload, path.join(repoRoot, "bin/parity.js"), "check"], {
    cwd: repoRoot,
    env: { ...process.env, ENTRY_SIGNAL: signal },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code, killedBy) => resolve({ code, signal: killedBy, stderr })));
}

describe("bin/parity.js and a signal before any command runs", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)("%s while the bundle loads: exit %i and one line, not death by the signal", async (signal, code) => {
    const run = await signalledWhileLoading(signal);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(code);
    expect(run.stderr).toBe(`parity: interrupted (${signal}) while starting: stopped, nothing written\n`);
  });
});
