/**
 * ACP-native model selection at session setup (spec 20 §2.3 step 7, spec 30 §6.4), used only when
 * the launch spec cannot pin the model on the command line (no `modelCli.selectFlag`).
 *
 * Narrower than the reference on purpose: the model is selected only when the agent offers it (a
 * value of the `model` config option, or an `availableModels` id), so an unknown id such as
 * `auto` sends nothing rather than a request the agent would refuse.
 *
 * Parameterized picker (`providerOptions.parameterizedModelPicker`, Cursor; spec 30 §6.4):
 * selection is always native, even when the spec has a `selectFlag`. The selected model is a base
 * id (cursor-model-catalog.ts); the offered entry with that base gets its parameters from the
 * reasoning level and the service tier (see {@link composeParameterizedSelection}), and
 * `session/set_model` sends the composed id when it differs from the current one. Other agents get
 * the service tier through a `fast` select option (spec 30 §6.4).
 *
 * Weaker than the reference: the `thought_level` reasoning option after the model (spec 20 §2.3
 * step 7) is not set; with the picker and a `selectFlag`, the launch args still carry
 * `<selectFlag> <model>` (launch-args.ts) beside the native selection.
 */
import type { AcpSession } from "./session.js";
import { ACP_DEFAULT_MODEL_ID } from "./launch-args.js";
import { CONFIG_CALL_TIMEOUT_MS } from "./session-options.js";
import { composeParameterizedModelId, parseParameterizedModelId } from "./cursor-model-catalog.js";
import { readModelProviderOptions } from "./model-catalog.js";
import { readOfferedModelIds } from "./model-session-options.js";

interface ModelOffer {
  configId: string | null;
  configValues: string[];
  configCurrent: unknown;
  availableModels: string[];
  currentModelId: string | null;
}

function readOffer(result: unknown): ModelOffer {
  const r = (result && typeof result === "object" ? result : {}) as { configOptions?: unknown; models?: unknown };
  const offer: ModelOffer = { configId: null, configValues: [], configCurrent: undefined, availableModels: [], currentModelId: null };
  const options = Array.isArray(r.configOptions) ? r.configOptions : [];
  const model = options.find((o) => o && typeof o === "object" && ((o as { category?: unknown }).category === "model" || (o as { id?: unknown }).id === "model")) as
    | { id?: unknown; currentValue?: unknown; options?: unknown }
    | undefined;
  if (model && typeof model.id === "string") {
    offer.configId = model.id;
    offer.configCurrent = model.currentValue;
    offer.configValues = (Array.isArray(model.options) ? model.options : [])
      .map((o) => (o && typeof o === "object" ? (o as { value?: unknown }).value : undefined))
      .filter((v): v is string => typeof v === "string");
  }
  const models = r.models as { availableModels?: unknown; currentModelId?: unknown } | undefined;
  if (models && typeof models === "object") {
    offer.availableModels = (Array.isArray(models.availableModels) ? models.availableModels : [])
      .map((m) => (m && typeof m === "object" ? (m as { modelId?: unknown }).modelId : undefined))
      .filter((v): v is string => typeof v === "string");
    offer.currentModelId = typeof models.currentModelId === "string" ? models.currentModelId : null;
  }
  return offer;
}

/** What a construction asked for: the model and the execution settings that parameterize it. */
export interface NativeModelRequest {
  model: string | undefined;
  reasoningLevel?: string | undefined;
  serviceTier?: string | undefined;
  /** The request's `options.providerOptions` (read for `parameterizedModelPicker`). */
  providerOptions?: Record<string, unknown> | undefined;
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

/**
 * Selects the requested model natively (module doc). Plain agents: when the agent offers `model`
 * and it is not current, the `model` config option first (`session/set_config_option`), falling
 * back to `session/set_model` on error; otherwise `session/set_model` when listed in
 * `availableModels`; nothing when the spec pins the model with `modelCli.selectFlag`. Then the
 * service tier (spec 30 §6.4): a `fast` select option gets `"true"`/`"false"` when a tier is given
 * and the value differs; the session's option state tracks it; a refusal is ignored.
 * Parameterized picker: `session/set_model` with {@link composeParameterizedSelection}'s id when it
 * differs from the current model (the tier rides in that id).
 * @throws the agent's error when `session/set_model` fails (it fails the construction).
 */
export async function selectNativeModel(session: AcpSession, setupResult: unknown, request: NativeModelRequest): Promise<void> {
  const model = request.model && request.model !== ACP_DEFAULT_MODEL_ID ? request.model : undefined;
  const sessionId = session.providerThreadId;
  const timeout = { timeoutMs: CONFIG_CALL_TIMEOUT_MS };
  const offer = readOffer(setupResult);
  if (parameterizedPickerEnabled(request.providerOptions)) {
    if (!model) return;
    const composed = composeParameterizedSelection(readOfferedModelIds(setupResult), model, request);
    const current = offer.currentModelId ?? (typeof offer.configCurrent === "string" ? offer.configCurrent : null);
    if (composed !== undefined && composed !== current) await session.connection.request("session/set_model", { sessionId, modelId: composed }, timeout);
    return;
  }
  if (model && !session.spec.modelCli?.selectFlag) await selectPlainModel(session, offer, model);
  const fast = session.optionState.config.get("fast");
  if (request.serviceTier && fast?.type === "select") {
    const value = request.serviceTier === "fast" ? "true" : "false";
    if (String(fast.current) === value) return;
    try {
      await session.connection.request("session/set_config_option", { sessionId, configId: "fast", value }, timeout);
      fast.current = value;
    } catch {
      // The tier is a preference: an agent that refuses it keeps its own (spec 30 §6.4 names no failure).
    }
  }
}

async function selectPlainModel(session: AcpSession, offer: ModelOffer, model: string): Promise<void> {
  const sessionId = session.providerThreadId;
  const timeout = { timeoutMs: CONFIG_CALL_TIMEOUT_MS };
  if (offer.configId && offer.configValues.includes(model)) {
    if (offer.configCurrent === model) return;
    try {
      await session.connection.request("session/set_config_option", { sessionId, configId: offer.configId, value: model }, timeout);
      return;
    } catch (error) {
      if (!offer.availableModels.includes(model)) throw error;
    }
    await session.connection.request("session/set_model", { sessionId, modelId: model }, timeout);
    return;
  }
  if (offer.availableModels.includes(model) && offer.currentModelId !== model) {
    await session.connection.request("session/set_model", { sessionId, modelId: model }, timeout);
  }
}
