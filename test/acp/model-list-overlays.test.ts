/**
 * `model/list` reasoning overlays (spec 20 §3.11 "Overlays"): `reasoningCli` puts its levels on
 * every model (default `defaultLevel`, else medium, else the first), `nativeReasoning` only on the
 * models whose efforts are the single agent-managed `medium`. Pure cases, then through the bridge
 * with the shipped Grok and Hermes launch specs pointed at the fixture agent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { findShippedAcpAgent } from "../../stack/acp/agents/agents.js";
import { overlayReasoningEfforts, type ReasoningEffortsView } from "../../stack/acp/model-data/native-reasoning.js";
import { fixtureLaunchSpec, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const managed = (name: string): ReasoningEffortsView => ({
  displayName: name,
  supportedReasoningEfforts: [{ reasoningEffort: "medium", description: "Reasoning effort is managed by the connected ACP agent." }],
  defaultReasoningEffort: "medium",
});
const probed: ReasoningEffortsView = {
  displayName: "Probed",
  supportedReasoningEfforts: [
    { reasoningEffort: "low", description: "Probed (low)" },
    { reasoningEffort: "high", description: "Probed (high)" },
  ],
  defaultReasoningEffort: "high",
};
const efforts = (m: { supportedReasoningEfforts: Array<{ reasoningEffort: string }>; defaultReasoningEffort: string }) => [
  m.supportedReasoningEfforts.map((e) => e.reasoningEffort),
  m.defaultReasoningEffort,
];

describe("overlayReasoningEfforts (pure)", () => {
  it("reasoningCli replaces every model's efforts, ladder order, keeping a level's own description", () => {
    const reasoningCli = { flag: "--effort", supportedLevels: ["high" as const, "low" as const, "medium" as const], defaultLevel: "high" as const };
    const out = overlayReasoningEfforts({ models: [managed("A"), probed], selectedOnlyModels: [managed("B")] }, { reasoningCli });
    expect(out.models.map(efforts)).toEqual([
      [["low", "medium", "high"], "high"],
      [["low", "medium", "high"], "high"],
    ]);
    expect(out.selectedOnlyModels.map(efforts)).toEqual([[["low", "medium", "high"], "high"]]);
    expect(out.models[1]!.supportedReasoningEfforts).toEqual([
      { reasoningEffort: "low", description: "Probed (low)" },
      { reasoningEffort: "medium", description: "Probed (medium)" },
      { reasoningEffort: "high", description: "Probed (high)" },
    ]);
    expect(out.models[0]!.supportedReasoningEfforts[1]).toEqual({ reasoningEffort: "medium", description: "Reasoning effort is managed by the connected ACP agent." });
  });

  it("defaults to defaultLevel, else medium when supported, else the first level", () => {
    const one = (supportedLevels: Array<"low" | "medium" | "max">, defaultLevel?: "low" | "max") =>
      efforts(overlayReasoningEfforts({ models: [managed("A")], selectedOnlyModels: [] }, { reasoningCli: { flag: "-r", supportedLevels, ...(defaultLevel ? { defaultLevel } : {}) } }).models[0]!);
    expect(one(["low", "medium", "max"], "max")).toEqual([["low", "medium", "max"], "max"]);
    expect(one(["low", "medium", "max"])).toEqual([["low", "medium", "max"], "medium"]);
    expect(one(["max", "low"])).toEqual([["low", "max"], "low"]);
    // A defaultLevel the list does not hold is not offered as the default.
    expect(one(["low", "max"], undefined)).toEqual([["low", "max"], "low"]);
  });

  it("nativeReasoning overlays only the single agent-managed medium; nothing declared or no levels changes nothing", () => {
    const nativeReasoning = { configId: "reasoning_effort", supportedLevels: ["none" as const, "medium" as const, "max" as const] };
    const mediumOnlyButDefaultHigh: ReasoningEffortsView = { ...managed("C"), defaultReasoningEffort: "high" };
    const out = overlayReasoningEfforts({ models: [managed("A"), probed, mediumOnlyButDefaultHigh], selectedOnlyModels: [] }, { nativeReasoning });
    expect(out.models.map(efforts)).toEqual([
      [["none", "medium", "max"], "medium"],
      [["low", "high"], "high"],
      [["medium"], "high"],
    ]);
    const list = { models: [managed("A")], selectedOnlyModels: [] };
    expect(overlayReasoningEfforts(list, {})).toBe(list);
    expect(overlayReasoningEfforts(list, { nativeReasoning: { configId: "x", supportedLevels: [] } })).toBe(list);
  });
});

describe("model/list overlays through the bridge", () => {
  it("the shipped Grok reasoningCli puts low/medium/high (default high) on every CLI family and on the synthetic fallback", async () => {
    bridge = startInProcessBridge();
    const grok = findShippedAcpAgent("acp-grok")!.launchSpec;
    const listed = async (name: string, stdout: string[]) => {
      const launch = fixtureLaunchSpec(bridge!.dir, { modelList: { stdout } }, name);
      const args = launch.spec.args as string[];
      const spec = { ...launch.spec, modelCli: { ...grok.modelCli!, listArgs: [...args, "--list-models"] }, reasoningCli: grok.reasoningCli, permissionCli: grok.permissionCli };
      const response = await bridge!.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge!.dir });
      expect(response.error).toBeUndefined();
      return response.result;
    };
    const result = await listed("grok", ["grok-4.5 - Grok 4.5", "grok-composer-2.5-fast - Composer Fast", "grok-9-low - Grok 9 Low", "grok-9-high - Grok 9 High"]);
    expect(result.models.map((m: any) => m.id)).toEqual(["grok-4.5", "grok-composer-2.5-fast"]);
    expect([...result.models, ...result.selectedOnlyModels].map(efforts)).toEqual([
      [["low", "medium", "high"], "high"],
      [["low", "medium", "high"], "high"],
      [["low", "medium", "high"], "high"],
    ]);
    const empty = await listed("grok-empty", []);
    expect(empty.models.map((m: any) => [m.id, ...efforts(m)])).toEqual([["acp-default", ["low", "medium", "high"], "high"]]);
  });

  it("the shipped Hermes nativeReasoning overlays discovered agent-managed models, not probed ones", async () => {
    bridge = startInProcessBridge();
    const nativeReasoning = findShippedAcpAgent("acp-hermes-agent")!.launchSpec.nativeReasoning;
    const ladder = [["none", "low", "medium", "high", "xhigh", "max"], "medium"];
    const discover = async (name: string, sessionResult: Record<string, unknown>) => {
      const launch = fixtureLaunchSpec(bridge!.dir, { sessionResult: sessionResult as never }, name);
      const spec = { ...launch.spec, nativeReasoning };
      const response = await bridge!.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge!.dir });
      expect(response.error).toBeUndefined();
      return response.result.models.map((m: any) => [m.id, ...efforts(m)]);
    };
    const available = {
      models: {
        currentModelId: "h-1",
        availableModels: [
          { modelId: "h-1", name: "H 1" },
          { modelId: "h-2", name: "H 2" },
        ],
      },
    };
    expect(await discover("hermes-a", available)).toEqual([
      ["h-1", ...ladder],
      ["h-2", ...ladder],
    ]);
    expect(await discover("hermes-none", {})).toEqual([["acp-default", ...ladder]]);
    // Models whose probe read a thought_level option keep the probed levels.
    const withThoughtLevel = {
      configOptions: [
        { id: "model", category: "model", type: "select", currentValue: "h-1", options: [{ value: "h-1", name: "H 1" }] },
        { id: "thought_level", category: "thought_level", type: "select", currentValue: "high", options: [{ value: "low" }, { value: "high" }] },
      ],
    };
    expect(await discover("hermes-probed", withThoughtLevel)).toEqual([["h-1", ["low", "high"], "high"]]);
  });
});
