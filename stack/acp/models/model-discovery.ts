/**
 * ACP-native model discovery (spec 20 §3.11 step 2, spec 30 §6.4): a throwaway agent
 * (`initialize` + headless `authenticate` + `session/new`, agent requests → -32601, always killed)
 * whose `session/new` result names the models (the `model` config option, else `models.availableModels`)
 * and declares the session options (cached 60 s, model-session-options.ts). Models of the `model`
 * config option get per-model reasoning probes (`thought_level`; 5 s budget; a failed probe is
 * logged and skipped), those named by `reasoningProbePriorityModelIds` first. Results are cached
 * 60 s per launch spec on `options.now`, and one still running is shared by concurrent requests
 * (model-discovery-cache.ts); a failure fails the request
 * (auth → `authRequired` with sign-in guidance) and is not cached; no models advertised → the
 * synthetic model. The CLI path (model-cli.ts) borrows the throwaway session for its options read.
 */
import { BRIDGE_JSON_RPC_ERRORS } from "../../protocol/errors.js";
import { availableModelsOf, configOptionsOf, findConfigOption } from "../model-data/config-options.js";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { AcpAgentTimeoutError, AcpClientReplyError, connectAcpAgent } from "../connection/connection.js";
import { buildAgentEnv } from "../agents/launch-args.js";
import { ACP_REASONING_LEVELS, acpAgentLabel, type AcpReasoningLevel } from "../agents/launch-spec.js";
import { describeAcpSignIn, readAuthMethods, toRequestError, type AcpAuthMethodInfo } from "../connection/recovery.js";
import { ACP_CLIENT_INFO, ACP_PROTOCOL_VERSION, DISCOVERY_CLIENT_CAPABILITIES, headlessAuthMethod, type AcpAgentMethod, type AcpAgentMethodParams } from "../connection/acp-client.js";
import { discoveryCacheKey, sharedDiscovery } from "../model-data/model-discovery-cache.js";
import { sessionOptionsCacheKey, sessionOptionsEntry, type SessionOptionsCacheEntry } from "../model-data/model-session-options.js";
import { parameterizedBase, withParameterizedPickerMeta } from "../model-data/cursor-model-catalog.js";
import { syntheticModel, withSessionOptions, type AcpModelDescriptor, type AcpModelListResult, type ModelListRequest } from "../model-data/model-list-result.js";

/** The error text of a discovery that timed out (spec 30 §6.4). */
export const DISCOVERY_TIMEOUT_MESSAGE = "The agent did not answer within 30 seconds while bb asked it for its models";

function describe(id: string, name: string | undefined, isDefault: boolean): AcpModelDescriptor {
  const displayName = name?.trim() || id;
  return {
    id,
    model: id,
    displayName,
    description: displayName,
    supportedReasoningEfforts: [{ reasoningEffort: "medium", description: displayName }],
    defaultReasoningEffort: "medium",
    isDefault,
  };
}

/** The models a discovery result offers: the `model` config option's choices, else `models.availableModels`. */
function nativeModelsOf(result: unknown): Array<{ id: string; name?: string }> {
  const option = findConfigOption(configOptionsOf(result), "model");
  if (option && option.choices.length) return option.choices.map((c) => ({ id: c.value, name: c.name }));
  return availableModelsOf(result).map((m) => (m.name !== undefined ? { id: m.modelId, name: m.name } : { id: m.modelId }));
}

/** A throwaway agent session: the `session/new` result and a way to ask the live agent more. */
export interface ThrowawaySession {
  result: unknown;
  request<M extends AcpAgentMethod>(method: M, params: AcpAgentMethodParams[M], timeoutMs: number): Promise<unknown>;
}

/**
 * Runs `initialize` (+ headless `authenticate`) + `session/new` on a throwaway agent, then `use`,
 * and always kills the agent; an aborted `signal` kills it early (its pending request fails).
 * Each setup request waits at most `modelListTimeoutMs`. Client capabilities: no fs, no terminal,
 * terminal sign-in, and `_meta.parameterizedModelPicker` when the picker is on (spec 30 §6.3).
 * @throws BridgeJsonRpcError -32000: the timeout message of spec 30 §6.4 on a stuck agent, other
 *   agent failures as they are, `authRequired` with sign-in guidance for auth failures.
 */
