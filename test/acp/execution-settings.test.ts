/**
 * A session's model, reasoning level and service tier per turn and at launch (spec 30 §6.2
 * per-turn reconcile; spec 20 §2.1 CLI model pin and variant resolution; spec 30 §6.4 picker):
 * in-place re-selection of a changed or drifted native setting on `turn/start` and before a steer's
 * re-prompt, an explicit `sessionOptions` value winning, the picker's composed id per turn with no
 * `--model` on the command line and no rebuild, and the pinned id resolved through the CLI catalog
 * (cached by `model/list`, else listed at launch) with the missing-variant warning. Asserted on
 * exactly what the fixture agent received and on the argv the bridge spawned.
 */
import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { groupModelFamilies, resolveModelVariant } from "../../stack/acp/model-data/model-catalog.js";
import { parseModelListOutput } from "../../stack/acp/models/model-list.js";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, type WireMessage, recordingSpawn } from "./bridge-harness.js";

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
const EFFORT_OPTION = { id: "effort", name: "Effort", category: "thought_level", type: "select", currentValue: "medium", options: [{ value: "low" }, { value: "medium" }, { value: "high" }] };
const FAST_OPTION = { id: "fast", name: "Fast", type: "select", currentValue: "false", options: [{ value: "false" }, { value: "true" }] };
const offering: NonNullable<FixtureScriptInput["sessionResult"]> = { configOptions: [MODEL_OPTION, EFFORT_OPTION, FAST_OPTION] };

/** Runs one turn to its boundary; returns what the agent received during it. */
async function runTurn(thread: string, log: string, text: string, crid: string, options: Record<string, unknown> = {}): Promise<WireMessage[]> {
  const before = agentReceived(log).length;
  const from = bridge!.out.length;
  const response = await bridge!.request("turn/start", turnStartParams(thread, text, crid, options));
  expect(response.error).toBeUndefined();
  await bridge!.waitFor((m) => isBoundary(m) && m.params.threadId === thread, from);
  return agentReceived(log).slice(before);
}

const configCalls = (received: WireMessage[]) => received.filter((m) => m.method === "session/set_config_option").map((m) => [m.params.configId, m.params.value]);

