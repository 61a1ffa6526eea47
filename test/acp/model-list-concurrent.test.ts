/**
 * Concurrent `model/list` requests for the same agent share one ACP-native discovery (spec 20
 * §3.11 step 2: discovery is per agent, cached 60 s): the second request, sent while the first
 * one's throwaway agent is running, waits on that discovery instead of launching its own. A shared
 * failure reaches both callers and is not remembered: the next request discovers again.
 * Agents are counted by the argv the bridge launches (`recordingSpawn`); the second request is
 * sent once the first agent was spawned, so it is causally inside the first discovery.
 */
import type { SpawnOptions } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { agentReceived, fixtureLaunchSpec, advertisingModels, listModelsOf, recordingSpawn, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/** `recordingSpawn` plus a promise that settles once the first agent has been spawned. */
function gatedSpawn(launches: string[][]) {
  const record = recordingSpawn(launches);
  let firstSpawned!: () => void;
  const spawned = new Promise<void>((resolve) => (firstSpawned = resolve));
  const spawn = (command: string, args: string[], options: SpawnOptions) => {
    const child = record(command, args, options);
    firstSpawned();
    return child;
  };
  return { spawn, spawned };
}

describe("concurrent model/list share one discovery (spec 20 §3.11 step 2)", () => {
  it("two concurrent model/list for the same agent launch one agent and get the same models", async () => {
    const launches: string[][] = [];
    const gate = gatedSpawn(launches);
    bridge = startInProcessBridge({ spawn: gate.spawn });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, advertisingModels);
    const first = listModelsOf(bridge, spec);
    await gate.spawned;
    const second = listModelsOf(bridge, spec);
    const [a, b] = await Promise.all([first, second]);
    expect(a.error).toBeUndefined();
    expect(a.result.models.map((m: any) => m.id)).toEqual(["m-a", "m-b"]);
    expect(b.result).toEqual(a.result);
    expect(launches).toHaveLength(1);
    expect(agentReceived(log).filter((m) => m.method === "session/new")).toHaveLength(1);
  });

  it("shares a failing discovery with both callers, does not cache it, and the next model/list asks the agent again", async () => {
    const launches: string[][] = [];
    const gate = gatedSpawn(launches);
    bridge = startInProcessBridge({ spawn: gate.spawn });
    const { spec } = fixtureLaunchSpec(bridge.dir, { newSessionError: "the agent is not ready" }, "flaky");
    const first = listModelsOf(bridge, spec);
    await gate.spawned;
    const second = listModelsOf(bridge, spec);
    const [a, b] = await Promise.all([first, second]);
    expect(a.error).toMatchObject({ code: -32000 });
    expect(a.error.message).toContain("the agent is not ready");
    expect(b.error).toEqual(a.error);
    expect(launches).toHaveLength(1);

    // The same script file now makes the agent answer; the clock has not moved.
    fixtureLaunchSpec(bridge.dir, advertisingModels, "flaky");
    const retried = await listModelsOf(bridge, spec);
    expect(retried.result.models.map((m: any) => m.id)).toEqual(["m-a", "m-b"]);
    expect(launches).toHaveLength(2);
  });

  it("does not share across launch specs: concurrent requests for two agents launch two", async () => {
    const launches: string[][] = [];
    const gate = gatedSpawn(launches);
    bridge = startInProcessBridge({ spawn: gate.spawn });
    const { spec } = fixtureLaunchSpec(bridge.dir, advertisingModels);
    const first = listModelsOf(bridge, spec);
    await gate.spawned;
    const other = listModelsOf(bridge, { ...spec, env: { ...(spec.env as Record<string, string>), EXTRA_FLAG: "1" } });
    const [a, b] = await Promise.all([first, other]);
    expect(b.result).toEqual(a.result);
    expect(launches).toHaveLength(2);
  });
});
