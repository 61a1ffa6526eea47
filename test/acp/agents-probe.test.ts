/**
 * `probeAcpAgent` and `parity probe` (spec 30 §3.2) against the fixture agent.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeCommand, splitCommandLine } from "../../harness/cli/probe.js";
import type { CliContext } from "../../harness/cli/context.js";
import { acpAgentProbeSchema, probeAcpAgent } from "../../stack/acp/probe.js";
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
    expect(acpAgentProbeSchema.parse(probe)).toEqual({ reachable: true, fork: true, protocolVersion: 1, loadSession: true, resume: false, image: false, authMethods: ["login"] });
  });

  it("reports the timeout, an early exit and a missing command as unreachable reasons", async () => {
    const silent = await probeAcpAgent({ command: process.execPath, args: [fixtureAgentMain(), ...script({ initialize: "never" })], cwd: process.cwd(), timeoutMs: 1500 });
    expect(silent).toEqual({ reachable: false, reason: "the agent did not answer initialize within 1500ms" });
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
    const missing = cli();
    const failed = await probeCommand.run({ provider: "acp-ghost", "custom-agents": agentsFile, "timeout-ms": 10_000, json: false }, missing.ctx);
    expect(failed).toBe(1);
    expect(missing.out.join("")).toMatch(/^no-such-ghost-agent acp: not reachable — Failed to launch ACP agent "no-such-ghost-agent"/);
  });

  it("refuses both or neither of --provider/--command and an unknown provider (usage errors)", async () => {
    const { ctx } = cli();
    await expect(probeCommand.run({ "timeout-ms": 10 }, ctx)).rejects.toThrowError(/exactly one of --provider/);
    await expect(probeCommand.run({ provider: "acp-nope", "timeout-ms": 10 }, ctx)).rejects.toThrowError(/--provider acp-nope: unknown ACP agent \(known: acp-cursor,/);
  });
});
