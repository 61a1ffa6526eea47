import path from "node:path";
import { findRelayTools } from "../../harness/replay/stand-ins/relay-channel.js";
import { describe, expect, it } from "vitest";
import { acpLaunchOptions, acpLaunchSeam as acpReplayAdapter } from "../../harness/families/acp/launch.js";
import { BRIDGE_FAMILIES as SHIPPED_REPLAY_ADAPTERS, type AgentCommand, type ReplayAdapter } from "../../harness/families/index.js";
import { UsageError } from "../../harness/errors.js";
import { readRecording } from "../../harness/recording/reader.js";
import { replayProfileFor } from "../../harness/replay/bridge/profiles.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { rewriteRuntimeLine } from "../../harness/replay/sandbox/rewrite.js";
import { repoRoot } from "../replay/helpers.js";

// Synthetic lines and a made-up bridge family ("tube") for these tests (no recorded content).
const rewrite = { childCommand: "/usr/bin/node", childArgs: ["/x/replay-child.js", "--connect", "/tmp/s.sock"], workspace: "/tmp/ws", path: undefined };
const tubeAdapter: ReplayAdapter = {
  id: "tube",
  providers: "tube-*",
  handles: (provider) => provider.startsWith("tube-"),
  modulePath: "dist/tube/bridge.js",
  launchMarker: '"tubeAgent"',
  pointAgentAt(params, agent) {
    const options = params.options as { tubeAgent?: string[] } | undefined;
    if (!options?.tubeAgent) return false;
    options.tubeAgent = [agent.command, ...agent.args];
    return true;
  },
};
const acpLine = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "thread/start",
  params: { cwd: "/rec", options: { providerOptions: { acpLaunchSpec: { displayName: "A", command: "agent-cli", args: [], env: {} } } } },
});
const tubeLine = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "thread/start", params: { options: { tubeAgent: ["tube-cli", "--serve"] } } });

describe("the agent-launch seam: the replay engine calls the adapters' hooks and knows no family's shape", () => {
  it("a registered family's hook re-points its own launch shape at the replay child", () => {
    const out = JSON.parse(rewriteRuntimeLine(tubeLine, rewrite, [tubeAdapter])) as { params: { options: { tubeAgent: string[] } } };
    expect(out.params.options.tubeAgent).toEqual(["/usr/bin/node", "/x/replay-child.js", "--connect", "/tmp/s.sock"]);
    // Without the tube adapter the same line carries nothing the replay rewrites: byte for byte.
    expect(rewriteRuntimeLine(tubeLine, rewrite)).toBe(tubeLine);
  });

  it("without the ACP adapter an ACP launch spec is left alone (only cwd changes); with the shipped ones it points at the child", () => {
    const without = JSON.parse(rewriteRuntimeLine(acpLine, rewrite, [tubeAdapter])) as { params: { cwd: string; options: { providerOptions: { acpLaunchSpec: { command: string } } } } };
    expect(without.params.cwd).toBe("/tmp/ws");
    expect(without.params.options.providerOptions.acpLaunchSpec.command).toBe("agent-cli");
    const shipped = JSON.parse(rewriteRuntimeLine(acpLine, rewrite)) as typeof without;
    expect(shipped.params.options.providerOptions.acpLaunchSpec).toEqual({ displayName: "A", command: "/usr/bin/node", args: rewrite.childArgs, env: {} });
  });

  it("a provider's profile comes from the first adapter that handles it; an unknown one is a usage error naming the replayable ids", () => {
    expect(replayProfileFor("acp-cursor")).toEqual({ modulePath: "dist/stack/acp/bridge.js", adapter: acpReplayAdapter });
    expect(replayProfileFor("tube-1", [tubeAdapter, ...SHIPPED_REPLAY_ADAPTERS]).modulePath).toBe("dist/tube/bridge.js");
    expect(() => replayProfileFor("tube-1")).toThrow(new UsageError('no replay profile for provider "tube-1" (replayable: acp-*, claude-code, codex, echo, pi)'));
    expect(() => replayProfileFor("echo", [tubeAdapter])).toThrow(new UsageError('no replay profile for provider "echo" (replayable: tube-*)'));
  });

  it("a live replay hands the adapter the agent's command line (the relay, or the Node replay child) and passes with it", async () => {
    const recording = await readRecording(path.join(repoRoot, "recordings", "acp-omp-fixture", "zero-work"));
    for (const agentProcess of ["relay", "node"] as const) {
      const asked: AgentCommand[] = [];
      const watching: ReplayAdapter = {
        ...acpReplayAdapter,
        pointAgentAt: (params, agent) => {
          asked.push({ command: agent.command, args: [...agent.args] });
          return acpReplayAdapter.pointAgentAt!(params, agent);
        },
      };
      const result = await replayRecording(recording, { adapters: [watching], agentProcess });
      expect(result.divergences).toEqual([]);
      expect(result.ok).toBe(true);
      expect(asked.length).toBeGreaterThan(0);
      const relay = agentProcess === "relay" ? findRelayTools() : undefined;
      for (const agent of asked) {
        if (relay) {
          expect(agent.command).toBe(relay.perl);
          expect(path.basename(agent.args[0]!)).toBe("relay.pl");
        } else {
          expect(agent.command).toBe(process.execPath);
          expect(path.basename(agent.args[0]!)).toMatch(/^replay-child/);
          expect(agent.args).toContain("--connect");
        }
      }
    }
  });
});