export async function withThrowawaySession<T>(rt: AcpBridgeRuntime, req: ModelListRequest, use: (session: ThrowawaySession) => Promise<T>, signal?: AbortSignal): Promise<T> {
  const { spec, cwd } = req;
  const label = acpAgentLabel(spec);
  const timeoutMs = rt.options.modelListTimeoutMs;
  const env = buildAgentEnv({ inherited: rt.ctx.env, sanitize: rt.options.sanitizeEnv, specEnv: spec.env });
  const connection = connectAcpAgent({
    launch: { command: spec.command, args: spec.args, env, cwd: spec.cwd ?? cwd },
    label,
    maxLineBytes: rt.options.maxAgentLineBytes,
    scheduler: rt.options.scheduler,
    ...(rt.options.spawn ? { spawn: rt.options.spawn } : {}),
    onSpawned: (child) => rt.options.recordChild(child, null),
    onNote: (text) => rt.ctx.log(text),
    onNotification: () => {},
    onRequest: async (method) => {
      throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.methodNotFound, `Unsupported ACP client method "${method}"`);
    },
    onExit: () => {},
  });
  const stop = (): void => void connection.kill();
  if (signal?.aborted) stop();
  else signal?.addEventListener("abort", stop, { once: true });
  let authMethods: AcpAuthMethodInfo[] = [];
  try {
    const clientCapabilities = withParameterizedPickerMeta(DISCOVERY_CLIENT_CAPABILITIES, req.extras.parameterizedModelPicker);
    const init = (await connection.request("initialize", { protocolVersion: ACP_PROTOCOL_VERSION, clientInfo: ACP_CLIENT_INFO, clientCapabilities }, { timeoutMs })) as {
      authMethods?: unknown;
    } | null;
    authMethods = readAuthMethods(init?.authMethods);
    const authMethod = headlessAuthMethod(authMethods, env);
    if (authMethod) await connection.request("authenticate", { methodId: authMethod, _meta: { headless: true } }, { timeoutMs });
    const result = await connection.request("session/new", { cwd: spec.cwd ?? cwd, mcpServers: [] }, { timeoutMs });
    return await use({ result, request: (method, params, ms) => connection.request(method, params, { timeoutMs: ms }) });
  } catch (error) {
    const failure = error instanceof AcpAgentTimeoutError ? new Error(DISCOVERY_TIMEOUT_MESSAGE) : error;
    throw toRequestError(failure, describeAcpSignIn({ command: spec.command, args: spec.args, authMethods }));
  } finally {
    signal?.removeEventListener("abort", stop);
    await connection.kill();
  }
}

/** Caches what a `session/new` result declared (options and offered model ids, spec 30 §6.4) and returns it. */
export function rememberSessionOptions(rt: AcpBridgeRuntime, req: ModelListRequest, result: unknown): SessionOptionsCacheEntry {
  const entry = sessionOptionsEntry(result, rt.options.now());
  rt.sessionOptionsCache.set(sessionOptionsCacheKey(req.spec, req.cwd), entry);
  return entry;
}

/** The model config option of a `session/new` result: its id and the session id, when present. */
function modelConfigOf(result: unknown): { configId: string; sessionId: string } | null {
  const sessionId = result && typeof result === "object" ? (result as { sessionId?: unknown }).sessionId : undefined;
  const option = findConfigOption(configOptionsOf(result), "model");
  return option && typeof sessionId === "string" ? { configId: option.id, sessionId } : null;
}

/** Reads the `thought_level` config option (category, then id) of a config-option answer as bb efforts. */
export function readThoughtLevels(result: unknown): { efforts: AcpReasoningLevel[]; current: AcpReasoningLevel | null } | null {
  const option = findConfigOption(configOptionsOf(result), "thought_level");
  if (!option) return null;
  const values = option.choices.map((c) => c.value);
  const efforts = ACP_REASONING_LEVELS.filter((level) => values.includes(level));
  if (efforts.length === 0) return null;
  const current = option.currentValue;
  return { efforts, current: typeof current === "string" && (efforts as readonly string[]).includes(current) ? (current as AcpReasoningLevel) : null };
}

