/**
 * `parity probe --provider acp-opencode` against the REAL opencode agent (devDependency
 * `opencode-ai`): it runs through its record profile (fresh temp HOME/XDG dirs, the profile's
 * config and env, the loopback model endpoint, a network namespace where there is one), offline,
 * and the answer carries the capabilities opencode reports and its answer to one prompt. The binary is resolved from the repo root, never from the
 * ambient PATH.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createProbeCommand } from "../../harness/cli/probe.js";
import { PROBE_MODEL_ANSWER } from "../../harness/cli/probe-provider.js";
import { formatProbe } from "../../harness/families/acp/probe.js";
import type { CliContext } from "../../harness/cli/context.js";
import { acpAgentProbeSchema, probeAcpAgent } from "../../stack/acp/agents/probe.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

const OPENCODE_BIN_DIR = join(REPO_ROOT, "node_modules", ".bin");
const OPENCODE = join(OPENCODE_BIN_DIR, "opencode");
// opencode needs a few seconds to start on a loaded machine; this only bounds a hang.
const PROBE_TIMEOUT_MS = 60_000;

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every path under `dir` with its size and mtime (empty when `dir` does not exist). */
function snapshot(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((rel) => {
      const stat = statSync(join(dir, rel), { throwIfNoEntry: false });
      return `${rel} ${stat?.size ?? "-"} ${stat?.mtimeMs ?? "-"}`;
    })
    .sort();
}

/** The facts opencode reports about itself, as the agent sends them. */
function expectOpencodeCapabilities(probe: unknown): void {
  const parsed = acpAgentProbeSchema.parse(probe);
  if (!parsed.reachable) throw new Error(`opencode was not reachable: ${parsed.reason}`);
  expect(parsed.protocolVersion).toBe(1);
  expect(parsed.agentInfo?.name).toBe("OpenCode");
  expect(parsed.agentCapabilities.loadSession).toBe(true);
  expect(parsed.agentCapabilities.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
  expect(Object.keys(parsed.agentCapabilities.sessionCapabilities ?? {})).toEqual(expect.arrayContaining(["fork", "resume", "list"]));
  expect(parsed.agentCapabilities.mcpCapabilities).toBeTypeOf("object");
  expect(parsed.fork).toBe(true);
  expect(parsed.authMethods.map((m) => m.id)).toContain("opencode-login");
  expect(parsed.launch).toMatchObject({ dialect: "opencode", isolatedHome: true });
  expect(parsed.launch?.addedEnv).toMatchObject({ OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_CLIENT: "acp" });
}

describe("probing the real opencode agent", () => {
  it("the devDependency binary is installed", () => {
    expect(existsSync(OPENCODE), `${OPENCODE} (npm opencode-ai)`).toBe(true);
  });

  it(
    "parity probe --provider acp-opencode --prompt: through its record profile (fresh HOME, loopback model), nothing written outside the run's temp dir",
    async () => {
      // The user's HOME for this run is a fresh empty directory of its own: any write there is
      // the probe's (snapshotting the machine's real HOME also saw other processes' npm logs).
      const userHome = temp("probe-user-home-");
      vi.stubEnv("HOME", userHome);
      const parent = temp("probe-temp-parent-");
      const workspace = temp("probe-workspace-");
      const out: string[] = [];
      const err: string[] = [];
      const ctx: CliContext = { out: (t) => out.push(t), err: (t) => err.push(t), color: false, verbose: false, ci: false, cwd: workspace };
      const command = createProbeCommand({ tempDir: parent });
      let code: number;
      try {
        code = await command.run({ provider: "acp-opencode", json: true, prompt: "Say hello.", network: "auto", "timeout-ms": PROBE_TIMEOUT_MS }, ctx);
      } finally {
        vi.unstubAllEnvs();
      }
      const answer = JSON.parse(out.join("")) as Record<string, unknown>;
      expect(code, JSON.stringify(answer)).toBe(0);
      // The profile's launch: opencode's own args, as record runs it.
      expect(answer.agent).toBe("opencode acp --port 0 --hostname 127.0.0.1");
      const probe = Object.fromEntries(Object.entries(answer).filter(([key]) => key !== "agent"));
      expectOpencodeCapabilities(probe);
      // One session and one prompt, answered by the loopback model endpoint's scripted text.
      expect(acpAgentProbeSchema.parse(probe)).toMatchObject({ prompt: { stopReason: "end_turn", text: PROBE_MODEL_ANSWER } });
      // Everything the run wrote lived in its temp root under `parent`, now removed; the user's HOME and cwd are untouched.
      expect(readdirSync(parent)).toEqual([]);
      expect(readdirSync(workspace)).toEqual([]);
      expect(snapshot(userHome)).toEqual([]);

      const text = formatProbe("opencode acp", acpAgentProbeSchema.parse(probe));
      expect(text).toMatch(/^opencode acp: reachable \(ACP protocol 1, agent OpenCode \S+\)\n/);
      expect(text).toContain("  launch: dialect opencode, isolated temp HOME/XDG dirs (removed afterwards), OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1");
      expect(text).toMatch(/\n {4}loadSession: true\n/);
      expect(text).toMatch(/\n {4}promptCapabilities: \{.*"image":true.*\}\n/);
      expect(text).toMatch(/\n {4}sessionCapabilities: \{.*"fork":\{\}.*\}\n/);
      expect(text).toMatch(/\n {2}authMethods: opencode-login \(/);
      expect(text).toContain(`  prompt: stopReason end_turn, said ${JSON.stringify(PROBE_MODEL_ANSWER)}\n`);
    },
    // Version read, initialize, session/new and a prompt of a real agent: only bounds a hang (about 3 min at load 23).
    PROBE_TIMEOUT_MS * 10,
  );

  it(
    "probeAcpAgent on the absolute binary with the real environment leaves the real HOME's opencode dirs as they were",
    async () => {
      const realHome = process.env.HOME ?? homedir();
      const watched = [join(realHome, ".local", "share", "opencode"), join(realHome, ".config", "opencode"), join(realHome, ".cache", "opencode"), join(realHome, ".local", "state", "opencode")];
      const before = watched.map(snapshot);
      const parent = temp("probe-temp-parent-");
      const probe = await probeAcpAgent({ command: OPENCODE, args: ["acp"], cwd: temp("probe-workspace-"), timeoutMs: PROBE_TIMEOUT_MS, tempDir: parent });
      expectOpencodeCapabilities(probe);
      expect(watched.map(snapshot)).toEqual(before);
      expect(readdirSync(parent)).toEqual([]);
    },
    PROBE_TIMEOUT_MS * 2,
  );
});
