/**
 * Cursor's parameterized model picker (spec 30 §1.1, §6.3, §6.4; the catalog's internals are our
 * design, cursor-model-catalog.ts): the `base[key=value,…]` id grammar, the CLI catalog re-keyed
 * to parameterized bases (on invented models, and on the real acp-cursor recordings read by path),
 * the client capability `_meta`, and native selection composing the offered id's parameters from
 * the reasoning level and the service tier; and, without the picker, the service tier through the
 * agent's `fast` select option.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { shippedAcpAgents } from "../../stack/acp/agents/agents.js";
import {
  buildCursorParameterizedModelCatalog,
  composeParameterizedModelId,
  cursorBaseIdFor,
  parameterizedBase,
  parseParameterizedModelId,
  withParameterizedPickerMeta,
} from "../../stack/acp/model-data/cursor-model-catalog.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { parseModelListOutput } from "../../stack/acp/models/model-list.js";
import { composeParameterizedSelection } from "../../stack/acp/models/model-selection.js";
import { agentReceived, fixtureLaunchSpec, recordingSpawn, startInProcessBridge, threadStartParams, type InProcessBridge } from "./bridge-harness.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

// Invented models shaped like a Cursor CLI listing and a picker-enabled session/new.
const CLI_LINES = [
  "auto - Auto (current, default)",
  "cursor-nova-3-low - Cursor Nova 3 Low",
  "cursor-nova-3-medium - Cursor Nova 3",
  "cursor-nova-3-high - Cursor Nova 3 High",
  "vega-7-thinking-medium - Vega 7 Thinking",
  "vega-7-medium - Vega 7",
  "vega-7-thinking-high - Vega 7 Thinking High",
  "acme-4.2-ultra-high-thinking - Acme Ultra 4.2 Thinking High",
  "acme-4.2-ultra-medium - Acme Ultra 4.2",
  "orbit-5 - Orbit 5",
  "nova-3-medium - Nova 3 Again",
  "lone-9-minimal - Lone 9 Minimal",
];
const OFFERED = [
  { modelId: "default[]", name: "Auto" },
  { modelId: "nova-3[effort=high,fast=false]", name: "nova-3" },
  { modelId: "vega-7[thinking=true,context=100k,effort=high]", name: "vega-7" },
  { modelId: "acme-ultra-4-2[thinking=true]", name: "acme-ultra-4-2" },
  { modelId: "orbit-5[reasoning=medium,fast=true]", name: "orbit-5" },
];
const PRIMARY = ["default", "nova-3", "vega-7", "missing-base"];

describe("parameterized model ids", () => {
  it("splits base and ordered parameters, and composes them back", () => {
    const id = "nova-3[effort=high,context=100k,fast=true]";
    expect(parseParameterizedModelId(id)).toEqual({
      base: "nova-3",
      params: [
        ["effort", "high"],
        ["context", "100k"],
        ["fast", "true"],
      ],
      bracketed: true,
    });
    expect(composeParameterizedModelId(parseParameterizedModelId(id))).toBe(id);
    expect(parseParameterizedModelId("default[]")).toEqual({ base: "default", params: [], bracketed: true });
    expect(composeParameterizedModelId(parseParameterizedModelId("default[]"))).toBe("default[]");
    expect(parseParameterizedModelId("plain-1")).toEqual({ base: "plain-1", params: [], bracketed: false });
    expect(parseParameterizedModelId("[x=1]")).toEqual({ base: "[x=1]", params: [], bracketed: false });
    expect(parameterizedBase("orbit-5[reasoning=medium]")).toBe("orbit-5");
  });

  it("adds the picker's client capability _meta only when enabled, keeping an existing _meta", () => {
    const caps = { fs: { readTextFile: true, writeTextFile: true }, terminal: false };
    expect(withParameterizedPickerMeta(caps, false)).toBe(caps);
    expect(withParameterizedPickerMeta(caps, true)).toEqual({ ...caps, _meta: { parameterizedModelPicker: true } });
    expect(withParameterizedPickerMeta({ _meta: { other: 1 } }, true)).toEqual({ _meta: { other: 1, parameterizedModelPicker: true } });
  });
});

describe("buildCursorParameterizedModelCatalog (our design)", () => {
  it("maps CLI family keys to bases: cursor- prefix, auto, and a token-multiset match against offered bases", () => {
    const bases = ["default", "nova-3", "acme-ultra-4-2", "twin-a-1", "twin-1-a"];
    expect(cursorBaseIdFor("cursor-nova-3", bases)).toBe("nova-3");
    expect(cursorBaseIdFor("auto", bases)).toBe("default");
    expect(cursorBaseIdFor("acme-4.2-ultra", bases)).toBe("acme-ultra-4-2");
    // Two bases with the same tokens: ambiguous, the key keeps its spelling.
    expect(cursorBaseIdFor("a-twin-1", bases)).toBe("a-twin-1");
    expect(cursorBaseIdFor("acme-4.2-ultra", undefined)).toBe("acme-4.2-ultra");
    expect(cursorBaseIdFor("lone-9-minimal", bases)).toBe("lone-9-minimal");
  });

  it("re-keys families to offered bases, keeps the CLI's efforts, drops a later family on a taken base, splits by the bridge-level primaries", () => {
    const catalog = buildCursorParameterizedModelCatalog({ models: parseModelListOutput(CLI_LINES.join("\n")), primaryModels: PRIMARY, offeredModelIds: OFFERED.map((m) => m.modelId) });
    expect(catalog.models.map((m) => [m.id, m.model, m.displayName, m.isDefault])).toEqual([
      ["default", "default", "Auto (current, default)", true],
      ["nova-3", "nova-3", "Nova 3", false],
      ["vega-7", "vega-7", "Vega 7", false],
    ]);
    expect(catalog.selectedOnlyModels.map((m) => m.id)).toEqual(["acme-ultra-4-2", "orbit-5", "lone-9-minimal"]);
    const nova = catalog.models[1]!;
    expect(nova.supportedReasoningEfforts.map((e) => e.reasoningEffort)).toEqual(["low", "medium", "high"]);
    expect(nova.defaultReasoningEffort).toBe("medium");
    const vega = catalog.models[2]!;
    expect(vega.supportedReasoningEfforts.map((e) => e.reasoningEffort)).toEqual(["none", "medium", "high"]);
    const acme = catalog.selectedOnlyModels[0]!;
    // Its non-thinking variant collapses to `none` beside the thinking one (model-catalog.ts).
    expect([acme.displayName, acme.supportedReasoningEfforts.map((e) => e.reasoningEffort)]).toEqual(["Acme Ultra 4.2", ["none", "high"]]);
  });

  it("without offered ids keeps keys that only a token match would map", () => {
    const catalog = buildCursorParameterizedModelCatalog({ models: parseModelListOutput(CLI_LINES.join("\n")), primaryModels: PRIMARY });
    expect([...catalog.models, ...catalog.selectedOnlyModels].map((m) => m.id)).toEqual(["default", "nova-3", "vega-7", "acme-4.2-ultra", "orbit-5", "lone-9-minimal"]);
  });

  it("on the real acp-cursor recordings: the older bridge's CLI families land on the bases the agent offers, and the shipped primaries lead in order", () => {
    const recordings = path.resolve(REPO_ROOT, "../shared/recordings/acp-cursor");
    const lines = (file: string): any[] =>
      readFileSync(path.join(recordings, file), "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(JSON.parse(l).line));
    const listed = lines("model-list/bridge→runtime.ndjson").find((m) => m.result?.models)!.result;
    const families: Array<{ id: string; displayName: string }> = [...listed.models, ...listed.selectedOnlyModels];
    const offered: string[] = lines("turn-tools/provider→bridge.ndjson")
      .find((m) => m.result?.models?.availableModels)!
      .result.models.availableModels.map((m: { modelId: string }) => m.modelId);
    const cursor = shippedAcpAgents().find((a) => a.id === "acp-cursor")!;
    const primary = cursor.bridgeOptions.primaryModels!;
    // The older catalog's family ids stand in for the CLI's lines (one line per family).
    const catalog = buildCursorParameterizedModelCatalog({ models: families.map((f) => ({ id: f.id, name: f.displayName })), primaryModels: primary, offeredModelIds: offered });
    expect(catalog.models.map((m) => m.id)).toEqual(primary);
    const all = [...catalog.models, ...catalog.selectedOnlyModels];
    expect(all).toHaveLength(families.length);
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    const bases = new Set(offered.map(parameterizedBase));
    // All but one family (a variant the agent offers no base for) land on an offered base.
    expect(all.filter((m) => !bases.has(m.id))).toHaveLength(1);
    expect(all.filter((m) => m.displayName.startsWith("Cursor "))).toEqual([]);
  });
});

describe("composeParameterizedSelection (our rules)", () => {
  const offered = OFFERED.map((m) => m.modelId);
  it("sets effort/reasoning to the level, thinking from none, fast from the tier, keeping other parameters", () => {
    expect(composeParameterizedSelection(offered, "nova-3", { reasoningLevel: "low", serviceTier: "fast" })).toBe("nova-3[effort=low,fast=true]");
    expect(composeParameterizedSelection(offered, "nova-3", { serviceTier: "default" })).toBe("nova-3[effort=high,fast=false]");
    expect(composeParameterizedSelection(offered, "vega-7", { reasoningLevel: "none" })).toBe("vega-7[thinking=false,context=100k,effort=high]");
    expect(composeParameterizedSelection(offered, "vega-7", { reasoningLevel: "xhigh", serviceTier: "fast" })).toBe("vega-7[thinking=true,context=100k,effort=xhigh]");
    expect(composeParameterizedSelection(offered, "orbit-5", { reasoningLevel: "none" })).toBe("orbit-5[reasoning=none,fast=true]");
    expect(composeParameterizedSelection(offered, "acme-ultra-4-2", { reasoningLevel: "high" })).toBe("acme-ultra-4-2[thinking=true]");
  });

  it("lets parameters written in the selected id win, keeps an untouched offer as is, and finds nothing for an unknown base", () => {
    expect(composeParameterizedSelection(offered, "vega-7[context=400k,extra=1]", { reasoningLevel: "low" })).toBe("vega-7[thinking=true,context=400k,effort=low,extra=1]");
    expect(composeParameterizedSelection(offered, "default", {})).toBe("default[]");
    expect(composeParameterizedSelection(offered, "nova-3", {})).toBe("nova-3[effort=high,fast=false]");
    expect(composeParameterizedSelection(offered, "missing-base", { reasoningLevel: "low" })).toBeUndefined();
  });
});

const pickerSession: NonNullable<FixtureScriptInput["sessionResult"]> = {
  models: { currentModelId: "default[]", availableModels: OFFERED },
  configOptions: [
    {
      id: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: "agent",
      options: [
        { value: "agent", name: "Agent" },
        { value: "ask", name: "Ask" },
      ],
    },
  ],
};

describe("model/list with the parameterized picker", () => {
  function cursorSpec(dir: string, name = "cursor"): { spec: Record<string, unknown>; log: string } {
    const { spec, log } = fixtureLaunchSpec(dir, { sessionResult: pickerSession, modelList: { stdout: CLI_LINES } }, name);
    return { spec: { ...spec, modelCli: { listArgs: [...(spec.args as string[]), "--list-models"], primaryModels: ["auto"] } }, log };
  }

  it("the cursor dialect lists the parameterized catalog keyed on the bases its own options session offered", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = cursorSpec(bridge.dir);
    const response = await bridge.request("model/list", {
      providerOptions: { acpLaunchSpec: spec, acpDialect: "cursor", parameterizedModelPicker: true, primaryModels: PRIMARY },
      cwd: bridge.dir,
    });
    expect(response.result.models.map((m: any) => m.id)).toEqual(["default", "nova-3", "vega-7"]);
    expect(response.result.selectedOnlyModels.map((m: any) => m.id)).toEqual(["acme-ultra-4-2", "orbit-5", "lone-9-minimal"]);
    expect(response.result.models[0].sessionOptions.map((o: any) => o.id)).toEqual(["mode"]);
    const init = agentReceived(log).find((m) => m.method === "initialize")!;
    expect(init.params.clientCapabilities._meta).toEqual({ parameterizedModelPicker: true });
  });

  it("uses modelCli.primaryModels when the request names no bridge-level primaries", async () => {
    bridge = startInProcessBridge();
    const { spec } = cursorSpec(bridge.dir);
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec, acpDialect: "cursor", parameterizedModelPicker: true }, cwd: bridge.dir });
    // `auto` names no base, so no family is primary and all are listed as models.
    expect(response.result.models.map((m: any) => m.id)).toEqual(["default", "nova-3", "vega-7", "acme-ultra-4-2", "orbit-5", "lone-9-minimal"]);
  });

  it("another dialect, or the cursor dialect without the picker, keeps the CLI's family ids", async () => {
    bridge = startInProcessBridge();
    for (const [name, extra] of [
      ["generic", { parameterizedModelPicker: true }],
      ["nopicker", { acpDialect: "cursor" }],
    ] as const) {
      const { spec, log } = cursorSpec(bridge.dir, name);
      const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec, ...extra }, cwd: bridge.dir });
      expect(response.result.models.map((m: any) => m.id)).toEqual(["auto"]);
      expect(response.result.selectedOnlyModels.map((m: any) => m.id)).toContain("cursor-nova-3-medium");
      const init = agentReceived(log).find((m) => m.method === "initialize")!;
      expect(init.params.clientCapabilities._meta).toEqual(name === "generic" ? { parameterizedModelPicker: true } : undefined);
    }
  });
});

describe("native selection with the parameterized picker (spec 30 §6.4)", () => {
  const start = async (thread: string, options: Record<string, unknown>) => {
    const launch = fixtureLaunchSpec(bridge!.dir, { sessionResult: pickerSession }, thread);
    const spec = launch.spec;
    const response = await bridge!.request("thread/start", threadStartParams(thread, spec, bridge!.dir, { providerOptions: { acpLaunchSpec: spec, parameterizedModelPicker: true }, ...options }));
    expect(response.error).toBeUndefined();
    return agentReceived(launch.log);
  };

  it("sends session/set_model with the offered id's parameters set from the reasoning level and the service tier", async () => {
    bridge = startInProcessBridge();
    const received = await start("thr_pk1", { model: "nova-3", reasoningLevel: "low", serviceTier: "fast" });
    expect(received.filter((m) => m.method === "session/set_model").map((m) => m.params)).toEqual([{ sessionId: "fixture-session-1", modelId: "nova-3[effort=low,fast=true]" }]);
    expect(received.filter((m) => m.method === "session/set_config_option")).toEqual([]);
    expect(received[0]!.params.clientCapabilities).toEqual({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: false,
      auth: { terminal: true },
      elicitation: { form: {} },
      _meta: { parameterizedModelPicker: true },
    });
  });

  it("turns thinking off for reasoning none and keeps the other parameters", async () => {
    bridge = startInProcessBridge();
    const received = await start("thr_pk2", { model: "vega-7", reasoningLevel: "none" });
    expect(received.filter((m) => m.method === "session/set_model").map((m) => m.params.modelId)).toEqual(["vega-7[thinking=false,context=100k,effort=high]"]);
  });

  it("selects natively even when the spec has a selectFlag, and pins nothing on the command line", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const launch = fixtureLaunchSpec(bridge.dir, { sessionResult: pickerSession }, "thr_pk3");
    const spec = { ...launch.spec, modelCli: { listArgs: ["--list"], selectFlag: "--model", primaryModels: [] } };
    const response = await bridge.request(
      "thread/start",
      threadStartParams("thr_pk3", spec, bridge.dir, { providerOptions: { acpLaunchSpec: spec, parameterizedModelPicker: true }, model: "orbit-5", reasoningLevel: "high" }),
    );
    expect(response.error).toBeUndefined();
    expect(launches).toEqual([launch.spec.args]);
    const received = agentReceived(launch.log);
    expect(received.filter((m) => m.method === "session/set_model").map((m) => m.params.modelId)).toEqual(["orbit-5[reasoning=high,fast=true]"]);
  });

  it("sends nothing for the current model (Auto), an unknown base, or acp-default", async () => {
    bridge = startInProcessBridge();
    for (const [thread, model] of [
      ["thr_pk4", "default"],
      ["thr_pk5", "missing-base"],
      ["thr_pk6", "acp-default"],
    ] as const) {
      const received = await start(thread, { model, reasoningLevel: "high", serviceTier: "fast" });
      expect(received.map((m) => m.method)).toEqual(["initialize", "session/new"]);
    }
  });
});

describe("service tier without the picker (spec 30 §6.4)", () => {
  const withFast: NonNullable<FixtureScriptInput["sessionResult"]> = {
    configOptions: [
      {
        id: "model",
        category: "model",
        type: "select",
        currentValue: "m-a",
        options: [
          { value: "m-a", name: "A" },
          { value: "m-b", name: "B" },
        ],
      },
      {
        id: "fast",
        name: "Fast",
        type: "select",
        currentValue: "false",
        options: [
          { value: "false", name: "Off" },
          { value: "true", name: "On" },
        ],
      },
    ],
  };

  it("sets the fast select option after the model, only when a tier is given and it differs", async () => {
    bridge = startInProcessBridge();
    const cases = [
      [
        "thr_t1",
        { model: "m-b", serviceTier: "fast" },
        [
          ["model", "m-b"],
          ["fast", "true"],
        ],
      ],
      ["thr_t2", { serviceTier: "default" }, []],
      ["thr_t3", { model: "m-a" }, []],
    ] as const;
    for (const [thread, options, expected] of cases) {
      const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: withFast }, thread);
      const response = await bridge.request("thread/start", threadStartParams(thread, spec, bridge.dir, options));
      expect(response.error).toBeUndefined();
      const calls = agentReceived(log).filter((m) => m.method === "session/set_config_option");
      expect(calls.map((m) => [m.params.configId, m.params.value])).toEqual(expected);
    }
  });

  it("ignores an agent that refuses the tier", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: withFast, refuseOptions: ["fast"] }, "thr_t4");
    const response = await bridge.request("thread/start", threadStartParams("thr_t4", spec, bridge.dir, { serviceTier: "fast" }));
    expect(response.result.providerThreadId).toBe("fixture-session-1");
    expect(
      agentReceived(log)
        .filter((m) => m.method === "session/set_config_option")
        .map((m) => m.params.value),
    ).toEqual(["true"]);
  });
});
