/**
 * pi's models on the protocol (spec 20 §3.11 `model/list`, §1.2 execution option `model`;
 * pi 0.73.1 `docs/rpc.md` "Model"): `get_available_models` lists the models pi's `models.json`
 * and built-in providers configure, `get_state` names the current one, `set_model {provider,
 * modelId}` switches the session (answered with the model, or `Model not found: <p>/<id>`).
 * A model's protocol id is `<provider>/<id>`, the form pi's own `--model` flag takes, since two
 * providers may offer the same id.
 */
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import type { ModelDescriptor, ModelListResult } from "../protocol/methods.js";
import type { PiResponse, PiRpc } from "./rpc.js";

/** One of pi's models as its RPC names it (`id`, `provider`, `name`, `contextWindow`; the rest is not read). */
export interface PiModel {
  id: string;
  provider: string;
  name?: string;
  /** Tokens; the usage's `modelContextWindow`. */
  contextWindow?: number;
}

const isPiModel = (value: unknown): value is PiModel => {
  const m = value as Partial<PiModel> | null;
  return typeof m === "object" && m !== null && typeof m.id === "string" && m.id !== "" && typeof m.provider === "string" && m.provider !== "";
};

/** `<provider>/<id>`: a pi model's id on the protocol. */
export function piModelRef(model: PiModel): string {
  return `${model.provider}/${model.id}`;
}

/** The current model of a `get_state` answer's `data`, or undefined when it names none. */
export function currentModelOf(stateData: unknown): PiModel | undefined {
  const model = (stateData as { model?: unknown } | null)?.model;
  return isPiModel(model) ? model : undefined;
}

/**
 * The models of a `get_available_models` answer.
 * @throws BridgeJsonRpcError −32000 when pi refused the command.
 */
export function availableModelsOf(response: PiResponse): PiModel[] {
  if (!response.success) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi get_available_models failed: ${response.error ?? "unknown error"}`);
  const models = (response.data as { models?: unknown } | undefined)?.models;
  return Array.isArray(models) ? models.filter(isPiModel) : [];
}

/**
 * The `model/list` result of pi's models: `{id: "<provider>/<id>", model: id, displayName:
 * name, isDefault}` (the default is the model `get_state` names: the one a new session
 * starts with), in pi's order; `selectedOnlyModels` is empty.
 */
export function modelListOf(models: readonly PiModel[], current: PiModel | undefined): ModelListResult {
  const currentRef = current ? piModelRef(current) : undefined;
  const descriptors: ModelDescriptor[] = models.map((m) => ({
    id: piModelRef(m),
    model: m.id,
    displayName: m.name ?? m.id,
    isDefault: piModelRef(m) === currentRef,
  }));
  return { models: descriptors, selectedOnlyModels: [] };
}

/** True when `wanted` (`<provider>/<id>` or a bare id) names `model`. */
export function namesModel(wanted: string, model: PiModel | undefined): boolean {
  return model !== undefined && (wanted === piModelRef(model) || wanted === model.id);
}

/**
 * Switches a live pi session to `wanted` (execution option `model`): nothing when it already
 * runs it; `<provider>/<id>` is sent as it is; a bare id is looked up in
 * `get_available_models` and must name exactly one model. Returns the model pi now runs.
 * @throws BridgeJsonRpcError −32602 naming `options.model` when pi has no such model (with pi's
 *   own error) or a bare id is ambiguous; −32000 when pi cannot list its models.
 */
export async function selectPiModel(rpc: PiRpc, wanted: string | undefined, current: PiModel | undefined): Promise<PiModel | undefined> {
  if (wanted === undefined || wanted === "" || namesModel(wanted, current)) return current;
  const refused = (why: string) => new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.invalidParams, `options.model "${wanted}": ${why}`);
  let target: { provider: string; modelId: string };
  const slash = wanted.indexOf("/");
  if (slash > 0) target = { provider: wanted.slice(0, slash), modelId: wanted.slice(slash + 1) };
  else {
    const matches = availableModelsOf(await rpc.command("get_available_models")).filter((m) => m.id === wanted);
    if (matches.length !== 1) throw refused(matches.length === 0 ? "pi offers no model with that id" : `ambiguous: ${matches.map(piModelRef).join(", ")}`);
    target = { provider: matches[0]!.provider, modelId: matches[0]!.id };
  }
  const response = await rpc.command("set_model", target);
  if (!response.success) throw refused(`pi refused it (${response.error ?? "unknown error"})`);
  return isPiModel(response.data) ? response.data : { provider: target.provider, id: target.modelId };
}
