/**
 * Native reasoning selection at session setup (spec 20 §2.3 step 7; spec 30 §2.1 Hermes'
 * `nativeReasoning`, Grok's `reasoningCli`): the `thought_level` option or the one `nativeReasoning`
 * synthesizes, the level → value candidates, `levelValues`, nothing when already current or when
 * the command line carries the level, refusals ignored and logged. Asserted on exactly what the
 * fixture agent received, and on the launch argv the bridge spawned.
 */
import { afterEach, describe, expect, it } from "vitest";
import { findShippedAcpAgent } from "../../stack/acp/agents/agents.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { findNativeReasoningOption, reasoningValueFor, REASONING_VALUE_CANDIDATES, type NativeReasoningOption } from "../../stack/acp/model-data/native-reasoning.js";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, threadStartParams, type InProcessBridge, recordingSpawn } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const MODEL_OPTION = {
  id: "model",
  name: "Model",
  category: "model",
  type: "select",
  currentValue: "m-a",
  options: [
    { value: "m-a", name: "A" },
    { value: "m-b", name: "B" },
  ],
};
// ACP select options may be grouped; the bridge flattens the groups.
const MINIMAL_GROUP = { group: "fast", name: "Fast", options: [{ value: "minimal", name: "Minimal" }] };
const PLAIN_CHOICES = [
  { value: "medium", name: "Medium" },
  { value: "high", name: "High" },
  { value: "xhigh", name: "Extra high" },
];
const EFFORT_OPTION = {
  id: "effort",
  name: "Effort",
  category: "thought_level",
  type: "select",
  currentValue: "medium",
  options: [MINIMAL_GROUP, ...PLAIN_CHOICES],
};
const withEffort: NonNullable<FixtureScriptInput["sessionResult"]> = { configOptions: [MODEL_OPTION, EFFORT_OPTION] };

async function start(thread: string, script: FixtureScriptInput, options: Record<string, unknown>, specExtra: Record<string, unknown> = {}) {
  const launch = fixtureLaunchSpec(bridge!.dir, script, thread);
  const spec = { ...launch.spec, ...specExtra };
  const response = await bridge!.request("thread/start", threadStartParams(thread, spec, bridge!.dir, { providerOptions: { acpLaunchSpec: spec }, ...options }));
  expect(response.error).toBeUndefined();
  return agentReceived(launch.log);
}

const configCalls = (received: ReturnType<typeof agentReceived>) => received.filter((m) => m.method === "session/set_config_option").map((m) => m.params);

describe("level → value (spec 20 §2.3 step 7)", () => {
  const declared = (values: string[]): NativeReasoningOption => ({ configId: "effort", values, synthesized: false });

  it("takes the first candidate the option accepts", () => {
    expect(REASONING_VALUE_CANDIDATES.low).toEqual(["low", "minimal"]);
    expect(reasoningValueFor("low", declared(["minimal", "high"]))).toBe("minimal");
    expect(reasoningValueFor("low", declared(["low", "minimal"]))).toBe("low");
    expect(reasoningValueFor("ultracode", declared(["medium", "xhigh"]))).toBe("xhigh");
    expect(reasoningValueFor("max", declared(["high", "xhigh"]))).toBe("xhigh");
    expect(reasoningValueFor("ultra", declared(["max", "xhigh"]))).toBe("max");
    expect(reasoningValueFor("none", declared(["none", "low"]))).toBe("none");
  });

  it("gives nothing for a level the option cannot express or one off the ladder", () => {
    expect(reasoningValueFor("none", declared(["low", "high"]))).toBeUndefined();
    expect(reasoningValueFor("ultra", declared(["xhigh"]))).toBeUndefined();
    expect(reasoningValueFor("turbo", declared(["turbo"]))).toBeUndefined();
  });

  it("synthesized options match the spec's levels and map them through levelValues, which also win outright", () => {
    const synthesized: NativeReasoningOption = {
      configId: "reasoning_effort",
      values: [],
      supportedLevels: ["low", "medium", "xhigh"],
      levelValues: { xhigh: "x-high", none: "off" },
      synthesized: true,
    };
    expect(reasoningValueFor("max", synthesized)).toBe("x-high");
    expect(reasoningValueFor("none", synthesized)).toBe("off");
    expect(reasoningValueFor("medium", synthesized)).toBe("medium");
    expect(reasoningValueFor("high", synthesized)).toBeUndefined();
  });

  it("finds the thought_level option by category, then by id, else synthesizes from nativeReasoning", () => {
    const nr = { configId: "reasoning_effort", supportedLevels: ["low" as const, "high" as const] };
    const byCategory = findNativeReasoningOption(
      [
        { id: "thought_level", category: undefined, values: ["a"] },
        { id: "effort", category: "thought_level", values: ["b"] },
      ],
      nr,
    );
    expect(byCategory).toMatchObject({ configId: "effort", values: ["b"], synthesized: false });
    expect(findNativeReasoningOption([{ id: "thought_level", category: undefined, values: ["a"] }], undefined)).toMatchObject({ configId: "thought_level", synthesized: false });
    expect(findNativeReasoningOption([{ id: "reasoning_effort", category: undefined, values: ["low"] }], nr)).toMatchObject({
      configId: "reasoning_effort",
      supportedLevels: ["low", "high"],
      synthesized: true,
    });
    expect(findNativeReasoningOption([], undefined)).toBeNull();
  });
});

