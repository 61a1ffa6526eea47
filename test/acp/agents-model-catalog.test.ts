/**
 * CLI model list grouping (spec 20 §3.11): families, effort levels, fast tier, thinking collapse,
 * display-name cleaning and the primary split; the model options beside the launch spec.
 */
import { describe, expect, it } from "vitest";
import { shippedAcpAgents } from "../../stack/acp/agents/agents.js";
import { cleanDisplayName, groupModelFamilies, parseModelId, readModelProviderOptions, splitPrimaryFamilies } from "../../stack/acp/model-data/model-catalog.js";
import { parseModelListOutput } from "../../stack/acp/models/model-list.js";

const LIST = [
  "auto - Auto (current, default)",
  "grok-9-low - Grok 9 Low",
  "grok-9-fast - Grok 9 Fast",
  "grok-9-medium - Grok 9",
  "grok-9-high - Grok 9 High",
  "grok-9-extra-high - Grok 9 Extra High",
  "sonic-2 - Sonic 2 (NO ZDR)",
  "sonic-2-thinking-high - Sonic 2 Thinking High",
  "sonic-2-thinking - Sonic 2 Thinking",
  "sonic-2-low - Sonic 2 Low",
  "- vendor/bare-model",
].join("\n");

describe("model catalog", () => {
  it("parses ids into family, level, tier and thinking", () => {
    expect(parseModelId({ id: "x-1-thinking-high-fast" })).toMatchObject({ family: "x-1", level: "high", fast: true, thinking: true });
    expect(parseModelId({ id: "x-1-extra-high" })).toMatchObject({ family: "x-1", level: "xhigh", hadEffortToken: true });
    expect(parseModelId({ id: "x-1" })).toMatchObject({ family: "x-1", level: "medium", hadEffortToken: false });
  });

  it("cleans display names but keeps multi-word parentheticals", () => {
    expect(cleanDisplayName("Auto (current, default)", false)).toBe("Auto (current, default)");
    expect(cleanDisplayName("Sonic 2 Thinking High (NO ZDR) 1M", true)).toBe("Sonic 2");
  });

  it("groups families with ladder-ordered efforts, fast ids and thinking collapse", () => {
    const families = groupModelFamilies(parseModelListOutput(LIST));
    expect(families.map((f) => f.id)).toEqual(["auto", "grok-9-medium", "sonic-2-thinking", "vendor/bare-model"]);
    const grok = families[1]!;
    expect(grok.supportedReasoningEfforts.map((e) => e.reasoningEffort)).toEqual(["low", "medium", "high", "xhigh"]);
    expect(grok.variants.medium).toEqual({ id: "grok-9-medium", fastId: "grok-9-fast" });
    expect(grok.displayName).toBe("Grok 9");
    const sonic = families[2]!;
    expect(sonic.supportedReasoningEfforts.map((e) => e.reasoningEffort)).toEqual(["none", "medium", "high"]);
    expect(sonic.variants.none).toEqual({ id: "sonic-2" });
    expect(sonic.defaultReasoningEffort).toBe("medium");
    expect(families.map((f) => f.isDefault)).toEqual([true, false, false, false]);
  });

  it("splits primaries in declared order and re-anchors the default", () => {
    const families = groupModelFamilies(parseModelListOutput(LIST));
    const split = splitPrimaryFamilies(families, ["sonic-2-thinking", "auto", "missing"]);
    expect(split.models.map((f) => [f.id, f.isDefault])).toEqual([
      ["sonic-2-thinking", true],
      ["auto", false],
    ]);
    expect(split.selectedOnlyModels.map((f) => f.id)).toEqual(["grok-9-medium", "vendor/bare-model"]);
    expect(splitPrimaryFamilies(families, ["nothing"]).models).toHaveLength(4);
  });
});

describe("model options beside the launch spec (spec 30 §2.1)", () => {
  it("reads the shipped Cursor agent's picker, bridge-level primaries and probe priority", () => {
    const cursor = shippedAcpAgents().find((a) => a.id === "acp-cursor")!;
    const read = readModelProviderOptions(cursor.bridgeOptions);
    expect(read).toEqual({
      acpDialect: "cursor",
      parameterizedModelPicker: true,
      primaryModels: cursor.bridgeOptions.primaryModels,
      reasoningProbePriorityModelIds: cursor.bridgeOptions.reasoningProbePriorityModelIds,
    });
    expect(read.reasoningProbePriorityModelIds.length).toBeGreaterThan(0);
  });

  it("defaults when absent and ignores malformed values one by one", () => {
    const defaults = { acpDialect: undefined, parameterizedModelPicker: false, primaryModels: undefined, reasoningProbePriorityModelIds: [] };
    expect(readModelProviderOptions(undefined)).toEqual(defaults);
    expect(readModelProviderOptions("nonsense")).toEqual(defaults);
    expect(readModelProviderOptions({ parameterizedModelPicker: "yes", primaryModels: [1], reasoningProbePriorityModelIds: ["a", 2], acpDialect: 3 })).toEqual(defaults);
    expect(readModelProviderOptions({ parameterizedModelPicker: true, primaryModels: ["x"], other: 1 })).toMatchObject({ parameterizedModelPicker: true, primaryModels: ["x"] });
  });
});
