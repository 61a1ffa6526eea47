/**
 * `probeAcpAgent` and `parity probe` (spec 30 §3.2) against the fixture agent.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import { probeCommand, splitCommandLine } from "../../harness/cli/probe.js";
import type { CliContext } from "../../harness/cli/context.js";
import { acpAgentProbeSchema, probeAcpAgent } from "../../stack/acp/agents/probe.js";
import { fixtureAgentMain } from "./fixture-agent-build.js";

const script = (value: object) => ["--script-json", JSON.stringify(value)];

function cli(): { ctx: CliContext; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { ctx: { out: (t) => out.push(t), err: (t) => err.push(t), color: false, verbose: false, ci: false, cwd: process.cwd() }, out, err };
}

describe("probeAcpAgent", () => {
  it("reports reachable with the agent's facts after initialize only", async () => {
    const probe = await probeAcpAgent({ command: process.execPath, args: [fixtureAgentMain(), ...script({ fork: true, authMethods: [{ id: "login" }] })], cwd: process.cwd() });
    expect(acpAgentProbeSchema.parse(probe)).toEqual({
      reachable: true,
      fork: true,
      protocolVersion: 1,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: false }, sessionCapabilities: { fork: {} } },
      authMethods: [{ id: "login" }],
      launch: { dialect: "acp", isolatedHome: false, addedEnv: {} },
    });
  });

  it("runs an opencode-dialect agent in a removed temp home with the offline switches, over the inherited env", async () => {
    const parent = mkdtempSync(join(tmpdir(), "acp-probe-parent-"));
    const out = join(parent, "env.json");
    // A wrapper writes the env the agent got, then becomes the fixture agent (same argv shape).
    const wrapper = join(parent, "dump-env.mjs");
    writeFileSync(
      wrapper,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(out)}, JSON.stringify(process.env));\nawait import(${JSON.stringify(pathToFileURL(fixtureAgentMain()).href)});\n`,
    );
    const probe = await probeAcpAgent({
      command: process.execPath,
      args: [wrapper, ...script({})],
      cwd: process.cwd(),
      acpDialect: "opencode",
      tempDir: parent,
      env: { SPEC_ONLY: "1" },
      inheritedEnv: { PATH: "/usr/bin:/bin", HOME: "/nonexistent-real-home", XDG_DATA_HOME: "/nonexistent-real-home/data", BB_SECRET: "x" },
    });
    expect(probe.reachable).toBe(true);
    const env = JSON.parse(readFileSync(out, "utf8")) as Record<string, string>;
    const home = env.HOME!;
    expect(home.startsWith(join(parent, "acp-probe-home-"))).toBe(true);
    expect(env).toMatchObject({
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local", "state"),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_CLIENT: "acp",
      OPENCODE_ENABLE_QUESTION_TOOL: "false",
      SPEC_ONLY: "1",
    });
    expect(env.BB_SECRET).toBeUndefined();
    expect(probe.launch).toEqual({ dialect: "opencode", isolatedHome: true, addedEnv: expect.objectContaining({ HOME: home, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_CLIENT: "acp" }) });
    // The isolated home is gone; only the env dump is left in the parent.
    expect(readdirSync(parent).sort()).toEqual(["dump-env.mjs", "env.json"]);
    rmSync(parent, { recursive: true, force: true });
  });

  it("reports the timeout, an early exit and a missing command as unreachable reasons", async () => {
    // The initialize timeout runs on a fake clock, moved past it once the probe waits for the answer.
    const clock = createFakeScheduler();
    const probing = probeAcpAgent({ command: process.execPath, args: [fixtureAgentMain(), ...script({ initialize: "never" })], cwd: process.cwd(), timeoutMs: 1500, scheduler: clock });
    await clock.whenPending((t) => t.delayMs === 1500);
    clock.advance(1500);
    const silent = await probing;
    expect(silent).toEqual({ reachable: false, reason: "the agent did not answer initialize within 1500ms", launch: { dialect: "acp", isolatedHome: false, addedEnv: {} } });
    const exits = await probeAcpAgent({ command: process.execPath, args: [fixtureAgentMain(), ...script({ initialize: "exit" })], cwd: process.cwd() });
    expect(exits.reachable).toBe(false);
    expect(!exits.reachable && exits.reason).toMatch(/^the agent exited before it answered initialize: .*code 3/);
    const missing = await probeAcpAgent({ command: "no-such-acp-agent-here", args: [], cwd: process.cwd() });
    expect(!missing.reachable && missing.reason).toMatch(/^Failed to launch ACP agent "no-such-acp-agent-here": /);
  });
});

describe("parity probe", () => {
  it("splits --command like a shell would, without a shell", () => {
    expect(splitCommandLine(`node "my agent.js" --flag='a b' x\\ y`)).toEqual(["node", "my agent.js", "--flag=a b", "x y"]);
    expect(() => splitCommandLine("node 'open")).toThrowError(/unterminated ' quote/);
    expect(() => splitCommandLine("   ")).toThrowError(/--command is empty/);
  });

  it("probes a --command, prints the facts and exits 0; exits 1 when unreachable", async () => {
    const { ctx, out } = cli();
    const main = fixtureAgentMain();
    const code = await probeCommand.run({ command: `${process.execPath} ${main} --script-json '{"fork":false}'`, "timeout-ms": 10_000, json: true }, ctx);
    expect(code).toBe(0);
    expect(JSON.parse(out.join(""))).toMatchObject({ reachable: true, fork: false });

    const dir = mkdtempSync(join(tmpdir(), "acp-probe-"));
    const agentsFile = join(dir, "agents.json");
    writeFileSync(agentsFile, JSON.stringify([{ id: "ghost", displayName: "Ghost", command: "no-such-ghost-agent", args: ["acp"] }]));
    // As `parity record` does, a custom agent whose command cannot start is an input error naming the file.
    const missing = cli();
    await expect(probeCommand.run({ provider: "acp-ghost", "custom-agents": agentsFile, "timeout-ms": 10_000, json: false }, missing.ctx)).rejects.toThrowError(
      /agents\.json: entry "ghost": command "no-such-ghost-agent" is not on PATH/,
    );
    const gone = cli();
    const failed = await probeCommand.run({ command: "no-such-ghost-agent acp", "timeout-ms": 10_000, json: false }, gone.ctx);
    expect(failed).toBe(1);
    expect(gone.out.join("")).toMatch(/^no-such-ghost-agent acp: not reachable — Failed to launch ACP agent "no-such-ghost-agent"/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses both or neither of --provider/--command and an unknown provider (usage errors)", async () => {
    const { ctx } = cli();
    await expect(probeCommand.run({ "timeout-ms": 10 }, ctx)).rejects.toThrowError(/exactly one of --provider/);
    await expect(probeCommand.run({ provider: "acp-nope", "timeout-ms": 10 }, ctx)).rejects.toThrowError(
      /--provider acp-nope: unknown \(parity probe knows acp-opencode, .*acp-cursor, .*acp-hermes-agent, or acp-<slug> with --custom-agents\)/,
    );
    await expect(probeCommand.run({ provider: "echo", "timeout-ms": 10 }, ctx)).rejects.toThrowError(/--provider echo: the echo bridge family has no probe \(parity probe knows acp-opencode,/);
  });
});
