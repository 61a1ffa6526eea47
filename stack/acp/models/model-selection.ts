/**
 * ACP-native selection of the model, the reasoning level and the service tier on a live session
 * (spec 20 §2.3 step 7, spec 30 §6.2, §6.4), at setup and again per turn, against the native state
 * the bridge tracks for the session ({@link NativeSettingsState}).
 *
 * Order: the model, then the reasoning level, then the service tier.
 * - Model: only when the launch spec cannot pin it (no `modelCli.selectFlag`), and only when the
 *   agent offers it (a value of the `model` config option, or an `availableModels` id): narrower
 *   than the reference on purpose, an unknown id such as `auto` sends nothing rather than a request
 *   the agent would refuse.
 * - Reasoning (native-reasoning.ts): the `thought_level` option, or the one `nativeReasoning`
 *   synthesizes; skipped when `reasoningCli` carries the level on the command line, and when the
 *   spec pins a model with `selectFlag` (the level then picks the launched variant,
 *   execution-settings.ts). Errors are logged and ignored.
 * - Service tier: the `fast` select option gets `"true"`/`"false"` (spec 30 §6.4); a refusal is ignored.
 * Nothing is sent for a setting whose tracked current value already matches.
 *
 * Parameterized picker (`providerOptions.parameterizedModelPicker`, spec 30 §6.4): selection is
 * always native, even when the spec has a `selectFlag` (then the launch carries no `--model`,
 * execution-settings.ts). The selected model is a base id (cursor-model-catalog.ts); the offered
 * entry with that base gets its parameters from the reasoning level and the service tier (see
 * {@link composeParameterizedSelection}); `session/set_model` sends the composed id when it differs
 * from the current one. The picker is on with the flag whatever the dialect, as the client
 * capability `_meta` is; the dialect only decides `model/list`'s catalog shape.
 *
 * Tracked state: current values live in the session's option state (session-options.ts, which
 * per-turn `sessionOptions` also update); this module adds each option's category and values, the
 * `models` block and the tier last asked for. Fed by the setup result, by `config_option_update`
 * ({@link noteNativeSettingsUpdate}) and by our own calls: a value the agent accepted is recorded as
 * sent; a model call's answer also replaces the other options (the reasoning option follows the
 * model, which is where spec 20 §3.11's probes read it), other calls' answers are not read.
 *
 * Weaker than the reference: a per-turn model the agent refuses is a warning, not a failed turn
 * (our choice; the spec names no failure there); a model the agent switches by itself is seen only
 * through its model config option (`config_option_update`): `models.currentModelId` has no update,
 * so an agent that selects through `session/set_model` alone is not checked for drift. With the
 * picker the level and tier ride in the model id: a `thought_level` option beside it is not set.
 */
import { CONFIG_CALL_TIMEOUT_MS, type AcpBridgeRuntime } from "../state/runtime.js";
import type { AcpSessionNotification } from "../translate/index.js";
import { agentSessionId, emitDeltas, type AcpSession } from "../state/session.js";
import { ACP_DEFAULT_MODEL_ID } from "../agents/launch-args.js";
import { composeParameterizedModelId, parseParameterizedModelId } from "../model-data/cursor-model-catalog.js";
import { readModelProviderOptions } from "../model-data/model-catalog.js";
import { findConfigOption, readConfigOptions } from "../model-data/config-options.js";
import { findNativeReasoningOption, reasoningValueFor, type ConfigOptionChoices } from "../model-data/native-reasoning.js";
import { choicesOf, type NativeSettingsState } from "../model-data/session-settings.js";

/**
 * Replaces the tracked options with a full `configOptions` list (a `config_option_update`, or a
 * model call's answer): categories and values in the native state, names, types and current values
 * in the option state. `keep` = the option just set: its current value stays the value sent.
 */
function noteConfigOptions(session: AcpSession, raw: unknown, keep?: { id: string; value: unknown }): void {
  const options = readConfigOptions(raw);
  if (session.nativeSettings) session.nativeSettings.options = options.map(choicesOf);
  for (const o of options) {
    const current = keep?.id === o.id ? keep.value : o.currentValue;
    const entry = session.optionState.config.get(o.id);
    if (entry) Object.assign(entry, { name: o.name, type: o.type, current });
    else session.optionState.config.set(o.id, { name: o.name, type: o.type, current });
  }
}

/**
 * Feeds a `session/update` (read once where it entered, `readSessionNotification`) to the tracked state (spec 30 §6.3 "Thread state"): a
 * `config_option_update` with a `configOptions` list replaces the tracked options. Updates for
 * another session id or while stopping are ignored; anything else is not this module's. Never throws.
 */