describe("native reasoning at session setup (through the bridge)", () => {
  it("sets the thought_level option after the model, with the first candidate value the option offers", async () => {
    bridge = startInProcessBridge();
    const received = await start("thr_nr1", { sessionResult: withEffort }, { model: "m-b", reasoningLevel: "low" });
    expect(received.map((m) => m.method)).toEqual(["initialize", "session/new", "session/set_config_option", "session/set_config_option"]);
    expect(configCalls(received)).toEqual([
      { sessionId: "fixture-session-1", configId: "model", value: "m-b" },
      { sessionId: "fixture-session-1", configId: "effort", value: "minimal" },
    ]);
  });

  it("sends nothing when the option's current value already is the level's value, or no level is asked", async () => {
    bridge = startInProcessBridge();
    for (const [thread, options] of [
      ["thr_nr2", { reasoningLevel: "medium" }],
      ["thr_nr3", {}],
    ] as const) {
      const received = await start(thread, { sessionResult: withEffort }, options);
      expect(received.map((m) => m.method)).toEqual(["initialize", "session/new"]);
    }
  });

  it("finds an option by id thought_level when no option has the category", async () => {
    bridge = startInProcessBridge();
    const byId = { configOptions: [{ id: "thought_level", name: "Thinking", type: "select", currentValue: "low", options: [{ value: "low" }, { value: "xhigh" }] }] };
    const received = await start("thr_nr4", { sessionResult: byId }, { reasoningLevel: "max" });
    expect(configCalls(received)).toEqual([{ sessionId: "fixture-session-1", configId: "thought_level", value: "xhigh" }]);
  });

  it("synthesizes Hermes' reasoning_effort option from the shipped nativeReasoning (levels none…max)", async () => {
    bridge = startInProcessBridge();
    const nativeReasoning = findShippedAcpAgent("acp-hermes-agent")!.launchSpec.nativeReasoning;
    expect(nativeReasoning).toEqual({ configId: "reasoning_effort", supportedLevels: ["none", "low", "medium", "high", "xhigh", "max"], defaultLevel: "medium" });
    const cases = [
      ["thr_nr5", "ultra", "max"],
      ["thr_nr6", "ultracode", "xhigh"],
      ["thr_nr7", "none", "none"],
    ] as const;
    for (const [thread, level, value] of cases) {
      // The agent declares no such option: the spec alone says it exists.
      const received = await start(thread, {}, { reasoningLevel: level }, { nativeReasoning });
      expect(configCalls(received)).toEqual([{ sessionId: "fixture-session-1", configId: "reasoning_effort", value }]);
    }
  });

  it("levelValues override the candidates; a declared option of that id gives the current value", async () => {
    bridge = startInProcessBridge();
    const nativeReasoning = { configId: "depth", supportedLevels: ["low", "high"], levelValues: { high: "deep" } };
    const declared = { configOptions: [{ id: "depth", name: "Depth", type: "select", currentValue: "deep", options: [{ value: "low" }, { value: "deep" }] }] };
    expect(configCalls(await start("thr_nr8", {}, { reasoningLevel: "high" }, { nativeReasoning }))).toEqual([{ sessionId: "fixture-session-1", configId: "depth", value: "deep" }]);
    expect(configCalls(await start("thr_nr9", { sessionResult: declared }, { reasoningLevel: "high" }, { nativeReasoning }))).toEqual([]);
    expect(configCalls(await start("thr_nr10", { sessionResult: declared }, { reasoningLevel: "low" }, { nativeReasoning }))).toEqual([
      { sessionId: "fixture-session-1", configId: "depth", value: "low" },
    ]);
  });

  it("a declared thought_level option wins over nativeReasoning", async () => {
    bridge = startInProcessBridge();
    const received = await start("thr_nr11", { sessionResult: withEffort }, { reasoningLevel: "high" }, { nativeReasoning: { configId: "reasoning_effort", supportedLevels: ["high"] } });
    expect(configCalls(received)).toEqual([{ sessionId: "fixture-session-1", configId: "effort", value: "high" }]);
  });

  it("ignores a refusal (logged) and a level the option cannot express (logged, nothing sent)", async () => {
    bridge = startInProcessBridge();
    const refused = await start("thr_nr12", { sessionResult: withEffort, refuseOptions: ["effort"] }, { reasoningLevel: "high" });
    expect(configCalls(refused)).toEqual([{ sessionId: "fixture-session-1", configId: "effort", value: "high" }]);
    expect(bridge.logs.some((l) => l.includes('did not set effort to "high"') && l.includes("option effort cannot change now"))).toBe(true);
    const inexpressible = await start("thr_nr13", { sessionResult: withEffort }, { reasoningLevel: "none" });
    expect(configCalls(inexpressible)).toEqual([]);
    expect(bridge.logs.some((l) => l.includes('reasoning level "none" has no value on the agent\'s effort option'))).toBe(true);
    const identity = bridge.out.find((m) => m.method === "thread/identity" && m.params.threadId === "thr_nr12");
    expect(identity?.params.providerThreadId).toBe("fixture-session-1");
  });

  it("sends nothing natively when reasoningCli carries the level on the command line", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const reasoningCli = { flag: "--reasoning-effort", supportedLevels: ["low", "medium", "high"], levelValues: { max: "high" } };
    const launch = fixtureLaunchSpec(bridge.dir, { sessionResult: withEffort }, "thr_nr14");
    const spec = { ...launch.spec, reasoningCli, nativeReasoning: { configId: "effort", supportedLevels: ["high"] } };
    const response = await bridge.request("thread/start", threadStartParams("thr_nr14", spec, bridge.dir, { providerOptions: { acpLaunchSpec: spec }, reasoningLevel: "max" }));
    expect(response.error).toBeUndefined();
    expect(configCalls(agentReceived(launch.log))).toEqual([]);
    expect(launches).toEqual([["--reasoning-effort", "high", ...(launch.spec.args as string[])]]);
  });
});
