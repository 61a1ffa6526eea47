/**
 * The CLI path of `model/list` (spec 20 §3.11 step 1, spec 30 §6.4): run the launch spec's
 * `<command> <modelCli.listArgs>` (no shell, `modelListTimeoutMs`, 1 MiB), parse one model per line,
 * and build the catalog: model families with reasoning levels (model-catalog.ts) or, for the
 * `cursor` dialect with `parameterizedModelPicker`, Cursor's parameterized catalog
 * (cursor-model-catalog.ts, our design). A missing command fails (`spawn <cmd> ENOENT`), sign-in
 * text fails with `authRequired`, other failures or nothing parsed fall back to the last catalog
 * read for the same command (`AcpBridgeRuntime.modelCatalogs`), else the synthetic model.
 *
 * Declared session options come from a fresh cached read, else a throwaway session of its own
 * (model-discovery.ts) opened concurrently with the list command; they are an addition, the list
 * is the answer. Also serves launch-time variant resolution ({@link cliModelCatalog}).
 */
import { execFile } from "node:child_process";
import { killAfter } from "../../bridge-kit/scheduler.js";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { buildAgentEnv } from "../agents/launch-args.js";
import { acpAgentLabel, type AcpLaunchSpec } from "../agents/launch-spec.js";
import { authRequiredError, isAuthRequiredText } from "../connection/recovery.js";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../../protocol/errors.js";
import { groupModelFamilies, readModelProviderOptions, splitPrimaryFamilies, type RawModel } from "../model-data/model-catalog.js";
import { freshSessionOptions, sessionOptionsCacheKey, type SessionOptionsCacheEntry } from "../model-data/model-session-options.js";
import { buildCursorParameterizedModelCatalog } from "../model-data/cursor-model-catalog.js";
import { rememberSessionOptions, withThrowawaySession } from "./model-discovery.js";
import { syntheticModel, withSessionOptions, type AcpModelListResult, type ModelListRequest } from "../model-data/model-list-result.js";

/** Output cap of the CLI list command, in bytes. */
export const MODEL_LIST_MAX_BUFFER_BYTES = 1024 * 1024;
/** The error text of a CLI that needs sign-in. */
export const NOT_AUTHENTICATED_MESSAGE = "ACP agent is not authenticated.";

/** Parses CLI lines `<id> - <Name>`, `- id`, `* id (…)` or a bare `provider/model` (spec 20 §3.11). */
export function parseModelListOutput(output: string): Array<{ id: string; name?: string }> {
  const out: Array<{ id: string; name?: string }> = [];
  const seen = new Set<string>();
  for (const rawLine of output.split(/\r?\n/)) {
    const line = rawLine.trim();
    const match = /^(?:[-*]\s+)?([A-Za-z0-9][\w./:[\]=,+-]*)(?:\s+-\s+(.+?)|\s+\((.*)\))?$/.exec(line);
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
    // modelListTimeoutMs on the bridge's scheduler: SIGTERM, as execFile's own timeout would send.
    const child = execFile(spec.command, listArgs, { cwd: spec.cwd, env, maxBuffer: MODEL_LIST_MAX_BUFFER_BYTES, windowsHide: true }, (error, stdout, stderr) => {
      stopTimer();
      resolve({ stdout: String(stdout), stderr: String(stderr), error: error as NodeJS.ErrnoException | null });
    });
    const stopTimer = killAfter(rt.options.scheduler, child, rt.options.modelListTimeoutMs);
  });
}

/** Runs the list command and parses its lines (none when it failed); throws for ENOENT and for sign-in text. */
async function readCliList(rt: AcpBridgeRuntime, spec: AcpLaunchSpec): Promise<RawModel[]> {
  const { stdout, stderr, error } = await runListCommand(rt, spec, spec.modelCli!.listArgs);
  if (error?.code === "ENOENT") throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `spawn ${spec.command} ENOENT`);
  if (isAuthRequiredText(`${stdout}\n${stderr}\n${error?.message ?? ""}`)) throw authRequiredError(NOT_AUTHENTICATED_MESSAGE);
  return error ? [] : parseModelListOutput(stdout);
}

/** The key of `rt.modelCatalogs`: the list command, marked when the catalog is Cursor's parameterized one. */
function cliCatalogCacheKey(req: ModelListRequest): string {
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
  const req: ModelListRequest = { spec, cwd: spec.cwd ?? rt.ctx.tempDir, extras: readModelProviderOptions(undefined), parameterizedCatalog: false };
  const cached = rt.modelCatalogs.get(cliCatalogCacheKey(req));
  if (cached) return cached;
  return cliCatalog(rt, req, await readCliList(rt, spec), undefined);
}

/**
 * The catalog of parsed CLI lines: Cursor's parameterized catalog (bridge-level `primaryModels`
 * first, the offered model ids when known) or the families split by `modelCli.primaryModels`.
 * Nothing parsed → the last catalog read for the same command, else the synthetic model.
 */
function cliCatalog(rt: AcpBridgeRuntime, req: ModelListRequest, raw: RawModel[], offeredModelIds: string[] | undefined): AcpModelListResult {
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
export async function listFromCli(rt: AcpBridgeRuntime, req: ModelListRequest): Promise<AcpModelListResult> {
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
async function readSessionOptionsForCli(rt: AcpBridgeRuntime, req: ModelListRequest, signal: AbortSignal): Promise<{ entry: SessionOptionsCacheEntry } | { failure: string }> {
  const cached = freshSessionOptions(rt.sessionOptionsCache, sessionOptionsCacheKey(req.spec, req.cwd), rt.options.now());
  if (cached) return { entry: cached };
  const guard = new AbortController();
  const onAbort = (): void => guard.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = rt.options.scheduler.schedule(rt.options.modelListTimeoutMs, () => {
    timedOut = true;
    guard.abort();
  });
  try {
    return { entry: await withThrowawaySession(rt, req, async (session) => rememberSessionOptions(rt, req, session.result), guard.signal) };
  } catch (error) {
    return { failure: timedOut ? `no answer within ${rt.options.modelListTimeoutMs} ms` : error instanceof Error ? error.message : String(error) };
  } finally {
    rt.options.scheduler.cancel(timer);
    signal.removeEventListener("abort", onAbort);
  }
}