describe("per-turn native re-selection in place (spec 30 §6.2)", () => {
  it("re-selects a changed model, level and tier before the prompt, then nothing while they hold", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: offering });
    await bridge.request("thread/start", threadStartParams("thr_pt1", spec, bridge.dir, { model: "m-a", reasoningLevel: "medium" }));
    expect(agentReceived(log).map((m) => m.method)).toEqual(["initialize", "session/new"]);

    const turn1 = await runTurn("thr_pt1", log, "one", "creq_pt1aaaaaaa", { model: "m-b", reasoningLevel: "high", serviceTier: "fast" });
    expect(turn1.map((m) => m.method)).toEqual(["session/set_config_option", "session/set_config_option", "session/set_config_option", "session/prompt"]);
    expect(turn1.filter((m) => m.method === "session/set_config_option").map((m) => m.params)).toEqual([
      { sessionId: "fixture-session-1", configId: "model", value: "m-b" },
      { sessionId: "fixture-session-1", configId: "effort", value: "high" },
      { sessionId: "fixture-session-1", configId: "fast", value: "true" },
    ]);
    // A turn that restates or omits the settings keeps them: nothing is sent again.
    expect((await runTurn("thr_pt1", log, "two", "creq_pt1bbbbbbb", {})).map((m) => m.method)).toEqual(["session/prompt"]);
    expect((await runTurn("thr_pt1", log, "three", "creq_pt1ccccccc", { model: "m-b", reasoningLevel: "high", serviceTier: "fast" })).map((m) => m.method)).toEqual(["session/prompt"]);
    // Only the level changes: only the level is sent.
    expect(configCalls(await runTurn("thr_pt1", log, "four", "creq_pt1ddddddd", { reasoningLevel: "low" }))).toEqual([["effort", "low"]]);
    expect(agentReceived(log).filter((m) => m.method === "initialize")).toHaveLength(1);
    expect(bridge.out.some((m) => m.method === "session/replaced")).toBe(false);
  });

  it("re-selects what the agent drifted from (config_option_update), without the turn restating it", async () => {
    bridge = startInProcessBridge();
    const drifted = { sessionUpdate: "config_option_update", configOptions: [{ ...MODEL_OPTION, currentValue: "m-a" }, { ...EFFORT_OPTION, currentValue: "low" }, FAST_OPTION] };
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: offering, prompts: [{ when: "drift", steps: [{ update: drifted }, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_pt2", spec, bridge.dir, { model: "m-b", reasoningLevel: "high" }));
    expect(configCalls(agentReceived(log))).toEqual([
      ["model", "m-b"],
      ["effort", "high"],
    ]);
    expect((await runTurn("thr_pt2", log, "drift", "creq_pt2aaaaaaa")).map((m) => m.method)).toEqual(["session/prompt"]);
    expect(configCalls(await runTurn("thr_pt2", log, "again", "creq_pt2bbbbbbb"))).toEqual([
      ["model", "m-b"],
      ["effort", "high"],
    ]);
    expect(configCalls(await runTurn("thr_pt2", log, "steady", "creq_pt2ccccccc"))).toEqual([]);
  });

  it("leaves a config id the turn sets through sessionOptions to it", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: offering });
    await bridge.request("thread/start", threadStartParams("thr_pt3", spec, bridge.dir, { reasoningLevel: "medium" }));
    expect(configCalls(await runTurn("thr_pt3", log, "one", "creq_pt3aaaaaaa", { reasoningLevel: "high", serviceTier: "default", sessionOptions: { effort: "low", fast: "true" } }))).toEqual([
      ["effort", "low"],
      ["fast", "true"],
    ]);
    expect(configCalls(await runTurn("thr_pt3", log, "two", "creq_pt3bbbbbbb", { sessionOptions: { effort: "low", fast: "true" } }))).toEqual([]);
    // Without the explicit option, the session's level and tier apply again.
    expect(configCalls(await runTurn("thr_pt3", log, "three", "creq_pt3ccccccc"))).toEqual([
      ["effort", "high"],
      ["fast", "false"],
    ]);
  });

  it("a refused model on a turn is a warning and the turn still runs", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: offering, refuseOptions: ["model"] });
    await bridge.request("thread/start", threadStartParams("thr_pt4", spec, bridge.dir));
    const received = await runTurn("thr_pt4", log, "one", "creq_pt4aaaaaaa", { model: "m-b" });
    expect(received.map((m) => m.method)).toEqual(["session/set_config_option", "session/prompt"]);
    const warning = bridge.deltas("thr_pt4").find((d) => d.kind === "provider.warning");
    expect(warning?.summary).toBe('The agent did not apply the model "m-b"');
    expect(warning?.details).toContain("option model cannot change now");
  });

  it("reconciles a steer's settings before its re-prompt", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      sessionResult: offering,
      prompts: [{ when: "long task", steps: [{ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "working" } } }, { waitForCancel: true }] }],
    });
    await bridge.request("thread/start", threadStartParams("thr_pt5", spec, bridge.dir));
    const from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_pt5", "long task", "creq_pt5aaaaaaa"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.text === "working"));
    await bridge.request("turn/steer", turnStartParams("thr_pt5", "think harder", "creq_pt5bbbbbbb", { reasoningLevel: "high" }));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_pt5", from);
    const received = agentReceived(log);
    expect(received.map((m) => m.method)).toEqual(["initialize", "session/new", "session/prompt", "session/cancel", "session/set_config_option", "session/prompt"]);
    expect(configCalls(received)).toEqual([["effort", "high"]]);
  });
});

// Invented picker-enabled offer: one entry per base with its current parameters.
const pickerSession = {
  models: {
    currentModelId: "default[]",
    availableModels: [
      { modelId: "default[]", name: "Auto" },
      { modelId: "nova-3[effort=medium,fast=false]", name: "nova-3" },
      { modelId: "orbit-5[reasoning=medium,fast=false]", name: "orbit-5" },
    ],
  },
};

