/**
 * `model/list` (spec 20 §3.11, spec 30 §6.4).
 *
 * 1. Launch spec with `modelCli.listArgs` → run `<command> <listArgs>` (no shell, 30 s, 1 MiB) and
 *    parse one model per line; a missing command fails (`spawn <cmd> ENOENT`); Cursor-style auth
 *    text fails with `authRequired`; other failures or nothing parsed → the last catalog read for
 *    the same command, else the synthetic model. The lines become model families with reasoning
 *    levels (model-catalog.ts), or, for the `cursor` dialect with `parameterizedModelPicker`,
 *    Cursor's parameterized catalog (cursor-model-catalog.ts, our design).
 * 2. No list command → ACP-native discovery through a throwaway agent (`initialize` +
 *    `session/new`, agent requests → -32601, always killed), cached 60 s per launch spec on
 *    `options.now` (model-discovery-cache.ts); a discovery failure fails the request (auth → `authRequired`
 *    with sign-in guidance); no models advertised → the synthetic model. Models of the `model`
 *    config option get per-model reasoning probes (`thought_level`; 5 s budget; a failed probe is
 *    logged and skipped), those named by `reasoningProbePriorityModelIds` first.
 * 3. No or invalid launch spec → the synthetic model (not an error, spec 20 §1.2).
 * 4. Overlays (spec 20 §3.11, native-reasoning.ts): `reasoningCli` puts its levels on every model,
 *    `nativeReasoning` on the models whose efforts are the single agent-managed `medium`.
 *
 * Declared session options (model-session-options.ts): a throwaway `session/new` yields the
 * agent's user-selectable options, attached as `sessionOptions` to every model (the synthetic one
 * too) and cached 60 s on `options.now`. Discovery's own session is the read; the CLI path reuses a
 * fresh cached read, else opens its own throwaway session concurrently with the list command. The
 * options are an addition there, the list is the answer: a failed or timed-out read is logged and
 * the models come back without `sessionOptions`. The CLI command, each discovery request and the
 * whole CLI-path options read wait at most the bridge option `modelListTimeoutMs` (30 s by default).
 *
 * Weaker than the reference: no reasoning probes on the CLI path (the reference's are not
 * specified there either; Cursor's sessions offer no `thought_level` option); discovery of a
 * picker-enabled agent lists its parameterized ids as they are rather than re-keyed to bases.
 */
import { execFile } from "node:child_process";
import type { AcpBridgeRuntime } from "./bridge-runtime.js";
import { AcpAgentTimeoutError, AcpClientReplyError, connectAcpAgent } from "./connection.js";
import { buildAgentEnv } from "./launch-args.js";
import { ACP_REASONING_LEVELS, acpAgentLabel, acpLaunchSpecSchema, type AcpLaunchSpec, type AcpReasoningLevel } from "./launch-spec.js";
import { authRequiredError, describeAcpSignIn, isAuthRequiredText, readAuthMethods, toRequestError, type AcpAuthMethodInfo } from "./recovery.js";
import { ACP_CLIENT_INFO, ACP_PROTOCOL_VERSION, DISCOVERY_CLIENT_CAPABILITIES, headlessAuthMethod, type AcpAgentMethod, type AcpAgentMethodParams } from "./acp-client.js";
import { ACP_DEFAULT_MODEL_ID } from "./launch-args.js";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/index.js";
import { groupModelFamilies, readModelProviderOptions, splitPrimaryFamilies, type AcpModelProviderOptions, type ModelFamily, type RawModel } from "./model-catalog.js";
import { discoveryCacheKey, freshDiscovery } from "./model-discovery-cache.js";
import { freshSessionOptions, sessionOptionsCacheKey, sessionOptionsEntry, type DeclaredSessionOption, type SessionOptionsCacheEntry } from "./model-session-options.js";
import { buildCursorParameterizedModelCatalog, parameterizedBase, withParameterizedPickerMeta } from "./cursor-model-catalog.js";
import { selectAcpDialect } from "./dialects/index.js";
import { overlayReasoningEfforts } from "./native-reasoning.js";

/** Default timeout of the CLI list command and of each discovery request, in ms (bridge option `modelListTimeoutMs`). */
export const MODEL_LIST_TIMEOUT_MS = 30_000;
/** Output cap of the CLI list command, in bytes. */
export const MODEL_LIST_MAX_BUFFER_BYTES = 1024 * 1024;
/** The error text of a discovery that timed out (spec 30 §6.4). */
export const DISCOVERY_TIMEOUT_MESSAGE = "The agent did not answer within 30 seconds while bb asked it for its models";
/** The error text of a CLI that needs sign-in. */
export const NOT_AUTHENTICATED_MESSAGE = "ACP agent is not authenticated.";

