/**
 * `model/list` per-model reasoning probes (spec 20 §3.11, spec 30 §6.4): models from the agent's
 * `model` config option are each selected with `session/set_config_option` on the throwaway
 * session, and the answer's `thought_level` option gives their efforts; a failed probe is logged
 * and skipped (the model keeps the agent-managed default). `reasoningProbePriorityModelIds`
 * (spec 30 §2.1) run first, in their order; the models keep their list order.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { readFileSync } from "node:fs";
import { REASONING_PROBE_BUDGET_MS, reasoningProbeOrder, readThoughtLevels } from "../../stack/acp/models/model-list.js";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const thoughtLevelOption = { id: "effort", name: "Thinking", category: "thought_level", type: "select", currentValue: "high", options: [{ value: "low" }, { value: "high" }, { value: "turbo" }] };
const withThoughtLevel: NonNullable<FixtureScriptInput["sessionResult"]> = {
  configOptions: [
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: "m-a",
      options: [
        { value: "m-a", name: "Model A" },
        { value: "m-b", name: "Model B" },
      ],
    },
    thoughtLevelOption,
  ],
};

describe("readThoughtLevels", () => {
  it("keeps the values that are bb levels, in ladder order, with the current one", () => {
    expect(readThoughtLevels(withThoughtLevel)).toEqual({ efforts: ["low", "high"], current: "high" });
    expect(readThoughtLevels({ configOptions: [{ id: "thought_level", options: [{ value: "max" }, { value: "none" }], currentValue: "odd" }] })).toEqual({ efforts: ["none", "max"], current: null });
    expect(readThoughtLevels({ configOptions: [{ id: "thought_level", options: [{ value: "turbo" }] }] })).toBeNull();
    expect(readThoughtLevels({})).toBeNull();
  });
});

describe("model/list reasoning probes", () => {
  it("selects each model on the throwaway session and reports the agent's thought levels", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: withThoughtLevel });
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(response.result.models.map((m: any) => [m.id, m.supportedReasoningEfforts.map((e: any) => e.reasoningEffort), m.defaultReasoningEffort, m.isDefault])).toEqual([
      ["m-a", ["low", "high"], "high", true],
      ["m-b", ["low", "high"], "high", false],
    ]);
    const probes = agentReceived(log).filter((m) => m.method === "session/set_config_option");
    expect(probes.map((m) => [m.params.configId, m.params.value, m.params.sessionId])).toEqual([
      ["model", "m-a", "fixture-session-1"],
      ["model", "m-b", "fixture-session-1"],
    ]);
  });

  it("logs and skips a failed probe: the models stay listed with the agent-managed default", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { sessionResult: withThoughtLevel, refuseOptions: ["model"] });
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(response.result.models.map((m: any) => [m.id, m.supportedReasoningEfforts.map((e: any) => e.reasoningEffort), m.defaultReasoningEffort])).toEqual([
      ["m-a", ["medium"], "medium"],
      ["m-b", ["medium"], "medium"],
    ]);
    const logged = bridge.logs.filter((line) => line.includes("reasoning probe"));
    expect(logged).toEqual([
      "model/list: reasoning probe for m-a failed, skipped: option model cannot change now",
      "model/list: reasoning probe for m-b failed, skipped: option model cannot change now",
    ]);
  });

  it("does not probe models advertised through models.availableModels", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: { models: { currentModelId: "m-a", availableModels: [{ modelId: "m-a" }] } } });
    await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(agentReceived(log).map((m) => m.method)).toEqual(["initialize", "session/new"]);
  });
});

describe("reasoningProbeOrder", () => {
  it("puts priority ids first in their order (matching an id or its parameterized base), then the rest in list order", () => {
    const ids = ["m-a", "zeta-2[effort=high,fast=true]", "m-c", "m-d", "zeta-1[]"];
    expect(reasoningProbeOrder(ids, ["m-d", "zeta-2", "absent", "m-d"])).toEqual([3, 1, 0, 2, 4]);
    expect(reasoningProbeOrder(ids, [])).toEqual([0, 1, 2, 3, 4]);
    expect(reasoningProbeOrder([], ["m-a"])).toEqual([]);
  });
});

describe("model/list reasoning probe priority", () => {
  it("with a budget that runs out after two probes, exactly the two priority models were probed; the order of the models is kept", async () => {
    const models = ["m-a", "m-b", "zeta-2[effort=high]", "m-d", "m-e"];
    const sessionResult: NonNullable<FixtureScriptInput["sessionResult"]> = {
      configOptions: [{ id: "model", name: "Model", category: "model", type: "select", currentValue: "m-a", options: models.map((value) => ({ value, name: value })) }, thoughtLevelOption],
    };
    let log = "";
    // The bridge clock advances by more than half the budget with every probe the agent receives,
    // so the budget is spent after exactly two probes.
    const probesReceived = (): number =>
      log
        ? readFileSync(log, "utf8")
            .split("\n")
            .filter((line) => line.includes('"session/set_config_option"')).length
        : 0;
    bridge = startInProcessBridge({ now: () => probesReceived() * (REASONING_PROBE_BUDGET_MS / 2) });
    const launch = fixtureLaunchSpec(bridge.dir, { sessionResult });
    log = launch.log;
    const response = await bridge.request("model/list", {
      providerOptions: { acpLaunchSpec: launch.spec, reasoningProbePriorityModelIds: ["m-d", "absent", "zeta-2"] },
      cwd: bridge.dir,
    });
    const probed = agentReceived(log).filter((m) => m.method === "session/set_config_option");
    expect(probed.map((m) => m.params.value)).toEqual(["m-d", "zeta-2[effort=high]"]);
    expect(response.result.models.map((m: any) => [m.id, m.supportedReasoningEfforts.map((e: any) => e.reasoningEffort)])).toEqual([
      ["m-a", ["medium"]],
      ["m-b", ["medium"]],
      ["zeta-2[effort=high]", ["low", "high"]],
      ["m-d", ["low", "high"]],
      ["m-e", ["medium"]],
    ]);
    expect(response.result.models.map((m: any) => m.isDefault)).toEqual([true, false, false, false, false]);
  });

  it("ignores a malformed priority list and probes in list order", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: withThoughtLevel });
    await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec, reasoningProbePriorityModelIds: "m-b" }, cwd: bridge.dir });
    expect(
      agentReceived(log)
        .filter((m) => m.method === "session/set_config_option")
        .map((m) => m.params.value),
    ).toEqual(["m-a", "m-b"]);
  });
});