describe("parameterized picker per turn and on the command line (spec 30 §6.4)", () => {
  it("launches without --model even with a selectFlag, re-selects the composed id per turn and never rebuilds for it", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const launch = fixtureLaunchSpec(bridge.dir, { sessionResult: pickerSession });
    const spec = { ...launch.spec, modelCli: { listArgs: ["--list"], selectFlag: "--model", primaryModels: [] } };
    const providerOptions = { acpLaunchSpec: spec, parameterizedModelPicker: true };
    await bridge.request("thread/start", threadStartParams("thr_pk", spec, bridge.dir, { providerOptions, model: "nova-3", reasoningLevel: "low" }));
    expect(launches).toEqual([launch.spec.args]);
    const setModel = (received: WireMessage[]) => received.filter((m) => m.method === "session/set_model").map((m) => m.params.modelId);
    expect(setModel(agentReceived(launch.log))).toEqual(["nova-3[effort=low,fast=false]"]);
    expect(setModel(await runTurn("thr_pk", launch.log, "a", "creq_pkaaaaaaaa", { reasoningLevel: "high" }))).toEqual(["nova-3[effort=high,fast=false]"]);
    expect(setModel(await runTurn("thr_pk", launch.log, "b", "creq_pkbbbbbbbb", { serviceTier: "fast" }))).toEqual(["nova-3[effort=high,fast=true]"]);
    expect(setModel(await runTurn("thr_pk", launch.log, "c", "creq_pkcccccccc", { model: "orbit-5", providerOptions }))).toEqual(["orbit-5[reasoning=high,fast=true]"]);
    expect(setModel(await runTurn("thr_pk", launch.log, "d", "creq_pkdddddddd", { model: "orbit-5" }))).toEqual([]);
    expect(launches).toHaveLength(1);
    expect(bridge.out.some((m) => m.method === "session/replaced")).toBe(false);
  });
});

// Invented CLI listing: one family with low/medium/high (high also fast), one with a single level.
const LIST_LINES = ["zeta-2-low - Zeta 2 Low", "zeta-2-medium - Zeta 2", "zeta-2-high - Zeta 2 High", "zeta-2-high-fast - Zeta 2 High Fast", "solo-1 - Solo 1"];

describe("resolveModelVariant (spec 20 §3.11 variant resolution)", () => {
  const families = groupModelFamilies(
    parseModelListOutput(
      [
        "zeta-2-low - Zeta 2 Low",
        "zeta-2-medium - Zeta 2",
        "zeta-2-high - Zeta 2 High",
        "zeta-2-high-fast - Zeta 2 High Fast",
        "vega-7 - Vega 7",
        "vega-7-thinking-high - Vega 7 Thinking High",
        "fleet-1-fast - Fleet",
      ].join("\n"),
    ),
  );

  it("family or raw id + level (+ fast) → fast id when asked and present, else normal ?? fast", () => {
    expect(resolveModelVariant(families, "zeta-2-medium", { level: "high", fast: false })).toEqual({ id: "zeta-2-high" });
    expect(resolveModelVariant(families, "zeta-2-low", { level: "high", fast: true })).toEqual({ id: "zeta-2-high-fast" });
    expect(resolveModelVariant(families, "zeta-2-high-fast", { fast: false })).toEqual({ id: "zeta-2-high" });
    expect(resolveModelVariant(families, "zeta-2-medium", { fast: true })).toEqual({ id: "zeta-2-medium" });
    // A fast-only family: its fast id is the normal one too.
    expect(resolveModelVariant(families, "fleet-1-fast", { level: "medium", fast: false })).toEqual({ id: "fleet-1-fast" });
  });

  it("a thinking family's plain variant is its none level; a missing level names the family id", () => {
    expect(resolveModelVariant(families, "vega-7-thinking-high", { level: "none", fast: false })).toEqual({ id: "vega-7" });
    expect(resolveModelVariant(families, "vega-7", { level: "low", fast: false })).toEqual({ id: "vega-7-thinking-high", missingLevel: "low" });
    expect(resolveModelVariant(families, "unknown-1", { level: "low", fast: false })).toBeUndefined();
  });
});

