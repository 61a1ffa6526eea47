/**
 * Session construction for `thread/start`, `thread/resume` and `thread/fork`, and the rebuild of a
 * live session (spec 20 §2.3, §3.10; spec 30 §6.3).
 *
 * Order on success: `thread/identity` → `[session.reset]` → session snapshot (and grok's fresh
 * `contextWindow`) → deferred warnings → restored usage → updates that arrived during setup →
 * the command result. Any failure kills the agent, unregisters, and rethrows as a request error
 * (`authRequired` hint when it was an auth failure).
 */
import { isAbsolute, resolve } from "node:path";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../../protocol/errors.js";
import type { ExecutionOptions } from "../../protocol/methods.js";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { handleClientRequest } from "../interaction/client-requests.js";
import { AcpAgentRequestError, connectAcpAgent, type AgentExitInfo } from "../connection/connection.js";
import { selectAcpDialect } from "../dialects/index.js";
import { agentLaunch, buildAgentEnv, type AcpPermissionMode } from "../agents/launch-args.js";
import { acpAgentLabel, parseAcpLaunchSpec, type AcpLaunchSpec } from "../agents/launch-spec.js";
import { describeAcpSignIn, isAuthRequiredText, readAuthMethods, toRequestError, type AcpAuthMethodInfo } from "../connection/recovery.js";
import { emitDeltas, isSessionRestorable, moveSessionPhase, revokeApprovals, type AcpSession } from "../state/session.js";
import { installCursorMcpApproval } from "../interaction/cursor-mcp-approval.js";
import { handleAgentExit, handleSessionUpdate } from "./session-events.js";
import { noteAgentActivity } from "./agent-turns.js";
import { composeInstructions } from "./instructions.js";
import { createAcpTranslator, readSessionNotification, type InjectedToolDefinition } from "../translate/index.js";
import { stopSession } from "./stop.js";
import { mcpServersFor } from "../dynamic-tools/calls.js";
import { readSessionOptionState } from "../model-data/session-settings.js";
import { noteNativeSettingsUpdate, parameterizedPickerEnabled } from "../models/model-selection.js";
import { resolveLaunchArgs, selectSetupSettings } from "../models/execution-settings.js";
import { withParameterizedPickerMeta } from "../model-data/cursor-model-catalog.js";

// The client identity, capabilities and headless auth choice live in acp-client.ts (shared with
// discovery and the probe); re-exported for the modules and tests that know them from here.
export { ACP_CLIENT_INFO, ACP_PROTOCOL_VERSION, SESSION_CLIENT_CAPABILITIES, headlessAuthMethod } from "../connection/acp-client.js";
import { ACP_CLIENT_INFO, ACP_PROTOCOL_VERSION, SESSION_CLIENT_CAPABILITIES, headlessAuthMethod } from "../connection/acp-client.js";
/** Fork capability the bridge reports in its handshake: tip forks only (spec 20 §1.3, §3.10). */
export const ACP_FORK_CAPABILITY = "tip";

/** What kind of construction (spec 20 §2.3 step 6). */
export type AcpConstructMode =
  { kind: "start" } | { kind: "resume"; providerThreadId: string } | { kind: "fork"; sourceProviderThreadId: string; sourceProviderCheckpointId?: string | null | undefined };

/** The request facts a construction needs (from `thread/start|resume|fork` params). */
export interface AcpConstructRequest {
  threadId: string;
  cwd: string;
  options: ExecutionOptions | undefined;
  dynamicTools?: unknown[] | undefined;
  mode: AcpConstructMode;
}

/** The command result `{providerThreadId, sessionRestorable}`. */
export interface AcpConstructResult {
  providerThreadId: string;
  sessionRestorable: boolean;
}

/** The launch spec of a request, from `options.providerOptions.acpLaunchSpec`; -32602 naming it when bad. */
export function launchSpecOf(options: ExecutionOptions | undefined): AcpLaunchSpec {
  try {
    return parseAcpLaunchSpec(options?.providerOptions?.acpLaunchSpec, "options.providerOptions.acpLaunchSpec");
  } catch (error) {
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.invalidParams, (error as Error).message);
  }
}

/** `permissionMode` as a supported mode; `auto` (and anything unknown) fails (spec 30 §6.2). */
export function permissionModeOf(options: ExecutionOptions | undefined): AcpPermissionMode {
  const mode = options?.permissionMode ?? "accept-edits";
  if (mode === "accept-edits" || mode === "full") return mode;
  throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `ACP does not support permission mode "${mode}".`);
}

