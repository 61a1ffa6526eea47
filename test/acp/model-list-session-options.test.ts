/**
 * `model/list` declared session options (spec 30 §6.4): discovery's throwaway `session/new` yields
 * the agent's user-selectable options, attached as `sessionOptions` to every model (the synthetic
 * entry too), cached 60 s on the bridge's injected clock for the CLI-listed catalog of the same agent
 * (the CLI path's own throwaway session: model-list-cli-session-options.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { readDeclaredSessionOptions, SESSION_OPTIONS_TTL_MS } from "../../stack/acp/model-data/model-session-options.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const offered: NonNullable<FixtureScriptInput["sessionResult"]> = {
  configOptions: [
    { id: "model", name: "Model", category: "model", type: "select", currentValue: "m-a", options: [{ value: "m-a", name: "Model A" }] },
    { id: "fast", name: "Fast mode", type: "boolean", currentValue: false },
    { id: "effort", name: "Effort", type: "select", currentValue: "low", options: [{ group: "g", name: "Group", options: [{ value: "low", name: "Low" }, { value: "high" }] }] },
  ],
  modes: {
    currentModeId: "ask",
    availableModes: [
      { id: "ask", name: "Ask" },
      { id: "code", name: "Code" },
    ],
  },
};

const expectedOptions = [
  { id: "fast", name: "Fast mode", type: "boolean", currentValue: false },
  {
    id: "effort",
    name: "Effort",
    type: "select",
    currentValue: "low",
    options: [
      { value: "low", name: "Low" },
      { value: "high", name: "high" },
    ],
  },
  {
    id: "mode",
    name: "Mode",
    type: "select",
    currentValue: "ask",
    options: [
      { value: "ask", name: "Ask" },
      { value: "code", name: "Code" },
    ],
  },
];

describe("readDeclaredSessionOptions", () => {
  it("keeps config options but the model picker, flattens grouped choices, and adds modes as `mode`", () => {
    expect(readDeclaredSessionOptions(offered)).toEqual(expectedOptions);
  });

  it("does not add modes when a config option already owns the id `mode`, and skips malformed entries", () => {
    const result = { configOptions: [null, { name: "no id" }, { id: "mode", type: "select", options: [{ value: "x" }] }], modes: { availableModes: [{ id: "ask" }] } };
    expect(readDeclaredSessionOptions(result)).toEqual([{ id: "mode", name: "mode", type: "select", currentValue: null, options: [{ value: "x", name: "x" }] }]);
    expect(readDeclaredSessionOptions(null)).toEqual([]);
  });
});

describe("model/list sessionOptions", () => {
  it("attaches discovery's declared options to every advertised model", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      sessionResult: {
        ...offered,
        models: {
          currentModelId: "m-a",
          availableModels: [
            { modelId: "m-a", name: "Model A" },
            { modelId: "m-b", name: "Model B" },
          ],
        },
      },
    });
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    // The model config option is preferred over `models` as the model source.
    expect(response.result.models.map((m: any) => m.id)).toEqual(["m-a"]);
    for (const model of response.result.models) expect(model.sessionOptions).toEqual(expectedOptions);
    // One throwaway session serves both the models and the options.
    expect(agentReceived(log).filter((m) => m.method === "session/new")).toHaveLength(1);
  });

  it("attaches them to the synthetic entry when the agent advertises no models", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { sessionResult: { modes: offered.modes! } });
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(response.result.models).toHaveLength(1);
    expect(response.result.models[0]).toMatchObject({ id: "acp-default", sessionOptions: [expectedOptions[2]] });
  });

  it("reuses discovery's read for the same agent's CLI catalog for 60 s on the injected clock, then reads again", async () => {
    let now = 1_000;
    bridge = startInProcessBridge({ now: () => now });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: offered, modelList: { stdout: ["cli-1 - Cli One"] } });
    await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    const withCli = { ...spec, modelCli: { listArgs: [...(spec.args as string[]), "--list-models"], primaryModels: [] } };
    now += SESSION_OPTIONS_TTL_MS - 1;
    const fresh = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: withCli }, cwd: bridge.dir });
    expect(fresh.result.models.map((m: any) => [m.id, m.sessionOptions])).toEqual([["cli-1", expectedOptions]]);
    expect(agentReceived(log).filter((m) => m.method === "session/new")).toHaveLength(1);
    now += 1;
    // Stale: the CLI path opens a throwaway session of its own (spec 30 §6.4).
    const stale = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: withCli }, cwd: bridge.dir });
    expect(stale.result.models.map((m: any) => [m.id, m.sessionOptions])).toEqual([["cli-1", expectedOptions]]);
    expect(agentReceived(log).filter((m) => m.method === "session/new")).toHaveLength(2);
  });
});
