/**
 * ACP-native model selection at session setup (spec 20 §2.3 step 7, spec 30 §6.4), used only when
 * the launch spec cannot pin the model on the command line (no `modelCli.selectFlag`).
 *
 * Narrower than the reference on purpose: the model is selected only when the agent offers it (a
 * value of the `model` config option, or an `availableModels` id), so an unknown id such as
 * `auto` sends nothing rather than a request the agent would refuse.
 */
import type { AcpSession } from "./session.js";
import { ACP_DEFAULT_MODEL_ID } from "./launch-args.js";
import { CONFIG_CALL_TIMEOUT_MS } from "./session-options.js";

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

/**
 * Selects `model` natively when the agent offers it and it is not current: the `model` config
 * option first (`session/set_config_option`), falling back to `session/set_model` on error;
 * otherwise `session/set_model` when listed in `availableModels`.
 * @throws the agent's error when `session/set_model` fails (it fails the construction).
 */
export async function selectNativeModel(session: AcpSession, setupResult: unknown, model: string | undefined): Promise<void> {
  if (!model || model === ACP_DEFAULT_MODEL_ID || session.spec.modelCli?.selectFlag) return;
  const offer = readOffer(setupResult);
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
