/**
 * The processes `model/list` starts (spec 20 §3.11, spec 30 §6.5): the discovery agent answers
 * nothing the agent asks (-32601) and is gone when the request answers; the env the discovery
 * agent and the CLI list command actually receive is the bridge's inherited env minus
 * `ELECTRON_RUN_AS_NODE` / `BB_PROVIDER_BRIDGE_RECORD_DIR`, plus the spec env.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
  // A regression that leaves an agent alive must not leak it past the test.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  vi.unstubAllEnvs();
});

/** A bridge `spawn` option that keeps every child the bridge starts. */
const keepingSpawn = (command: string, args: string[], options: SpawnOptions): ChildProcess => {
  const child = spawn(command, args, options);
  children.push(child);
  return child;
};

const isGone = (child: ChildProcess): boolean => {
  if (child.exitCode === null && child.signalCode === null) return false;
  try {
    process.kill(child.pid!, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
};

const list = (b: InProcessBridge, spec: Record<string, unknown>) => b.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: b.dir });

describe("the discovery agent (spec 20 §3.11 step 2)", () => {
  it("answers every agent→client request -32601 and the agent has exited when model/list answers", async () => {
    bridge = startInProcessBridge({ spawn: keepingSpawn });
    const script: FixtureScriptInput = {
      beforeNewAnswer: [
        { method: "fs/read_text_file", params: { sessionId: "x", path: "/etc/hostname" } },
        { method: "session/request_permission", params: { sessionId: "x", options: [{ optionId: "allow", kind: "allow_once", name: "Allow" }] } },
      ],
      sessionResult: { models: { currentModelId: "m-a", availableModels: [{ modelId: "m-a" }] } },
    };
    const { spec, log } = fixtureLaunchSpec(bridge.dir, script);
    const response = await list(bridge, spec);
    expect(response.result.models.map((m: any) => m.id)).toEqual(["m-a"]);
    const answers = agentReceived(log).filter((m) => m.method === undefined);
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: 0, error: { code: -32601, message: 'Unsupported ACP client method "fs/read_text_file"' } },
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: 'Unsupported ACP client method "session/request_permission"' } },
    ]);
    expect(children).toHaveLength(1);
    expect(isGone(children[0]!)).toBe(true);
  });

  it("is killed when discovery fails too", async () => {
    bridge = startInProcessBridge({ spawn: keepingSpawn });
    const { spec } = fixtureLaunchSpec(bridge.dir, { newSessionError: "not today" });
    const response = await list(bridge, spec);
    expect(response.error.message).toContain("not today");
    expect(children).toHaveLength(1);
    expect(isGone(children[0]!)).toBe(true);
  });
});

describe("env of the discovery agent and the list command (spec 30 §6.5)", () => {
  const names = ["MG_INHERITED", "MG_OVERRIDDEN", "MG_SPEC", "ELECTRON_RUN_AS_NODE", "BB_PROVIDER_BRIDGE_RECORD_DIR"];
  const expected = {
    MG_INHERITED: "from-bridge",
    MG_OVERRIDDEN: "from-spec",
    MG_SPEC: "from-spec",
    ELECTRON_RUN_AS_NODE: "(unset)",
    BB_PROVIDER_BRIDGE_RECORD_DIR: "(unset)",
  };
  const stubBridgeEnv = (dir: string): void => {
    // The in-process bridge inherits `process.env` as its own env (bridge-harness.ts).
    vi.stubEnv("MG_INHERITED", "from-bridge");
    vi.stubEnv("MG_OVERRIDDEN", "from-bridge");
    vi.stubEnv("ELECTRON_RUN_AS_NODE", "1");
    vi.stubEnv("BB_PROVIDER_BRIDGE_RECORD_DIR", dir);
  };
  const withSpecEnv = (spec: Record<string, unknown>) => ({ ...spec, env: { ...(spec.env as Record<string, string>), MG_SPEC: "from-spec", MG_OVERRIDDEN: "from-spec" } });

  it("the discovery agent gets the inherited env minus the bridge's runtime keys, plus the spec env", async () => {
    bridge = startInProcessBridge();
    stubBridgeEnv(bridge.dir);
    const { spec } = fixtureLaunchSpec(bridge.dir, { echoEnvAsModels: names });
    const response = await list(bridge, withSpecEnv(spec));
    expect(Object.fromEntries(response.result.models.map((m: any) => [m.id, m.displayName]))).toEqual(expected);
  });

  it("the list command gets the same env", async () => {
    bridge = startInProcessBridge();
    stubBridgeEnv(bridge.dir);
    const { spec } = fixtureLaunchSpec(bridge.dir, { modelList: { echoEnv: names } });
    const cli = { ...withSpecEnv(spec), modelCli: { listArgs: [...(spec.args as string[]), "--list-models"], primaryModels: [] } };
    const response = await list(bridge, cli);
    const listed = [...response.result.models, ...response.result.selectedOnlyModels];
    expect(Object.fromEntries(listed.map((m: any) => [m.id, m.displayName]))).toEqual(expected);
  });
});