/** One model of the result (spec 20 §3.11). */
export interface AcpModelDescriptor {
  id: string;
  model: string;
  displayName: string;
  description: string;
  supportedReasoningEfforts: Array<{ reasoningEffort: string; description: string }>;
  defaultReasoningEffort: string;
  isDefault: boolean;
}

/** A listed model with the agent's declared session options attached (spec 30 §6.4). */
export type AcpListedModel = (AcpModelDescriptor | ModelFamily) & { sessionOptions?: DeclaredSessionOption[] };

/** `{models, selectedOnlyModels}`. */
export interface AcpModelListResult {
  models: AcpListedModel[];
  selectedOnlyModels: AcpListedModel[];
}

/** The synthetic entry used when nothing better is known (spec 20 §3.11 step 3). */
export function syntheticModel(): AcpModelDescriptor {
  return {
    id: ACP_DEFAULT_MODEL_ID,
    model: ACP_DEFAULT_MODEL_ID,
    displayName: "Agent default",
    description: "Model selection is managed by the connected ACP agent.",
    supportedReasoningEfforts: [{ reasoningEffort: "medium", description: "Reasoning effort is managed by the connected ACP agent." }],
    defaultReasoningEffort: "medium",
    isDefault: true,
  };
}

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

/** Parses CLI lines `<id> - <Name>`, `- id`, `* id (…)` or a bare `provider/model` (spec 20 §3.11). */
export function parseModelListOutput(output: string): Array<{ id: string; name?: string }> {
  const out: Array<{ id: string; name?: string }> = [];
  const seen = new Set<string>();
  for (const rawLine of output.split(/\r?\n/)) {
    const line = rawLine.trim();
    const match = /^(?:[-*]\s+)?([A-Za-z0-9][\w.\/:\[\]=,+-]*)(?:\s+-\s+(.+?)|\s+\((.*)\))?$/.exec(line);
    if (!match) continue;
    const id = match[1]!;
    if (seen.has(id)) continue;
    seen.add(id);
    const name = match[2] ?? match[3];
    out.push(name ? { id, name } : { id });
  }
  return out;
}

function runListCommand(rt: AcpBridgeRuntime, spec: AcpLaunchSpec, listArgs: string[]): Promise<{ stdout: string; stderr: string; error: NodeJS.ErrnoException | null }> {
  const env = buildAgentEnv({ inherited: rt.ctx.env, sanitize: rt.options.sanitizeEnv, specEnv: spec.env });
  return new Promise((resolve) => {
    execFile(
      spec.command,
      listArgs,
      { cwd: spec.cwd, env, timeout: rt.options.modelListTimeoutMs, maxBuffer: MODEL_LIST_MAX_BUFFER_BYTES, windowsHide: true },
      (error, stdout, stderr) => resolve({ stdout: String(stdout), stderr: String(stderr), error: error as NodeJS.ErrnoException | null }),
    );
  });
}

/** One `model/list` request, resolved once: the launch spec, the cwd and the model options beside the spec. */
interface ListRequest {
  spec: AcpLaunchSpec;
  cwd: string;
  extras: AcpModelProviderOptions;
  /** Cursor's parameterized catalog: the `cursor` dialect with `parameterizedModelPicker` (spec 30 §6.4). */
  parameterizedCatalog: boolean;
}

/** Runs the list command and parses its lines (none when it failed); throws for ENOENT and for sign-in text. */
async function readCliList(rt: AcpBridgeRuntime, spec: AcpLaunchSpec): Promise<RawModel[]> {
  const { stdout, stderr, error } = await runListCommand(rt, spec, spec.modelCli!.listArgs);
  if (error?.code === "ENOENT") throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `spawn ${spec.command} ENOENT`);
  if (isAuthRequiredText(`${stdout}\n${stderr}\n${error?.message ?? ""}`)) throw authRequiredError(NOT_AUTHENTICATED_MESSAGE);
  return error ? [] : parseModelListOutput(stdout);
}

/** The key of `rt.modelCatalogs`: the list command, marked when the catalog is Cursor's parameterized one. */
function cliCatalogCacheKey(req: ListRequest): string {
  return JSON.stringify([req.spec.command, ...req.spec.modelCli!.listArgs, ...(req.parameterizedCatalog ? ["#parameterized"] : [])]);
}