/** `[cwd, ...additionalWorkspaceWriteRoots]`, resolved against cwd (spec 20 §2.1). */
export function writeRootsOf(cwd: string, options: ExecutionOptions | undefined): string[] {
  const extra = options?.providerOptions?.additionalWorkspaceWriteRoots;
  const roots = Array.isArray(extra) ? extra.filter((r): r is string => typeof r === "string" && r.length > 0) : [];
  return [cwd, ...roots].map((root) => (isAbsolute(root) ? root : resolve(cwd, root)));
}

function injectedToolsOf(dynamicTools: unknown[] | undefined): InjectedToolDefinition[] {
  const out: InjectedToolDefinition[] = [];
  for (const tool of dynamicTools ?? []) {
    if (tool && typeof tool === "object" && typeof (tool as { name?: unknown }).name === "string") {
      const t = tool as { name: string; presentation?: InjectedToolDefinition["presentation"] };
      out.push({ name: t.name, ...(t.presentation ? { presentation: t.presentation } : {}) });
    }
  }
  return out;
}

function sessionIdOf(result: unknown, method: string, label: string): string {
  const id = result && typeof result === "object" ? (result as { sessionId?: unknown }).sessionId : undefined;
  if (typeof id !== "string" || id.length === 0) {
    throw new Error(`ACP agent "${label}" returned an unexpected ${method} result: sessionId missing`);
  }
  return id;
}

/** Reads the `initialize` result; throws on a protocol-version mismatch (spec 30 §6.3). */
function readInitialize(result: unknown, label: string): { facts: AcpSession["facts"]; authMethods: AcpAuthMethodInfo[] } {
  const r = (result && typeof result === "object" ? result : {}) as Record<string, unknown>;
  if (r.protocolVersion !== ACP_PROTOCOL_VERSION) {
    throw new Error(`ACP agent "${label}" speaks ACP protocol version ${JSON.stringify(r.protocolVersion)}; the bridge needs ${ACP_PROTOCOL_VERSION}`);
  }
  const caps = (r.agentCapabilities && typeof r.agentCapabilities === "object" ? r.agentCapabilities : {}) as Record<string, unknown>;
  const sessionCaps = (caps.sessionCapabilities && typeof caps.sessionCapabilities === "object" ? caps.sessionCapabilities : {}) as Record<string, unknown>;
  const promptCaps = (caps.promptCapabilities && typeof caps.promptCapabilities === "object" ? caps.promptCapabilities : {}) as Record<string, unknown>;
  return {
    facts: {
      loadSession: caps.loadSession === true,
      resume: sessionCaps.resume !== undefined && sessionCaps.resume !== null,
      fork: sessionCaps.fork !== undefined && sessionCaps.fork !== null,
      image: promptCaps.image === true,
    },
    authMethods: readAuthMethods(r.authMethods),
  };
}

/** A fresh session record of `thread`, before its agent answered anything. */
function newSessionRecord(
  req: AcpConstructRequest,
  parts: Pick<AcpSession, "label" | "spec" | "dialect" | "translator" | "connection">,
  permissionMode: AcpPermissionMode,
  cwd: string,
  envVars: Record<string, string>,
): AcpSession {
  return {
    threadId: req.threadId,
    ...parts,
    facts: { loadSession: false, resume: false, fork: false, image: false },
    settings: { permissionMode, writeRoots: writeRootsOf(req.cwd, req.options), cwd, model: req.options?.model, reasoningLevel: req.options?.reasoningLevel, envVars },
    origin: { cwd: req.cwd, options: req.options, dynamicTools: req.dynamicTools },
    providerThreadId: null,
    phase: "active",
    editBaselines: new Map(),
    prompt: null,
    steers: [],
    pending: new Set(),
    pendingInstructions: null,
    deferred: [],
    approvals: [],
    optionState: { modes: null, config: new Map() },
    agentCommands: new Set(),
  };
}

/** The session being set up, its agent's environment and launch, and the warnings so far. */
interface LaunchedSession {
  session: AcpSession;
  env: Record<string, string>;
  launch: ReturnType<typeof agentLaunch>;
  warnings: string[];
}

