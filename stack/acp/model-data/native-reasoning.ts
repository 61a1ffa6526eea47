/**
 * bb reasoning levels against what an agent offers (spec 20 §2.3 step 7, §3.11 "Overlays";
 * spec 30 §2.1, §3.1): the session's native reasoning option, the value a level selects there, and
 * the `model/list` overlays that put a launch spec's declared levels on the listed models.
 *
 * The native reasoning option is the agent's `thought_level` config option (by category, else by
 * id); without one, the launch spec's `nativeReasoning` synthesizes it (`configId` with the levels
 * `supportedLevels`, mapped through `levelValues`), so an agent that accepts the option without
 * declaring it (Hermes) still gets the level.
 */
import { findConfigOption } from "./config-options.js";
import { ACP_REASONING_LEVELS, type AcpLaunchSpec, type AcpNativeReasoning, type AcpReasoningLevel } from "../agents/launch-spec.js";

/**
 * The agent values a bb level may select, best first (spec 20 §2.3 step 7): the first one the
 * option accepts wins.
 */
export const REASONING_VALUE_CANDIDATES: Readonly<Record<AcpReasoningLevel, readonly string[]>> = {
  none: ["none"],
  low: ["low", "minimal"],
  medium: ["medium"],
  high: ["high"],
  xhigh: ["xhigh"],
  ultracode: ["ultracode", "xhigh"],
  max: ["max", "xhigh"],
  ultra: ["ultra", "max"],
};

/** True when `value` is a level of the bb ladder. */
export function isAcpReasoningLevel(value: unknown): value is AcpReasoningLevel {
  return typeof value === "string" && (ACP_REASONING_LEVELS as readonly string[]).includes(value);
}

/** A config option as the session tracks it: id, category and the values it accepts (its current value lives in the session's option state). */
export interface ConfigOptionChoices {
  id: string;
  category: string | undefined;
  /** Accepted values, grouped choices flattened, in the agent's order. */
  values: string[];
}

/** The option a reasoning level is set through (see module doc). */
export interface NativeReasoningOption {
  configId: string;
  /** Values the agent declared for it; empty for a synthesized option the agent did not declare. */
  values: readonly string[];
  /** For a synthesized option: the spec's `supportedLevels`, which the candidates are matched against. */
  supportedLevels?: readonly AcpReasoningLevel[] | undefined;
  /** The spec's `levelValues` when its `nativeReasoning` names this option: level → agent value, before any candidate. */
  levelValues?: Partial<Record<AcpReasoningLevel, string>> | undefined;
  synthesized: boolean;
}

/**
 * The session's native reasoning option (module doc): the `thought_level` option (category, then
 * id) of `options`, else one synthesized from `nativeReasoning`, else `null`. Pure.
 */
export function findNativeReasoningOption(options: readonly ConfigOptionChoices[], nativeReasoning: AcpNativeReasoning | undefined): NativeReasoningOption | null {
  const declared = findConfigOption(options, "thought_level");
  if (declared) {
    return { configId: declared.id, values: declared.values, levelValues: nativeReasoning?.configId === declared.id ? nativeReasoning.levelValues : undefined, synthesized: false };
  }
  if (!nativeReasoning) return null;
  const named = options.find((o) => o.id === nativeReasoning.configId);
  return {
    configId: nativeReasoning.configId,
    values: named?.values ?? [],
    supportedLevels: nativeReasoning.supportedLevels,
    levelValues: nativeReasoning.levelValues,
    synthesized: true,
  };
}

/**
 * The agent value that selects `level` on `option` (spec 20 §2.3 step 7): `levelValues[level]`
 * when set; else the first of {@link REASONING_VALUE_CANDIDATES} the option accepts (a declared
 * option: its values; a synthesized one: its supported levels, each mapped through `levelValues`).
 * `undefined` for a level off the ladder or one the option cannot express. Pure.
 */
export function reasoningValueFor(level: string, option: NativeReasoningOption): string | undefined {
  if (!isAcpReasoningLevel(level)) return undefined;
  const mapped = option.levelValues?.[level];
  if (mapped !== undefined) return mapped;
  for (const candidate of REASONING_VALUE_CANDIDATES[level]) {
    if (option.supportedLevels) {
      if ((option.supportedLevels as readonly string[]).includes(candidate)) return option.levelValues?.[candidate as AcpReasoningLevel] ?? candidate;
    } else if (option.values.includes(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** The reasoning fields of a listed model (spec 20 §3.11). */
export interface ReasoningEffortsView {
  displayName: string;
  supportedReasoningEfforts: Array<{ reasoningEffort: string; description: string }>;
  defaultReasoningEffort: string;
}

/** The default of a declared level list: `defaultLevel` when it is one of them, else `medium` when supported, else the first. */
export function defaultDeclaredLevel(levels: readonly AcpReasoningLevel[], defaultLevel: AcpReasoningLevel | undefined): AcpReasoningLevel | undefined {
  if (defaultLevel !== undefined && levels.includes(defaultLevel)) return defaultLevel;
  return levels.includes("medium") ? "medium" : levels[0];
}

/** True for the efforts of a model the agent manages itself: exactly one effort, `medium`, the default (the synthetic entry's shape). */
function agentManaged(model: ReasoningEffortsView): boolean {
  const efforts = model.supportedReasoningEfforts;
  return efforts.length === 1 && efforts[0]!.reasoningEffort === "medium" && model.defaultReasoningEffort === "medium";
}

function withLevels<T extends ReasoningEffortsView>(model: T, levels: readonly AcpReasoningLevel[], defaultLevel: AcpReasoningLevel): T {
  const described = new Map(model.supportedReasoningEfforts.map((e) => [e.reasoningEffort, e.description]));
  return {
    ...model,
    supportedReasoningEfforts: levels.map((level) => ({ reasoningEffort: level, description: described.get(level) ?? `${model.displayName} (${level})` })),
    defaultReasoningEffort: defaultLevel,
  };
}

/**
 * The `model/list` overlays (spec 20 §3.11 "Overlays"): with `reasoningCli`, every model's efforts
 * become its `supportedLevels` (bb ladder order; a level the model already described keeps its
 * description, others read `<displayName> (<level>)`), default {@link defaultDeclaredLevel};
 * otherwise with `nativeReasoning`, the same for the models whose efforts are exactly the single
 * agent-managed `medium` (models with probed or CLI levels keep theirs). An empty `supportedLevels`
 * changes nothing. Pure; returns a new list.
 */
export function overlayReasoningEfforts<T extends ReasoningEffortsView>(
  list: { models: T[]; selectedOnlyModels: T[] },
  spec: Pick<AcpLaunchSpec, "reasoningCli" | "nativeReasoning">,
): { models: T[]; selectedOnlyModels: T[] } {
  const declared = spec.reasoningCli ?? spec.nativeReasoning;
  if (!declared) return list;
  const levels = ACP_REASONING_LEVELS.filter((level) => declared.supportedLevels.includes(level));
  const defaultLevel = defaultDeclaredLevel(levels, declared.defaultLevel);
  if (defaultLevel === undefined) return list;
  const everyModel = spec.reasoningCli !== undefined;
  const overlay = (model: T): T => (everyModel || agentManaged(model) ? withLevels(model, levels, defaultLevel) : model);
  return { models: list.models.map(overlay), selectedOnlyModels: list.selectedOnlyModels.map(overlay) };
}