/**
 * The CLI catalog of `spec` for launch-time variant resolution (spec 20 §2.1): the one cached by
 * the last `model/list` for the same list command, else the list command run now (cached like a
 * `model/list` read; nothing parsed → the synthetic model). Never the parameterized catalog: with
 * the picker, selection is native.
 * @throws BridgeJsonRpcError as `model/list` does for a missing command or sign-in text.
 */
export async function cliModelCatalog(rt: AcpBridgeRuntime, spec: AcpLaunchSpec & { modelCli: NonNullable<AcpLaunchSpec["modelCli"]> }): Promise<AcpModelListResult> {
  const req: ListRequest = { spec, cwd: spec.cwd ?? rt.ctx.tempDir, extras: readModelProviderOptions(undefined), parameterizedCatalog: false };
  const cached = rt.modelCatalogs.get(cliCatalogCacheKey(req));
  if (cached) return cached;
  return cliCatalog(rt, req, await readCliList(rt, spec), undefined);
}

/**
 * The catalog of parsed CLI lines: Cursor's parameterized catalog (bridge-level `primaryModels`
 * first, the offered model ids when known) or the families split by `modelCli.primaryModels`.
 * Nothing parsed → the last catalog read for the same command, else the synthetic model.
 */
function cliCatalog(rt: AcpBridgeRuntime, req: ListRequest, raw: RawModel[], offeredModelIds: string[] | undefined): AcpModelListResult {
  const modelCli = req.spec.modelCli!;
  const cacheKey = cliCatalogCacheKey(req);
  if (raw.length === 0) return rt.modelCatalogs.get(cacheKey) ?? { models: [syntheticModel()], selectedOnlyModels: [] };
  const catalog = req.parameterizedCatalog
    ? buildCursorParameterizedModelCatalog({ models: raw, primaryModels: req.extras.primaryModels ?? modelCli.primaryModels, offeredModelIds })
    : splitPrimaryFamilies(groupModelFamilies(raw), modelCli.primaryModels);
  rt.modelCatalogs.set(cacheKey, catalog);
  return catalog;
}

/**
 * The CLI path (spec 30 §6.4): the list command and, at the same time, the declared-options read
 * (a fresh cached one, else a throwaway session of its own), so a stuck agent costs one timeout,
 * not two. The options are an addition, the list is the answer: a failed or timed-out read is
 * logged and the models come back without `sessionOptions`. A failing list command aborts the
 * options session (its agent is killed before the error is answered; nothing is logged).
 */
async function listFromCli(rt: AcpBridgeRuntime, req: ListRequest): Promise<AcpModelListResult> {
  const abort = new AbortController();
  const optionsRead = readSessionOptionsForCli(rt, req, abort.signal);
  let raw: RawModel[];
  try {
    raw = await readCliList(rt, req.spec);
  } catch (error) {
    abort.abort();
    await optionsRead;
    throw error;
  }
  const read = await optionsRead;
  if ("failure" in read) rt.ctx.log(`model/list: could not read the session options of ${acpAgentLabel(req.spec)} (${read.failure}); the models are listed without them`);
  const entry = "entry" in read ? read.entry : undefined;
  return withSessionOptions(cliCatalog(rt, req, raw, entry?.offeredModelIds), entry?.options);
}

/**
 * The declared options for a CLI catalog: the cache entry of the same launch spec when fresher than
 * 60 s, else a throwaway session of its own (cached 60 s). The whole read is bounded by one
 * `modelListTimeoutMs`; `signal` aborts it. Never rejects: a failure resolves `{failure: reason}`.
 */
