import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeAcpAgent } from "../../stack/acp/agents/probe.js";
import { processesWorkingIn } from "../../harness/record/leftovers.js";
import { repoRoot } from "../cli/run-cli.js";

// Agents run in their own process group and the group is ended (spec 30 §3.2 probe "always
// kills it"): a wrapper that spawnSyncs the real agent with inherited stdio, whose agent spawns a
// grandchild with inherited stdio too, must neither hang the probe nor outlive it.

const codexWrapper = path.join(repoRoot, "agents", "node_modules", ".bin", "codex-acp");
const wrapper = path.join(repoRoot, "test", "fixtures", "agents", "spawnsync-wrapper.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead for our purpose: it holds no pipe and runs nothing.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};

async function gone(pid: number): Promise<boolean> {
  // Reaping after SIGKILL is asynchronous and cannot be awaited for a process that is not our
  // child, so this polls; the 10 s bound only stops a test that would never pass (a loaded machine
  // may take far longer than a quick reap, which must not fail the test).
  for (let i = 0; i < 200 && alive(pid); i += 1) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 500 && alive(pid); i += 1) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

describe.skipIf(process.platform === "win32")("agent process groups", () => {
  it("probing a wrapper whose agent and grandchild inherit its stdio returns, and leaves none of them behind", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "parity-pgroup-"));
    dirs.push(dir);
    const pidFile = path.join(dir, "grandchild.pid");
    const result = await probeAcpAgent({
      command: process.execPath,
      args: [wrapper],
      cwd: dir,
      env: { LOOPBACK_AGENT_GRANDCHILD: pidFile },
      timeoutMs: 120_000,
      isolateHome: false,
    });
    expect(result.reachable).toBe(true);
    expect(existsSync(pidFile)).toBe(true);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    expect(await gone(grandchild)).toBe(true);
  });

  // Runs where the agents are installed (npm run agents:install); CI installs them.
  it.skipIf(!existsSync(codexWrapper) && process.env.CI !== "true")("probing codex-acp through its npm wrapper returns and leaves its native binary behind in no case", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "parity-pgroup-codex-"));
    dirs.push(dir);
    const result = await probeAcpAgent({ command: codexWrapper, args: [], cwd: dir, env: { CODEX_HOME: dir }, timeoutMs: 120_000, isolateHome: true, tempDir: dir });
    expect(result.reachable).toBe(true);
    const left = processesWorkingIn(dir);
    for (const pid of left) expect(await gone(pid), `pid ${pid}`).toBe(true);
  });
});