export function noteNativeSettingsUpdate(session: AcpSession, notification: AcpSessionNotification): void {
  if (session.phase === "stopping") return;
  const { sessionId, update } = notification;
  if (session.providerThreadId !== null && sessionId !== session.providerThreadId) return;
  const configOptions = update.value.configOptions;
  if (update.kind === "config_option_update" && Array.isArray(configOptions)) noteConfigOptions(session, configOptions);
}

/** True when the request's `providerOptions` enable Cursor's parameterized picker (spec 30 §6.3, §6.4). */
export function parameterizedPickerEnabled(providerOptions: unknown): boolean {
  return readModelProviderOptions(providerOptions).parameterizedModelPicker;
}

/**
 * The parameterized id to select for `model` (spec 30 §6.4 picker; OUR rules, the spec leaves them
 * open): the offered id whose base equals `model`'s base, with, when those keys exist,
 * - `thinking` → `false` for reasoning level `none`, else `true`;
 * - `effort` / `reasoning` → the level (for `none` only when the model has no `thinking` switch,
 *   which then says it);
 * - `fast` → `true` for service tier `fast`, else `false`;
 * then any parameter written in `model` itself (`base[k=v]`) wins; other parameters stay as
 * offered. An unset level or tier changes nothing. `undefined` when no offered id has that base.
 */
export function composeParameterizedSelection(offeredIds: readonly string[], model: string, settings: { reasoningLevel?: string | undefined; serviceTier?: string | undefined }): string | undefined {
  const wanted = parseParameterizedModelId(model);
  const offered = offeredIds.map(parseParameterizedModelId).find((id) => id.base === wanted.base);
  if (!offered) return undefined;
  const params = offered.params.map(([k, v]): [string, string] => [k, v]);
  const has = (key: string): boolean => params.some(([k]) => k === key);
  const set = (key: string, value: string): void => {
    const entry = params.find(([k]) => k === key);
    if (entry) entry[1] = value;
    else params.push([key, value]);
  };
  const level = settings.reasoningLevel;
  if (level) {
    if (has("thinking")) set("thinking", level === "none" ? "false" : "true");
    for (const key of ["effort", "reasoning"]) if (has(key) && !(level === "none" && has("thinking"))) set(key, level);
  }
  if (settings.serviceTier && has("fast")) set("fast", settings.serviceTier === "fast" ? "true" : "false");
  for (const [k, v] of wanted.params) set(k, v);
  return composeParameterizedModelId({ base: offered.base, params, bracketed: offered.bracketed || wanted.bracketed });
}

/** The execution settings to select natively. */
export interface NativeSettingsRequest {
  model: string | undefined;
  reasoningLevel?: string | undefined;
  serviceTier?: string | undefined;
  /** Cursor's parameterized picker is on ({@link parameterizedPickerEnabled}). */
  picker: boolean;
  /** Config ids the turn sets itself through `sessionOptions`: an explicit option wins over the level or tier. */
  explicitConfigIds?: ReadonlySet<string> | undefined;
}

/**
 * Selects `request` natively (module doc) and records what the agent accepted. `phase` decides what
 * a refused model does: at `setup` it throws (it fails the construction, spec 20 §2.3 step 7); on a
 * `turn` it becomes the warning `The agent did not apply the model "<m>"`. A session without
 * tracked state (never set up) gets nothing.
 * @throws the agent's error when a setup-time model selection fails.
 */
export async function selectNativeSettings(rt: AcpBridgeRuntime, session: AcpSession, request: NativeSettingsRequest, phase: "setup" | "turn"): Promise<void> {
  const state = session.nativeSettings;
  if (!state) return;
  const model = request.model && request.model !== ACP_DEFAULT_MODEL_ID ? request.model : undefined;
  try {
    if (request.picker && model) await selectPickerModel(session, state, model, request);
    else if (!request.picker && model && !session.spec.modelCli?.selectFlag) await selectPlainModel(session, state, model);
  } catch (error) {
    if (phase === "setup") throw error;
    const details = error instanceof Error ? error.message : String(error);
    emitDeltas(rt.ctx.io, session, session.translator.warning({ summary: `The agent did not apply the model "${model}"`, details }));
  }
  // With the picker the level and the tier ride in the model id.
  if (request.picker) return;
  const launchCarriesLevel = session.spec.reasoningCli !== undefined || (session.spec.modelCli?.selectFlag !== undefined && model !== undefined);
  if (request.reasoningLevel && !launchCarriesLevel) await selectReasoning(rt, session, state, request.reasoningLevel, request.explicitConfigIds);
  if (request.serviceTier && !request.explicitConfigIds?.has("fast")) await selectTier(session, request.serviceTier);
}