/** Resolves the launch, spawns the agent and registers the session as being set up. */
async function launchSession(rt: AcpBridgeRuntime, req: AcpConstructRequest, spec: AcpLaunchSpec, permissionMode: AcpPermissionMode): Promise<LaunchedSession> {
  const label = acpAgentLabel(spec);
  const explicitDialect = req.options?.providerOptions?.acpDialect;
  const dialect = selectAcpDialect({ explicit: typeof explicitDialect === "string" ? explicitDialect : undefined, command: spec.command }, rt.options.dialects);
  const translator = createAcpTranslator({ threadId: req.threadId, dialect, now: rt.options.now, injectedTools: injectedToolsOf(req.dynamicTools) });
  const launchArgs = await resolveLaunchArgs(rt, spec, req.options, permissionMode);
  const envVars = req.options?.envVars ?? {};
  const env = buildAgentEnv({
    inherited: rt.ctx.env,
    sanitize: rt.options.sanitizeEnv,
    specEnv: spec.env,
    envVars,
    extra: dialect.childEnv,
  });
  const launch = agentLaunch(spec, launchArgs.args, env, req.cwd);

  // The connection's callbacks need the session and the session needs the connection.
  const holder: { session?: AcpSession } = {};
  const connection = connectAcpAgent({
    launch,
    label,
    maxLineBytes: rt.options.maxAgentLineBytes,
    scheduler: rt.options.scheduler,
    ...(rt.options.spawn ? { spawn: rt.options.spawn } : {}),
    onSpawned: (child) => rt.options.recordChild(child, req.threadId),
    onNote: (text) => rt.ctx.log(text),
    onNotification: (method, params) => {
      if (!holder.session) return;
      // A notification the bridge has no translation for is counted, never dropped (issue 41).
      if (method !== "session/update") return emitDeltas(rt.ctx.io, holder.session, holder.session.translator.unhandled(method, params));
      // Read once here; the native-settings tracker, the session and the translator share it.
      const notification = readSessionNotification(params);
      if (notification === undefined) return;
      noteNativeSettingsUpdate(holder.session, notification);
      handleSessionUpdate(rt, holder.session, notification);
    },
    onRequest: (method, params, answerWritten) => handleClientRequest(rt, holder.session!, method, params, { noteAgentActivity: () => noteAgentActivity(rt, holder.session!), answerWritten }),
    onExit: (exit: AgentExitInfo) => {
      if (holder.session) handleAgentExit(rt, holder.session, exit);
    },
  });
  const session = newSessionRecord(req, { label, spec, dialect, translator, connection }, permissionMode, launch.cwd, envVars);
  holder.session = session;
  rt.settingUp.set(req.threadId, session);
  return { session, env, launch, warnings: [...launchArgs.warnings] };
}

/** `initialize`: the agent's facts and auth methods (spec 20 §2.1). */
async function initializeAgent(rt: AcpBridgeRuntime, session: AcpSession, req: AcpConstructRequest): Promise<AcpAuthMethodInfo[]> {
  const init = await session.connection.request(
    "initialize",
    {
      protocolVersion: ACP_PROTOCOL_VERSION,
      clientInfo: ACP_CLIENT_INFO,
      clientCapabilities: withParameterizedPickerMeta(SESSION_CLIENT_CAPABILITIES, parameterizedPickerEnabled(req.options?.providerOptions)),
    },
    { timeoutMs: rt.options.initializeTimeoutMs },
  );
  const initFacts = readInitialize(init, session.label);
  session.facts = initFacts.facts;
  return initFacts.authMethods;
}

/**
 * Opens the agent session the request asks for: a fork, a restore (falling back to a fresh
 * session when the agent cannot restore it, with a warning), or a new one.
 */
async function openAgentSession(
  rt: AcpBridgeRuntime,
  launched: LaunchedSession,
  req: AcpConstructRequest,
  mcpServers: Awaited<ReturnType<typeof mcpServersFor>>,
): Promise<{ result: unknown; restored: boolean }> {
  const { session, launch, warnings } = launched;
  const { connection, label, spec } = session;
  const setupTimeout = { timeoutMs: rt.options.sessionSetupTimeoutMs };
  let result: unknown;
  let restored = false;
  if (req.mode.kind === "fork") {
    // A fork replays history, also while its request is out (opencode streams it before the fork answer).
    moveSessionPhase(session, "replaying");
    if (!session.facts.fork) throw new Error(`ACP agent "${label}" does not advertise session/fork support.`);
    const source = req.mode.sourceProviderThreadId;
    result = await connection.request("session/fork", { sessionId: source, cwd: launch.cwd, mcpServers }, setupTimeout);
    const id = sessionIdOf(result, "session/fork", label);
    const live = [...rt.sessions.values()].some((s) => s.providerThreadId === id);
    if (id === source || live) throw new Error(`ACP agent "${label}" returned a fork id that is not a new session (${id})`);
    session.providerThreadId = id;
    restored = true;
  } else if (req.mode.kind === "resume" && (session.facts.resume || session.facts.loadSession)) {
    const method = session.facts.resume ? "session/resume" : "session/load";
    session.providerThreadId = req.mode.providerThreadId;
    moveSessionPhase(session, "restoring");
    try {
      result = await connection.request(method, { sessionId: req.mode.providerThreadId, cwd: launch.cwd, mcpServers }, setupTimeout);
      restored = true;
    } catch (error) {
      // An auth failure is rethrown (spec 30 §4); other failures fall through to a fresh session.
      if (isAuthRequiredText(error instanceof Error ? error.message : String(error))) throw error;
      if (!(error instanceof AcpAgentRequestError)) throw error;
      session.providerThreadId = null;
    } finally {
      if (session.phase === "restoring") moveSessionPhase(session, restored ? "replaying" : "active");
    }
  }
  if (!restored) {
    result = await connection.request("session/new", { cwd: launch.cwd, mcpServers }, setupTimeout);
    session.providerThreadId = sessionIdOf(result, "session/new", label);
    session.pendingInstructions = composeInstructions(req.options?.instructions, rt.skills);
    if (req.mode.kind === "resume") {
      // Named by its display name: the command line differs wherever the agent is installed
      // (and under replay), and a warning the user reads must not.
      warnings.push(`${spec.displayName} could not restore the previous session; continuing in a fresh session without in-agent history.`);
    }
  }
  return { result, restored };
}

