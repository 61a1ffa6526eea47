import { spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInterruptible, type InterruptHost, type StopSignal } from "../../harness/cli/interrupt.js";
import { repoRoot, runCli } from "./run-cli.js";

// Ctrl-C / SIGTERM: exit 130 / 143, one line, and every temp dir of the run removed (the run's
// temp files all live in one session dir under TMPDIR). A TMPDIR pointing nowhere: exit 2.

const scratch: string[] = [];
let silentBridge = "";
beforeAll(async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-intr-mod-"));
  scratch.push(dir);
  // A valid bridge that never answers and always has a timer due within the replay's horizon:
  // the replay never judges it idle, so it waits (up to the long --timeout) until interrupted. A
  // bridge with nothing pending would be judged idle and the check would end on its own, racing
  // the interrupt.
  silentBridge = path.join(dir, "silent.mjs");
  await writeFile(silentBridge, "setInterval(() => {}, 1000);\nexport const experimental_providerBridge = { handleLine() {} };\n");
});
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

async function tempRoot(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-intr-"));
  scratch.push(dir);
  return dir;
}

/** Every path under `dir`, relative. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

/** Starts `parity <args>` with TMPDIR=`tmp`, sends `signal` once a replay's `pr-*` dir exists, and returns the exit. */
async function interruptWhenReplaying(args: string[], tmp: string, signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [path.join(repoRoot, "bin/parity.js"), ...args], {
    cwd: repoRoot,
    env: { ...process.env, TMPDIR: tmp, CI: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (c: Buffer) => void (stderr += c.toString("utf8")));
  child.stdout.on("data", (c: Buffer) => void (stdout += c.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("close", (code, sig) => resolve({ code, signal: sig })));
  // Wait (by cause, not by time) until the replay has made its temp dir and started a bridge.
  let seen: string[];
  for (;;) {
    seen = tree(tmp);
    if (seen.some((p) => /(^|\/)pr-[^/]+$/.test(p)) && seen.some((p) => /bb-bridge-/.test(p))) break;
    const done = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 20))]);
    if (done) throw new Error(`exited before the replay started: ${stderr}`);
  }
  child.kill(signal);
  return { ...(await exited), stderr, stdout, seen };
}

