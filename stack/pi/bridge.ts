/**
 * The native pi bridge (spec 60 "pi"; issue 23): one `pi --mode rpc` process per thread,
 * driven through pi's own RPC commands, its events translated to grammar-v3 deltas.
 * `turn/steer` is pi's `steer` command (steerMode `queue`: pi delivers it after the running
 * model call's tools, before its next model call, inside the same user-level turn — what the
 * protocol's queue mode promises; `follow_up` would wait for the turn to end and start another).
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { defineProviderBridge, type BridgeContext, type ProviderBridge } from "../bridge-kit/define.js";
import { sanitizeInheritedChildProcessEnv } from "../bridge-kit/child-env.js";
import { recordProviderChildIo } from "../bridge-kit/record-process.js";
import { runBridgeRequest, type BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { createRealScheduler, type Scheduler } from "../bridge-kit/scheduler.js";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import { PROVIDER_BRIDGE_PROTOCOL_VERSION, THREAD_DELTA_GRAMMAR_V3 } from "../protocol/handshake.js";
import { BRIDGE_REQUEST_METHODS as M, type ThreadStartParams, type TurnInputItem } from "../protocol/methods.js";
import { listPiModels } from "./model-list.js";
import { openPiSession, type PiSession, type PiSessionDeps } from "./session.js";

/** The handshake capabilities: grammar `[3,3]`, sessions restorable by `--session`, steer queued, approvals asked by the runtime. */
export const PI_CAPABILITIES = {
  grammarVersions: [THREAD_DELTA_GRAMMAR_V3, THREAD_DELTA_GRAMMAR_V3] as [number, number],
  sessionRestore: true,
  threadArchive: false,
  threadRename: false,
  threadGoalClear: false,
  fork: "none",
  approvalEnforcedBy: "runtime",
  steerMode: "queue",
} as const;

/** Provider id the bridge is registered and recorded under. */
export const PI_PROVIDER_ID = "pi";

/** Options of {@link createPiBridge}; every one has a default. */
export interface PiBridgeOptions {
  scheduler?: Scheduler;
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  recordChild?: (child: ChildProcess, threadId: string | null) => void;
  /** ms pi may take to answer `get_state` at start-up; default 120 000 (spec 60: 7–14 s measured on busy cores). */
  startTimeoutMs?: number;
  /** ms pi may take to exit once its stdin closed; default 5 000, then SIGKILL. */
  exitGraceMs?: number;
}

/** The text of a turn's input: every text item, joined by a newline. */
export function inputText(input: readonly TurnInputItem[]): string {
  return input
    .filter((item) => item.type === "text" && typeof item.text === "string")
    .map((item) => item.text as string)
    .join("\n");
}

/** The state of one bridge process: its sessions by thread, and pi's session files by session id (for resume). */
interface BridgeState {
  sessions: Map<string, PiSession>;
  files: Map<string, string>;
  handlers: BridgeRequestHandlers;
}

function sessionOf(state: BridgeState, threadId: string): PiSession {
  const session = state.sessions.get(threadId);
  if (!session) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `No active pi session for thread "${threadId}"`);
  return session;
}

async function open(deps: PiSessionDeps, state: BridgeState, params: ThreadStartParams, resume?: string) {
  const previous = state.sessions.get(params.threadId);
  if (previous) {
    state.sessions.delete(params.threadId);
    await previous.stop("interrupt");
  }
  const session = await openPiSession(deps, { threadId: params.threadId, cwd: params.cwd, options: params.options, ...(resume ? { resume } : {}) });
  state.sessions.set(params.threadId, session);
  if (session.sessionFile) state.files.set(session.providerThreadId, session.sessionFile);
  deps.ctx.io.notify("thread/identity", { threadId: params.threadId, providerThreadId: session.providerThreadId, sessionRestorable: true });
  deps.ctx.io.notify("thread/delta", { threadId: params.threadId, deltas: [{ kind: "session.reset" }] });
  return { providerThreadId: session.providerThreadId, sessionRestorable: true };
}

function handlersOf(deps: PiSessionDeps, state: BridgeState): BridgeRequestHandlers {
  const { io } = deps.ctx;
  return {
    [M.initialize]: () => ({ protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION, capabilities: { ...PI_CAPABILITIES } }),
    [M.modelList]: (_id, params) => listPiModels(deps, params),
    [M.threadStart]: (_id, params) => open(deps, state, params),
    // A new pi on the same session: its file when this process saw it, else pi's session id (pi takes an id prefix).
    [M.threadResume]: (_id, params) => open(deps, state, params, state.files.get(params.providerThreadId) ?? params.providerThreadId),
    [M.turnStart]: (id, params) => sessionOf(state, params.threadId).startTurn(inputText(params.input), params.clientRequestId, params.options, () => io.sendResult(id, { threadId: params.threadId })),
    [M.turnSteer]: (id, params) => sessionOf(state, params.threadId).steer(inputText(params.input), params.clientRequestId, () => io.sendResult(id, { threadId: params.threadId })),
    [M.threadStop]: async (_id, params) => {
      const session = state.sessions.get(params.threadId);
      state.sessions.delete(params.threadId);
      await session?.stop(params.intent);
      return { ok: true };
    },
    [M.threadDiscard]: () => ({ ok: true }),
  };
}

/**
 * Creates a pi bridge. Each bridge context (one per process) gets its own sessions on first
 * use; the value itself holds no process state.
 */
export function createPiBridge(options: PiBridgeOptions = {}): ProviderBridge {
  const byContext = new WeakMap<BridgeContext, BridgeState>();
  const stateOf = (ctx: BridgeContext): BridgeState => {
    let state = byContext.get(ctx);
    if (!state) {
      const deps: PiSessionDeps = {
        ctx,
        scheduler: options.scheduler ?? createRealScheduler(),
        spawn: options.spawn ?? ((command, args, spawnOptions) => nodeSpawn(command, args, spawnOptions)),
        recordChild: options.recordChild ?? ((child, threadId) => recordProviderChildIo(child, { threadId })),
        sanitizeEnv: (env) => sanitizeInheritedChildProcessEnv({ env }),
        startTimeoutMs: options.startTimeoutMs ?? 120_000,
        exitGraceMs: options.exitGraceMs ?? 5_000,
      };
      const fresh: BridgeState = { sessions: new Map(), files: new Map(), handlers: {} };
      fresh.handlers = handlersOf(deps, fresh);
      state = fresh;
      byContext.set(ctx, state);
    }
    return state;
  };
  return defineProviderBridge({
    handleLine: async (_line, ctx, message) => {
      await runBridgeRequest(ctx.io, message, stateOf(ctx).handlers);
    },
    onClose: async (ctx) => {
      const state = byContext.get(ctx);
      byContext.delete(ctx);
      if (!state) return;
      await Promise.all([...state.sessions.values()].map((session) => session.stop("interrupt")));
      state.sessions.clear();
    },
  });
}

/** The module export the bootstrap loads (PROVIDER_BRIDGE_EXPORT_NAME). */
export const experimental_providerBridge: ProviderBridge = createPiBridge();