/** The session is live: registered, its identity and setup deltas sent, deferred deltas flushed. */
function publishSession(rt: AcpBridgeRuntime, session: AcpSession, req: AcpConstructRequest, opened: { result: unknown; restored: boolean }, warnings: string[]): AcpConstructResult {
  const io = rt.ctx.io;
  const { translator } = session;
  const { result, restored } = opened;
  const providerThreadId = session.providerThreadId!;
  rt.settingUp.delete(req.threadId);
  rt.sessions.set(req.threadId, session);
  const deferred = session.deferred ?? [];
  session.deferred = null;
  io.notify("thread/identity", { threadId: req.threadId, providerThreadId, sessionRestorable: isSessionRestorable(session) });
  emitDeltas(io, session, [{ kind: "session.reset" }]);
  emitDeltas(io, session, translator.sessionSetup(result ?? null, { restored }));
  for (const summary of warnings) emitDeltas(io, session, translator.warning({ summary }));
  if (restored) emitDeltas(io, session, translator.restoreSettled());
  emitDeltas(io, session, deferred);
  return { providerThreadId, sessionRestorable: isSessionRestorable(session) };
}

/**
 * Builds a session for `req` (spec 20 §2.3): stops an existing session of the thread first, spawns
 * the agent, `initialize`, optional `authenticate`, then `session/fork|resume|load|new`, registers it
 * and emits identity and the post-identity deltas. Resolves with the command result.
 * @throws BridgeJsonRpcError -32602 (bad launch spec), -32003 (fork checkpoint), -32000 (anything
 *   else, with `data.recovery` `authRequired` for auth failures).
 */
export async function constructSession(rt: AcpBridgeRuntime, req: AcpConstructRequest): Promise<AcpConstructResult> {
  if (req.mode.kind === "fork" && req.mode.sourceProviderCheckpointId) {
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.forkCheckpointUnsupported, "ACP agents can only fork at the tip of a session");
  }
  const spec = launchSpecOf(req.options);
  const permissionMode = permissionModeOf(req.options);
  const existing = rt.sessions.get(req.threadId);
  if (existing) await stopSession(rt, existing, "interrupt");

  const launched = await launchSession(rt, req, spec, permissionMode);
  const { session, env, launch } = launched;
  let authMethods: AcpAuthMethodInfo[] = [];
  try {
    authMethods = await initializeAgent(rt, session, req);
    const authMethod = headlessAuthMethod(authMethods, env);
    if (authMethod) {
      await session.connection.request("authenticate", { methodId: authMethod, _meta: { headless: true } }, { timeoutMs: rt.options.authenticateTimeoutMs });
    }
    const mcpServers = await mcpServersFor(rt, session, req.dynamicTools);
    for (const server of mcpServers) {
      const approval = await installCursorMcpApproval({ agentCommand: spec.command, cwd: launch.cwd, server, env: rt.ctx.env, scheduler: rt.options.scheduler });
      if (approval) session.approvals.push(approval);
    }
    const opened = await openAgentSession(rt, launched, req, mcpServers);
    session.optionState = readSessionOptionState(opened.result);
    await selectSetupSettings(rt, session, opened.result, req.options);
    if (session.phase === "stopping") throw new Error(`ACP session of thread ${req.threadId} was stopped while it was being set up`);
    return publishSession(rt, session, req, opened, launched.warnings);
  } catch (error) {
    const stopped = session.phase === "stopping";
    moveSessionPhase(session, "stopping");
    if (rt.settingUp.get(req.threadId) === session) rt.settingUp.delete(req.threadId);
    if (rt.sessions.get(req.threadId) === session) rt.sessions.delete(req.threadId);
    await session.connection.kill();
    await revokeApprovals(session);
    if (stopped) throw toRequestError(new Error(`ACP session of thread ${req.threadId} was stopped while it was being set up`));
    const guidance = describeAcpSignIn({ command: spec.command, args: spec.args, authMethods });
    throw toRequestError(error, guidance);
  }
}