describe("interrupts", () => {
  it("SIGINT during check: exit 130, one line, the pr-* and bb-bridge-* dirs removed", async () => {
    const tmp = await tempRoot();
    const r = await interruptWhenReplaying(["check", "--provider", "echo", "--cell", "turn", "--module", silentBridge, "--timeout", "600000"], tmp, "SIGINT");
    expect(r.seen.every((p) => p.startsWith("parity-"))).toBe(true);
    expect(r.code).toBe(130);
    expect(r.stderr).toBe("parity: interrupted (SIGINT): stopped; temp files removed\n");
    expect(tree(tmp)).toEqual([]);
  });

  it("SIGTERM during check: exit 143, temp dirs removed", async () => {
    const tmp = await tempRoot();
    const r = await interruptWhenReplaying(["check", "--provider", "echo", "--cell", "turn", "--module", silentBridge, "--timeout", "600000"], tmp, "SIGTERM");
    expect(r.code).toBe(143);
    expect(r.stderr).toContain("interrupted (SIGTERM)");
    expect(tree(tmp)).toEqual([]);
  });

  it("SIGINT during record: exit 130; the bridge got a TMPDIR inside the record's temp root, so nothing is left", async () => {
    const root = await tempRoot();
    const tmp = path.join(root, "tmp");
    const cells = path.join(root, "cells");
    await mkdir(tmp);
    await mkdir(path.join(cells, "echo-hold"), { recursive: true });
    await writeFile(
      path.join(cells, "echo-hold", "cell.json"),
      JSON.stringify({
        description: "Echo holds its turn open.",
        threadId: "thr_echo_hold",
        options: { permissionMode: "full" },
        steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "/hold Working.", until: "turn/completed" }],
      }),
    );
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, "bin/parity.js"), "record", "--provider", "echo", "--cell", "echo-hold", "--cells", cells, "--out", path.join(root, "rec"), "--lanes", path.join(root, "lanes")],
      { cwd: root, env: { ...process.env, TMPDIR: tmp, CI: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    let bridgeTemp: string | undefined;
    while (bridgeTemp === undefined) {
      bridgeTemp = tree(tmp).find((p) => /bb-bridge-[^/]+$/.test(p));
      if (bridgeTemp === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    expect(bridgeTemp).toMatch(/^parity-[^/]+\/rec-[^/]+\/tmp\/bb-bridge-echo-[^/]+$/);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    // Not a terminal: the record's wait progress says when the wait started and that it was interrupted
    // (issue 27), then the interrupt's one line (issue 26).
    expect(stderr).toMatch(
      /^recording echo\/echo-hold… \(a live agent: usually 10–60 s\)\nrecording echo\/echo-hold: interrupted after \d+\.\d s\nparity: interrupted: the agent and bridge were stopped, the temp directory removed, nothing written\n$/,
    );
    expect(tree(tmp)).toEqual([]);
  });

  it("a finished run leaves nothing in TMPDIR either", async () => {
    const tmp = await tempRoot();
    const r = spawnSync(process.execPath, [path.join(repoRoot, "bin/parity.js"), "check", "--provider", "echo", "--cell", "turn"], {
      cwd: repoRoot,
      env: { ...process.env, TMPDIR: tmp, CI: "true" },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(tree(tmp)).toEqual([]);
  });

  it("TMPDIR pointing nowhere: one clear line, exit 2, for the real executable and in-process", async () => {
    const nowhere = path.join(await tempRoot(), "no", "such");
    const r = spawnSync(process.execPath, [path.join(repoRoot, "bin/parity.js"), "check", "--provider", "echo"], {
      cwd: repoRoot,
      env: { ...process.env, TMPDIR: nowhere },
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`parity: TMPDIR=${nowhere}: directory not found; point TMPDIR at a writable directory or unset it\n`);
    const host: InterruptHost = { env: { TMPDIR: nowhere }, onSignal: () => () => undefined, exit: () => undefined };
    const inProcess = await runCli(["rerecord", "--provider", "echo"], { interrupts: host });
    expect(inProcess.code).toBe(2);
    expect(inProcess.err).toMatch(/^parity: TMPDIR=.*: directory not found/);
    // Commands that make no temp files do not care.
    expect((await runCli(["list"], { interrupts: host })).code).toBe(0);
  });
});

describe("runInterruptible", () => {
  function fakeHost(env: NodeJS.ProcessEnv = {}) {
    let handler: (s: StopSignal) => void = () => undefined;
    const exits: number[] = [];
    const host: InterruptHost = {
      env,
      onSignal: (h) => {
        handler = h;
        return () => (handler = () => undefined);
      },
      exit: (code) => void exits.push(code),
    };
    return { host, exits, send: (s: StopSignal) => handler(s) };
  }

  it("a graceful command is given the abort and its own message is printed; the session dir and TMPDIR are restored", async () => {
    const parent = await tempRoot();
    const { host, exits, send } = fakeHost({ TMPDIR: parent });
    let err = "";
    let sessionSeen = "";
    const code = await runInterruptible(
      (signal) =>
        new Promise<number>((_, reject) => {
          sessionSeen = host.env.TMPDIR!;
          signal.addEventListener("abort", () => reject(new (class extends Error {})("stopped the agent")));
          send("SIGTERM");
        }),
      { host, tempDir: true, graceful: true, err: (t) => void (err += t) },
    );
    expect(code).toBe(143);
    expect(exits).toEqual([143]);
    expect(path.dirname(sessionSeen)).toBe(parent);
    expect(host.env.TMPDIR).toBe(parent);
    expect(tree(parent)).toEqual([]);
    expect(err).toBe("parity: internal error: stopped the agent; interrupted (SIGTERM): stopped; temp files removed\n");
  });

  it("without a signal the run's code and errors pass through and nothing is printed", async () => {
    const { host, exits } = fakeHost({});
    expect(await runInterruptible(async () => 1, { host, tempDir: true, graceful: false, err: () => undefined })).toBe(1);
    await expect(runInterruptible(async () => Promise.reject(new Error("x")), { host, tempDir: false, graceful: false, err: () => undefined })).rejects.toThrow("x");
    expect(exits).toEqual([]);
    expect(host.env.TMPDIR).toBeUndefined();
  });
});