/** Overall budget of the per-model reasoning probes of one discovery, in ms (spec 20 §3.11). */
export const REASONING_PROBE_BUDGET_MS = 5_000;

/**
 * The order the reasoning probes run in (spec 30 §2.1 `reasoningProbePriorityModelIds`): indexes
 * into `ids`, first the models matching a priority id (the id itself or its parameterized base,
 * `grok-9` for `grok-9[effort=high]`) in the priority list's order, then every other model in list
 * order. Each index appears once. Pure.
 */
export function reasoningProbeOrder(ids: readonly string[], priorityIds: readonly string[]): number[] {
  const order: number[] = [];
  for (const wanted of priorityIds) {
    ids.forEach((id, index) => {
      if (!order.includes(index) && (id === wanted || parameterizedBase(id) === wanted)) order.push(index);
    });
  }
  ids.forEach((_, index) => {
    if (!order.includes(index)) order.push(index);
  });
  return order;
}

/**
 * Per-model reasoning probes (spec 20 §3.11, spec 30 §6.4): for each model of the `model` config
 * option, `session/set_config_option` selects it and the answer's `thought_level` option gives its
 * efforts. They run in {@link reasoningProbeOrder} and share {@link REASONING_PROBE_BUDGET_MS} on
 * the bridge clock; results so far are kept when it runs out, and the models keep their list order.
 * A failed probe is logged and that model keeps the default efforts.
 */
async function probeReasoning(rt: AcpBridgeRuntime, session: ThrowawaySession, models: AcpModelDescriptor[], priorityIds: readonly string[]): Promise<AcpModelDescriptor[]> {
  const target = modelConfigOf(session.result);
  if (!target) return models;
  const deadline = rt.options.now() + REASONING_PROBE_BUDGET_MS;
  const out = [...models];
  for (const index of reasoningProbeOrder(
    models.map((m) => m.id),
    priorityIds,
  )) {
    const remaining = deadline - rt.options.now();
    if (remaining <= 0) break;
    const model = models[index]!;
    try {
      const answer = await session.request(
        "session/set_config_option",
        { sessionId: target.sessionId, configId: target.configId, value: model.id },
        Math.min(remaining, rt.options.modelListTimeoutMs),
      );
      const levels = readThoughtLevels(answer);
      if (levels) {
        out[index] = {
          ...model,
          supportedReasoningEfforts: levels.efforts.map((level) => ({ reasoningEffort: level, description: `${model.displayName} (${level})` })),
          defaultReasoningEffort: levels.current ?? (levels.efforts.includes("medium") ? "medium" : levels.efforts[0]!),
        };
      }
    } catch (error) {
      rt.ctx.log(`model/list: reasoning probe for ${model.id} failed, skipped: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return out;
}

/**
 * ACP-native discovery (spec 20 §3.11 step 2), served from the 60 s cache when the same agent was
 * discovered less than 60 s ago on the bridge clock, else shared with a discovery of the same agent
 * still running ({@link sharedDiscovery}); a new result is cached, a failure is not.
 * @throws BridgeJsonRpcError as {@link withThrowawaySession}, to every caller sharing the discovery.
 */
export function discoverModels(rt: AcpBridgeRuntime, req: ModelListRequest): Promise<AcpModelListResult> {
  const key = discoveryCacheKey(req.spec, req.cwd, req.extras);
  return sharedDiscovery({ cache: rt.discoveryCache, inFlight: rt.discoveryInFlight }, key, rt.options.now, () => discoverModelsNow(rt, req));
}

async function discoverModelsNow(rt: AcpBridgeRuntime, req: ModelListRequest): Promise<AcpModelListResult> {
  return withThrowawaySession(rt, req, async (session) => {
    // Discovery's own session/new doubles as the declared-options read (spec 30 §6.4).
    const { options } = rememberSessionOptions(rt, req, session.result);
    const models = nativeModelsOf(session.result);
    if (models.length === 0) return withSessionOptions({ models: [syntheticModel()], selectedOnlyModels: [] }, options);
    const described = await probeReasoning(
      rt,
      session,
      models.map((m, i) => describe(m.id, m.name, i === 0)),
      req.extras.reasoningProbePriorityModelIds,
    );
    return withSessionOptions({ models: described, selectedOnlyModels: [] }, options);
  });
}
