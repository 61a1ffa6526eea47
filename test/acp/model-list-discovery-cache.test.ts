/**
 * The 60 s cache of ACP-native model discovery (spec 20 §3.11 step 2: "cached 60 s per agent
 * command"), on the bridge's injected clock, per bridge, per launch spec; a failed discovery is
 * not cached. Agents are counted by the argv the bridge launches (`recordingSpawn`).
 */
import { afterEach, describe, expect, it } from "vitest";
import { DISCOVERY_CACHE_TTL_MS } from "../../stack/acp/model-data/model-discovery-cache.js";
import { agentReceived, fixtureLaunchSpec, advertisingModels, listModelsOf, recordingSpawn, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe("model/list discovery cache (spec 20 §3.11 step 2)", () => {
  it("serves a second model/list within 60 s from the first discovery, and discovers again once 60 s have passed", async () => {
    let now = 5_000;
    const launches: string[][] = [];
    bridge = startInProcessBridge({ now: () => now, spawn: recordingSpawn(launches) });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, advertisingModels);
    const first = await listModelsOf(bridge, spec);
    expect(first.result.models.map((m: any) => m.id)).toEqual(["m-a", "m-b"]);
    expect(launches).toHaveLength(1);

    now += DISCOVERY_CACHE_TTL_MS - 1;
    const second = await listModelsOf(bridge, spec);
    expect(second.result).toEqual(first.result);
    expect(launches).toHaveLength(1);
    expect(agentReceived(log).filter((m) => m.method === "initialize")).toHaveLength(1);

    now += 1;
    const third = await listModelsOf(bridge, spec);
    expect(third.result).toEqual(first.result);
    expect(launches).toHaveLength(2);
    expect(agentReceived(log).filter((m) => m.method === "session/new")).toHaveLength(2);
    expect(DISCOVERY_CACHE_TTL_MS).toBe(60_000);
  });

  it("does not cache a failed discovery: the next model/list asks the agent again", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const { spec } = fixtureLaunchSpec(bridge.dir, { newSessionError: "the agent is not ready" }, "flaky");
    const failed = await listModelsOf(bridge, spec);
    expect(failed.error).toMatchObject({ code: -32000 });
    expect(failed.error.message).toContain("the agent is not ready");
    // The same script file now makes the agent answer; the clock has not moved.
    fixtureLaunchSpec(bridge.dir, advertisingModels, "flaky");
    const answered = await listModelsOf(bridge, spec);
    expect(answered.result.models.map((m: any) => m.id)).toEqual(["m-a", "m-b"]);
    expect(launches).toHaveLength(2);
  });

  it("keys the cache on the launch spec: another env, or another bridge, discovers on its own", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const { spec } = fixtureLaunchSpec(bridge.dir, advertisingModels);
    await listModelsOf(bridge, spec);
    await listModelsOf(bridge, { ...spec, env: { ...(spec.env as Record<string, string>), EXTRA_FLAG: "1" } });
    expect(launches).toHaveLength(2);
    await listModelsOf(bridge, spec);
    expect(launches).toHaveLength(2);

    const other = startInProcessBridge({ spawn: recordingSpawn(launches) });
    try {
      await listModelsOf(other, spec);
      expect(launches).toHaveLength(3);
    } finally {
      await other.close();
    }
  });
});
