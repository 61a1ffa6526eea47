/**
 * What a session's setup result offered, as the bridge tracks it for the session's life (spec 20
 * §2.3 step 7, spec 30 §6.2–§6.4): the option state (modes and config option values, which per-turn
 * `sessionOptions` update, session-options.ts) and the native settings state (options with their
 * categories and values, the `models` block, the tier last asked for, model-selection.ts).
 *
 * A leaf of the model family: the session record (session/session.ts) holds these shapes and the
 * modules that change them import them from here, so neither imports the other for a type.
 */
import { availableModelsOf, configOptionsOf, sessionModesOf, type AcpConfigOption } from "./config-options.js";
import { readOfferedModelIds } from "./model-session-options.js";
import type { ConfigOptionChoices } from "./native-reasoning.js";

/** What the agent offered at setup, with the values the bridge last knew. */
export interface SessionOptionState {
  modes: { current: string | null; available: Array<{ id: string; name: string }> } | null;
  config: Map<string, { name: string; type: string | undefined; current: unknown }>;
}

/** Reads offered modes and config options from a `session/new|load|resume|fork` result. */
export function readSessionOptionState(result: unknown): SessionOptionState {
  const config: SessionOptionState["config"] = new Map();
  for (const o of configOptionsOf(result)) config.set(o.id, { name: o.name, type: o.type, current: o.currentValue });
  return { modes: sessionModesOf(result), config };
}

/** The native state the bridge tracks for one session, beside its option state (module doc). */
export interface NativeSettingsState {
  /** Every config option the agent declared, with its category and values (current values: `session.optionState`). */
  options: ConfigOptionChoices[];
  /** `models.availableModels[].modelId`. */
  availableModels: string[];
  /** `models.currentModelId`, then the model last selected through `session/set_model`. */
  currentModelId: string | null;
  /** The model ids the setup result offered (the picker's parameterized entries). */
  offeredModelIds: string[];
  /** The service tier last asked for (setup or turn), the per-turn fallback. */
  serviceTier: string | undefined;
}

/** The tracked shape of a declared option: id, category and the values it accepts. */
export function choicesOf(option: AcpConfigOption): ConfigOptionChoices {
  return { id: option.id, category: option.category, values: option.choices.map((c) => c.value) };
}

/** Reads the tracked native state from a `session/new|load|resume|fork` result (lenient; a `null` result offers nothing). */
export function readNativeSettingsState(result: unknown, serviceTier: string | undefined): NativeSettingsState {
  const r = (result && typeof result === "object" ? result : {}) as { models?: unknown };
  const models = (r.models && typeof r.models === "object" ? r.models : {}) as { currentModelId?: unknown };
  return {
    options: configOptionsOf(result).map(choicesOf),
    availableModels: availableModelsOf(result).map((m) => m.modelId),
    currentModelId: typeof models.currentModelId === "string" ? models.currentModelId : null,
    offeredModelIds: readOfferedModelIds(result),
    serviceTier,
  };
}