function modelOption(state: NativeSettingsState): ConfigOptionChoices | undefined {
  return findConfigOption(state.options, "model");
}

function currentOf(session: AcpSession, configId: string): unknown {
  return session.optionState.config.get(configId)?.current;
}

function recordCurrent(session: AcpSession, configId: string, value: unknown): void {
  const entry = session.optionState.config.get(configId);
  if (entry) entry.current = value;
  else session.optionState.config.set(configId, { name: configId, type: undefined, current: value });
}

async function setModel(session: AcpSession, state: NativeSettingsState, modelId: string): Promise<void> {
  await session.connection.request("session/set_model", { sessionId: agentSessionId(session), modelId }, { timeoutMs: CONFIG_CALL_TIMEOUT_MS });
  state.currentModelId = modelId;
  const option = modelOption(state);
  if (option) recordCurrent(session, option.id, modelId);
}

async function selectPickerModel(session: AcpSession, state: NativeSettingsState, model: string, request: NativeSettingsRequest): Promise<void> {
  const composed = composeParameterizedSelection(state.offeredModelIds, model, request);
  const option = modelOption(state);
  const configCurrent = option ? currentOf(session, option.id) : undefined;
  const current = state.currentModelId ?? (typeof configCurrent === "string" ? configCurrent : null);
  if (composed !== undefined && composed !== current) await setModel(session, state, composed);
}

/**
 * The model config option first (`session/set_config_option`, falling back to `session/set_model`
 * when that fails and the id is in `availableModels`), else `session/set_model` for an
 * `availableModels` id; nothing when the model is current or not offered.
 */
async function selectPlainModel(session: AcpSession, state: NativeSettingsState, model: string): Promise<void> {
  const option = modelOption(state);
  if (option && option.values.includes(model)) {
    if (currentOf(session, option.id) === model) return;
    let answer: unknown;
    try {
      answer = await session.connection.request("session/set_config_option", { sessionId: agentSessionId(session), configId: option.id, value: model }, { timeoutMs: CONFIG_CALL_TIMEOUT_MS });
    } catch (error) {
      if (!state.availableModels.includes(model)) throw error;
      await setModel(session, state, model);
      return;
    }
    const configOptions = answer && typeof answer === "object" ? (answer as { configOptions?: unknown }).configOptions : undefined;
    if (Array.isArray(configOptions)) noteConfigOptions(session, configOptions, { id: option.id, value: model });
    else recordCurrent(session, option.id, model);
    return;
  }
  if (state.availableModels.includes(model) && state.currentModelId !== model) await setModel(session, state, model);
}

async function selectReasoning(rt: AcpBridgeRuntime, session: AcpSession, state: NativeSettingsState, level: string, explicit: ReadonlySet<string> | undefined): Promise<void> {
  const option = findNativeReasoningOption(state.options, session.spec.nativeReasoning);
  if (!option || explicit?.has(option.configId)) return;
  const value = reasoningValueFor(level, option);
  if (value === undefined) {
    rt.ctx.log(`${session.label}: reasoning level "${level}" has no value on the agent's ${option.configId} option; left as it is`);
    return;
  }
  if (String(currentOf(session, option.configId)) === value) return;
  try {
    await session.connection.request("session/set_config_option", { sessionId: agentSessionId(session), configId: option.configId, value }, { timeoutMs: CONFIG_CALL_TIMEOUT_MS });
    recordCurrent(session, option.configId, value);
  } catch (error) {
    // Reasoning is a preference: spec 20 §2.3 step 7 ignores a refusal.
    rt.ctx.log(`${session.label}: the agent did not set ${option.configId} to "${value}": ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function selectTier(session: AcpSession, tier: string): Promise<void> {
  const fast = session.optionState.config.get("fast");
  if (fast?.type !== "select") return;
  const value = tier === "fast" ? "true" : "false";
  if (String(fast.current) === value) return;
  try {
    await session.connection.request("session/set_config_option", { sessionId: agentSessionId(session), configId: "fast", value }, { timeoutMs: CONFIG_CALL_TIMEOUT_MS });
    fast.current = value;
  } catch {
    // The tier is a preference: an agent that refuses it keeps its own (spec 30 §6.4 names no failure).
  }
}