async function readSessionOptionsForCli(rt: AcpBridgeRuntime, req: ListRequest, signal: AbortSignal): Promise<{ entry: SessionOptionsCacheEntry } | { failure: string }> {
  const cached = freshSessionOptions(rt.sessionOptionsCache, sessionOptionsCacheKey(req.spec, req.cwd), rt.options.now());
  if (cached) return { entry: cached };
  const guard = new AbortController();
  const onAbort = (): void => guard.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    guard.abort();
  }, rt.options.modelListTimeoutMs);
  try {
    return { entry: await withThrowawaySession(rt, req, async (session) => rememberSessionOptions(rt, req, session.result), guard.signal) };
  } catch (error) {
    return { failure: timedOut ? `no answer within ${rt.options.modelListTimeoutMs} ms` : error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

function nativeModelsOf(result: unknown): Array<{ id: string; name?: string }> {
  const r = (result && typeof result === "object" ? result : {}) as { configOptions?: unknown; models?: unknown };
  if (Array.isArray(r.configOptions)) {
    const option = r.configOptions.find((o) => o && typeof o === "object" && ((o as { category?: unknown }).category === "model" || (o as { id?: unknown }).id === "model")) as
      | { options?: unknown }
      | undefined;
    if (option && Array.isArray(option.options)) {
      const out = option.options
        .map((o) => (o && typeof o === "object" ? (o as { value?: unknown; name?: unknown }) : {}))
        .filter((o): o is { value: string; name?: unknown } => typeof o.value === "string")
        .map((o) => (typeof o.name === "string" ? { id: o.value, name: o.name } : { id: o.value }));
      if (out.length) return out;
    }
  }
  const models = r.models as { availableModels?: unknown } | undefined;
  if (models && Array.isArray(models.availableModels)) {
    return models.availableModels
      .map((m) => (m && typeof m === "object" ? (m as { modelId?: unknown; name?: unknown }) : {}))
      .filter((m): m is { modelId: string; name?: unknown } => typeof m.modelId === "string")
      .map((m) => (typeof m.name === "string" ? { id: m.modelId, name: m.name } : { id: m.modelId }));
  }
  return [];
}

/** A throwaway agent session: the `session/new` result and a way to ask the live agent more. */
interface ThrowawaySession {
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
async function withThrowawaySession<T>(rt: AcpBridgeRuntime, req: ListRequest, use: (session: ThrowawaySession) => Promise<T>, signal?: AbortSignal): Promise<T> {
  const { spec, cwd } = req;
  const label = acpAgentLabel(spec);
  const timeoutMs = rt.options.modelListTimeoutMs;
  const env = buildAgentEnv({ inherited: rt.ctx.env, sanitize: rt.options.sanitizeEnv, specEnv: spec.env });
  const connection = connectAcpAgent({
    launch: { command: spec.command, args: spec.args, env, cwd: spec.cwd ?? cwd },
    label,
    maxLineBytes: rt.options.maxAgentLineBytes,
    ...(rt.options.spawn ? { spawn: rt.options.spawn } : {}),
    onSpawned: (child) => rt.options.recordChild(child, null),
    onNote: (text) => rt.ctx.log(text),
    onNotification: () => {},
    onRequest: async (method) => {
      throw new AcpClientReplyError(-32601, `Unsupported ACP client method "${method}"`);
    },
    onExit: () => {},
  });
  const stop = (): void => void connection.kill();
  if (signal?.aborted) stop();
  else signal?.addEventListener("abort", stop, { once: true });
  let authMethods: AcpAuthMethodInfo[] = [];
  try {
    const clientCapabilities = withParameterizedPickerMeta(DISCOVERY_CLIENT_CAPABILITIES, req.extras.parameterizedModelPicker);
    const init = (await connection.request("initialize", { protocolVersion: ACP_PROTOCOL_VERSION, clientInfo: ACP_CLIENT_INFO, clientCapabilities }, { timeoutMs })) as { authMethods?: unknown } | null;
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

function withSessionOptions(list: AcpModelListResult, sessionOptions: DeclaredSessionOption[] | undefined): AcpModelListResult {
  if (!sessionOptions) return list;
  const attach = (m: AcpListedModel): AcpListedModel => ({ ...m, sessionOptions });
  return { models: list.models.map(attach), selectedOnlyModels: list.selectedOnlyModels.map(attach) };
}

/** Caches what a `session/new` result declared (options and offered model ids, spec 30 §6.4) and returns it. */
function rememberSessionOptions(rt: AcpBridgeRuntime, req: ListRequest, result: unknown): SessionOptionsCacheEntry {
  const entry = sessionOptionsEntry(result, rt.options.now());
  rt.sessionOptionsCache.set(sessionOptionsCacheKey(req.spec, req.cwd), entry);
  return entry;
}

/** The model config option of a `session/new` result: its id and the session id, when present. */
function modelConfigOf(result: unknown): { configId: string; sessionId: string } | null {
  const r = (result && typeof result === "object" ? result : {}) as { sessionId?: unknown; configOptions?: unknown };
  if (typeof r.sessionId !== "string" || !Array.isArray(r.configOptions)) return null;
  const option = r.configOptions.find((o) => o && typeof o === "object" && ((o as { category?: unknown }).category === "model" || (o as { id?: unknown }).id === "model")) as { id?: unknown } | undefined;
  return option && typeof option.id === "string" ? { configId: option.id, sessionId: r.sessionId } : null;
}

/** Reads the `thought_level` config option (category or id) of a config-option answer as bb efforts. */
export function readThoughtLevels(result: unknown): { efforts: AcpReasoningLevel[]; current: AcpReasoningLevel | null } | null {
  const r = (result && typeof result === "object" ? result : {}) as { configOptions?: unknown };
  const option = (Array.isArray(r.configOptions) ? r.configOptions : []).find(
    (o) => o && typeof o === "object" && ((o as { category?: unknown }).category === "thought_level" || (o as { id?: unknown }).id === "thought_level"),
  ) as { options?: unknown; currentValue?: unknown } | undefined;
  if (!option) return null;
  const isLevel = (v: unknown): v is AcpReasoningLevel => typeof v === "string" && (ACP_REASONING_LEVELS as readonly string[]).includes(v);
  const values = (Array.isArray(option.options) ? option.options : []).map((o) => (o && typeof o === "object" ? (o as { value?: unknown }).value : undefined));
  const efforts = ACP_REASONING_LEVELS.filter((level) => values.includes(level));
  if (efforts.length === 0) return null;
  return { efforts, current: isLevel(option.currentValue) && efforts.includes(option.currentValue) ? option.currentValue : null };
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
  for (const index of reasoningProbeOrder(models.map((m) => m.id), priorityIds)) {
    const remaining = deadline - rt.options.now();
    if (remaining <= 0) break;
    const model = models[index]!;
    try {
      const answer = await session.request("session/set_config_option", { sessionId: target.sessionId, configId: target.configId, value: model.id }, Math.min(remaining, rt.options.modelListTimeoutMs));
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
 * ACP-native discovery (spec 20 §3.11 step 2), served from {@link freshDiscovery} when the same
 * agent was discovered less than 60 s ago on the bridge clock; a new result is cached, a failure is not.
 */
async function discoverModels(rt: AcpBridgeRuntime, req: ListRequest): Promise<AcpModelListResult> {
  const key = discoveryCacheKey(req.spec, req.cwd, req.extras);
  const cached = freshDiscovery(rt.discoveryCache, key, rt.options.now);
  if (cached) return cached;
  const list = await discoverModelsNow(rt, req);
  rt.discoveryCache.set(key, { readAt: rt.options.now(), list });
  return list;
}

async function discoverModelsNow(rt: AcpBridgeRuntime, req: ListRequest): Promise<AcpModelListResult> {
  return withThrowawaySession(rt, req, async (session) => {
    // Discovery's own session/new doubles as the declared-options read (spec 30 §6.4).
    const { options } = rememberSessionOptions(rt, req, session.result);
    const models = nativeModelsOf(session.result);
    if (models.length === 0) return withSessionOptions({ models: [syntheticModel()], selectedOnlyModels: [] }, options);
    const described = await probeReasoning(rt, session, models.map((m, i) => describe(m.id, m.name, i === 0)), req.extras.reasoningProbePriorityModelIds);
    return withSessionOptions({ models: described, selectedOnlyModels: [] }, options);
  });
}

/**
 * Serves `model/list {providerOptions.acpLaunchSpec?, cwd?}` (see module doc); the model options
 * beside the spec (`acpDialect`, `parameterizedModelPicker`, `primaryModels`,
 * `reasoningProbePriorityModelIds`) are read leniently. Every returned model carries the agent's
 * declared `sessionOptions` when they could be read (spec 30 §6.4).
 * @throws BridgeJsonRpcError -32000 (`spawn <cmd> ENOENT`, discovery failures including the
 *   timeout message), with `data.recovery` `authRequired` and sign-in guidance for sign-in failures.
 */
export async function listModels(rt: AcpBridgeRuntime, params: { providerOptions?: Record<string, unknown> | undefined; cwd?: string | undefined }): Promise<AcpModelListResult> {
  const parsed = acpLaunchSpecSchema.safeParse(params.providerOptions?.acpLaunchSpec);
  if (!parsed.success) return { models: [syntheticModel()], selectedOnlyModels: [] };
  const spec = parsed.data;
  const extras = readModelProviderOptions(params.providerOptions);
  const dialect = selectAcpDialect({ explicit: extras.acpDialect, command: spec.command }, rt.options.dialects);
  const req: ListRequest = { spec, cwd: params.cwd ?? rt.ctx.tempDir, extras, parameterizedCatalog: dialect.id === "cursor" && extras.parameterizedModelPicker };
  const list = spec.modelCli ? await listFromCli(rt, req) : await discoverModels(rt, req);
  return overlayReasoningEfforts(list, spec);
}