describe("the same seam starts a recording's agent: acpLaunchOptions (what record's providers send)", () => {
  it("keeps the base launch fields in place, then command, args and env/cwd when given, after the base bridge options", () => {
    const base = { launch: { displayName: "Cursor", command: "cursor-agent", args: ["acp"], env: { A: "1" } }, bridgeOptions: { permissionCli: { full: ["--yolo"] } } };
    // The fixture agent: command and args replaced in the shipped spec, its env kept.
    expect(JSON.stringify(acpLaunchOptions({ command: "node", args: ["fixture.js", "--script", "s.json"] }, base))).toBe(
      JSON.stringify({
        providerOptions: { permissionCli: { full: ["--yolo"] }, acpLaunchSpec: { displayName: "Cursor", command: "node", args: ["fixture.js", "--script", "s.json"], env: { A: "1" } } },
      }),
    );
    // A real agent from a profile: its own env and cwd.
    expect(JSON.stringify(acpLaunchOptions({ command: "/a/bin/agent", args: [], env: { HOME: "/h" }, cwd: "/w" }, { launch: { displayName: "Agent" } }))).toBe(
      JSON.stringify({ providerOptions: { acpLaunchSpec: { displayName: "Agent", command: "/a/bin/agent", args: [], env: { HOME: "/h" }, cwd: "/w" } } }),
    );
  });

  it("a launch spec the record side wrote is what the replay side re-points at the replay child", () => {
    const params = { cwd: "/rec", options: acpLaunchOptions({ command: "cursor-agent", args: ["acp"], env: { A: "1" }, cwd: "/agent" }, { launch: { displayName: "Cursor" } }) };
    expect(acpReplayAdapter.pointAgentAt!(params, { command: "/usr/bin/node", args: ["child.js"] })).toBe(true);
    expect(params.options).toEqual({
      providerOptions: { acpLaunchSpec: { displayName: "Cursor", command: "/usr/bin/node", args: ["child.js"], env: {} }, acpDialect: "cursor" },
    });
  });
});

describe("the launch's environment, which the record flow redacts", () => {
  it("is the env of the ACP launch spec the options carry, and nothing for options without one", () => {
    const options = acpLaunchOptions({ command: "agent", args: [], env: { API_KEY: "sk-secret-value" } });
    expect(acpReplayAdapter.launchEnv!(options)).toEqual({ API_KEY: "sk-secret-value" });
    expect(acpReplayAdapter.launchEnv!({ providerOptions: { other: true } })).toEqual({});
    expect(acpReplayAdapter.launchEnv!({})).toEqual({});
  });
});