describe("CLI model pin and variant resolution (spec 20 §2.1)", () => {
  /** A launch spec whose list command is the fixture agent's `--list-models` with `lines`. */
  function pinnedSpec(name: string, lines: string[], extra: Record<string, unknown> = {}) {
    const launch = fixtureLaunchSpec(bridge!.dir, { modelList: { stdout: lines } }, name);
    const args = launch.spec.args as string[];
    const spec = { ...launch.spec, modelCli: { listArgs: [...args, "--list-models"], selectFlag: "--model", primaryModels: [] }, ...extra };
    return { spec, args, log: launch.log, scriptFile: args[2]! };
  }

  async function startPinned(launches: string[][], thread: string, spec: Record<string, unknown>, options: Record<string, unknown>): Promise<string[]> {
    const before = launches.length;
    const response = await bridge!.request("thread/start", threadStartParams(thread, spec, bridge!.dir, options));
    expect(response.error).toBeUndefined();
    expect(launches).toHaveLength(before + 1);
    return launches[before]!;
  }

  it("resolves family + level (+ fast) to the variant id, running the list command when nothing is cached", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const { spec, args } = pinnedSpec("pin1", LIST_LINES);
    expect(await startPinned(launches, "thr_v1", spec, { model: "zeta-2-medium", reasoningLevel: "high" })).toEqual(["--model", "zeta-2-high", ...args]);
    expect(await startPinned(launches, "thr_v2", spec, { model: "zeta-2-medium", reasoningLevel: "high", serviceTier: "fast" })).toEqual(["--model", "zeta-2-high-fast", ...args]);
    // Tier fast alone keeps the pinned level; with no fast id there, the normal id.
    expect(await startPinned(launches, "thr_v3", spec, { model: "zeta-2-low", serviceTier: "fast" })).toEqual(["--model", "zeta-2-low", ...args]);
    expect(await startPinned(launches, "thr_v4", spec, { model: "zeta-2-high", serviceTier: "fast" })).toEqual(["--model", "zeta-2-high-fast", ...args]);
    // No level and no fast tier: the id as given; acp-default pins nothing.
    expect(await startPinned(launches, "thr_v5", spec, { model: "zeta-2-high-fast" })).toEqual(["--model", "zeta-2-high-fast", ...args]);
    expect(await startPinned(launches, "thr_v6", spec, { model: "acp-default", reasoningLevel: "high" })).toEqual(args);
    const warned = bridge.out
      .filter((m) => m.method === "thread/delta")
      .flatMap((m) => m.params.deltas)
      .filter((d: any) => d.kind === "provider.warning");
    expect(warned).toEqual([]);
  });

  it("launches the family id and warns when the family has no variant at the level", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const { spec, args } = pinnedSpec("pin2", LIST_LINES);
    expect(await startPinned(launches, "thr_v7", spec, { model: "solo-1", reasoningLevel: "xhigh" })).toEqual(["--model", "solo-1", ...args]);
    const warning = bridge.deltas("thr_v7").find((d) => d.kind === "provider.warning");
    expect(warning?.summary).toBe('Model "solo-1" has no xhigh reasoning variant; launching it at its default effort.');
  });

  it("reuses the catalog the last model/list cached for the same list command", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const { spec, args, scriptFile } = pinnedSpec("pin3", LIST_LINES);
    const listed = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(listed.result.models.map((m: any) => m.id)).toEqual(["zeta-2-medium", "solo-1"]);
    // The CLI now lists other ids; the launch still resolves through the cached catalog.
    writeFileSync(scriptFile, JSON.stringify({ modelList: { stdout: ["zeta-2-high-v2 - Zeta 2 High v2", "zeta-2-medium - Zeta 2"] } }));
    expect(await startPinned(launches, "thr_v8", spec, { model: "zeta-2-medium", reasoningLevel: "high" })).toEqual(["--model", "zeta-2-high", ...args]);
  });

  it("leaves the level to reasoningCli when the spec has one", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const reasoningCli = { flag: "--reasoning-effort", supportedLevels: ["low", "medium", "high"] };
    const { spec, args } = pinnedSpec("pin4", LIST_LINES, { reasoningCli });
    expect(await startPinned(launches, "thr_v9", spec, { model: "zeta-2-medium", reasoningLevel: "high" })).toEqual(["--model", "zeta-2-medium", "--reasoning-effort", "high", ...args]);
  });

  it("rebuilds for a level change of a pinned model (a new variant), not for an unchanged one", async () => {
    const launches: string[][] = [];
    bridge = startInProcessBridge({ spawn: recordingSpawn(launches) });
    const { spec, args, log } = pinnedSpec("pin5", LIST_LINES);
    await startPinned(launches, "thr_v10", spec, { model: "zeta-2-medium", reasoningLevel: "high" });
    await runTurn("thr_v10", log, "same", "creq_v10aaaaaaa", { reasoningLevel: "high" });
    expect(launches).toHaveLength(1);
    const from = bridge.out.length;
    await runTurn("thr_v10", log, "lower", "creq_v10bbbbbbb", { reasoningLevel: "low" });
    const replaced = await bridge.waitFor((m) => m.method === "session/replaced", from);
    expect(replaced.params).toEqual({ threadId: "thr_v10", providerThreadId: "fixture-session-1", reason: "Execution settings changed", contextLost: false });
    expect(launches).toEqual([
      ["--model", "zeta-2-high", ...args],
      ["--model", "zeta-2-low", ...args],
    ]);
    // Native reasoning is not also sent: the pinned variant carries the level.
    expect(configCalls(agentReceived(log))).toEqual([]);
  });
});
