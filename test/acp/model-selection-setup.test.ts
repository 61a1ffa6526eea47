/**
 * `session/set_model` at session setup (spec 20 §2.3 step 7, model-selection.ts), through the
 * in-process bridge and the fixture agent: the fallback when the model config option is refused,
 * the `models.availableModels` path when there is no model option, and a refused setup-time
 * selection failing the construction (-32000).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const available = {
  currentModelId: "m-a",
  availableModels: [
    { modelId: "m-a", name: "Model A" },
    { modelId: "m-b", name: "Model B" },
  ],
};
const modelOption = { id: "model", name: "Model", category: "model", type: "select", currentValue: "m-a", options: [{ value: "m-a" }, { value: "m-b" }, { value: "m-c" }] };

/** What the agent received after `initialize` and `session/new`, as `[method, params]`. */
const afterSetup = (log: string) =>
  agentReceived(log)
    .filter((m) => m.method !== undefined && !["initialize", "session/new"].includes(m.method))
    .map((m) => [m.method, m.params]);

async function start(threadId: string, script: FixtureScriptInput, model: string) {
  const { spec, log } = fixtureLaunchSpec(bridge!.dir, script, threadId);
  const response = await bridge!.request("thread/start", threadStartParams(threadId, spec, bridge!.dir, { model }));
  return { response, log };
}

describe("session/set_model at setup (spec 20 §2.3 step 7)", () => {
  it("falls back to session/set_model when the agent refuses session/set_config_option for the model option", async () => {
    bridge = startInProcessBridge();
    const { response, log } = await start("thr_sm1", { sessionResult: { configOptions: [modelOption], models: available }, refuseOptions: ["model"] }, "m-b");
    expect(response.error).toBeUndefined();
    expect(afterSetup(log)).toEqual([
      ["session/set_config_option", { sessionId: "fixture-session-1", configId: "model", value: "m-b" }],
      ["session/set_model", { sessionId: "fixture-session-1", modelId: "m-b" }],
    ]);
    // The fallback's model is tracked as current: a turn asking for it sends no model call.
    const from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_sm1", "hello", "creq_sm1aaaaaaaa", { model: "m-b" }));
    // The boundary follows the prompt's answer, so the agent has logged the prompt by then.
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_sm1", from);
    expect(afterSetup(log).map(([method]) => method)).toEqual(["session/set_config_option", "session/set_model", "session/prompt"]);
  });

  it("without a model option selects an availableModels id that is not current through session/set_model, and nothing for the current one or an unlisted one", async () => {
    bridge = startInProcessBridge();
    const other = await start("thr_sm2", { sessionResult: { models: available } }, "m-b");
    expect(other.response.error).toBeUndefined();
    expect(afterSetup(other.log)).toEqual([["session/set_model", { sessionId: "fixture-session-1", modelId: "m-b" }]]);
    for (const [threadId, model] of [
      ["thr_sm3", "m-a"],
      ["thr_sm4", "m-z"],
    ] as const) {
      const { response, log } = await start(threadId, { sessionResult: { models: available } }, model);
      expect(response.error).toBeUndefined();
      expect(afterSetup(log)).toEqual([]);
    }
  });

  it("a refused setup-time session/set_model fails the construction with -32000 and the agent's message", async () => {
    bridge = startInProcessBridge();
    const { response, log } = await start("thr_sm5", { sessionResult: { models: available }, refuseModels: ["m-b"] }, "m-b");
    expect(response.result).toBeUndefined();
    expect(response.error.code).toBe(-32000);
    expect(response.error.message).toContain("model m-b cannot be selected now");
    expect(afterSetup(log).map(([method]) => method)).toEqual(["session/set_model"]);
    // No session was registered: a turn on the thread finds none and prompts nothing.
    const turn = await bridge.request("turn/start", turnStartParams("thr_sm5", "hello", "creq_sm5aaaaaaaa"));
    expect(turn.error).toMatchObject({ code: -32000, message: "No active ACP session" });
    expect(agentReceived(log).some((m) => m.method === "session/prompt")).toBe(false);
  });

  it("a refused fallback fails the construction too; a refused option whose model is not in availableModels fails it without a fallback", async () => {
    bridge = startInProcessBridge();
    const both = await start("thr_sm6", { sessionResult: { configOptions: [modelOption], models: available }, refuseOptions: ["model"], refuseModels: ["m-b"] }, "m-b");
    expect(both.response.error.code).toBe(-32000);
    expect(both.response.error.message).toContain("model m-b cannot be selected now");
    expect(afterSetup(both.log).map(([method]) => method)).toEqual(["session/set_config_option", "session/set_model"]);

    // m-c is a value of the option but not an availableModels id: the option's refusal stands.
    const unlisted = await start("thr_sm7", { sessionResult: { configOptions: [modelOption], models: available }, refuseOptions: ["model"] }, "m-c");
    expect(unlisted.response.error.code).toBe(-32000);
    expect(unlisted.response.error.message).toContain("option model cannot change now");
    expect(afterSetup(unlisted.log).map(([method]) => method)).toEqual(["session/set_config_option"]);
  });
});
