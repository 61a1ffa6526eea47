/**
 * The native pi bridge (spec 60 "pi"; issue 23): one `pi --mode rpc` process per thread,
 * driven through pi's own RPC commands, its events translated to grammar-v3 deltas.
 * `turn/steer` is pi's `steer` command (steerMode `queue`: pi delivers it after the running
 * model call's tools, before its next model call, inside the same user-level turn — what the
 * protocol's queue mode promises; `follow_up` would wait for the turn to end and start another).
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { BridgeContext, ProviderBridge } from "../bridge-kit/define.js";
import { createRealScheduler, type Scheduler } from "../bridge-kit/scheduler.js";
import { announceSession, defineSessionBridge, inputText, nativeCapabilities, SessionTable, type BridgeSessions } from "../bridge-kit/session-bridge.js";
import type { ThreadStartParams } from "../protocol/methods.js";
import { listPiModels } from "./model-list.js";
import type { PiProcessDeps } from "./rpc.js";
import { openPiSession, type PiSession } from "./session.js";

/** The handshake capabilities: grammar `[3,3]`, sessions restorable by `--session`, steer queued, approvals asked by the runtime. */
export const PI_CAPABILITIES = nativeCapabilities({ fork: "none", approvalEnforcedBy: "runtime", steerMode: "queue" });

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

/**
 * The pi sessions of one bridge process: one pi per thread, and pi's session files by session
 * id, so a resume in this process names the file (from another process, pi's session id: pi
 * takes an id prefix).
 */
export function createPiSessions(deps: PiProcessDeps): BridgeSessions {
  const sessions = new SessionTable<PiSession>("pi");
  const files = new Map<string, string>();
  const open = async (params: ThreadStartParams, resume?: string) => {
    const previous = sessions.take(params.threadId);
    if (previous) await previous.stop("interrupt");
    const session = await openPiSession(deps, { threadId: params.threadId, cwd: params.cwd, options: params.options, ...(resume ? { resume } : {}) });
    sessions.set(params.threadId, session);
    if (session.sessionFile) files.set(session.providerThreadId, session.sessionFile);
    return announceSession(deps.ctx.io, params.threadId, session.providerThreadId);
  };
  return {
    listModels: (params) => listPiModels(deps, params),
    start: (params) => open(params),
    resume: (params) => open(params, files.get(params.providerThreadId) ?? params.providerThreadId),
    startTurn: (params, reply) => sessions.sessionOf(params.threadId).startTurn(inputText(params.input), params.clientRequestId, params.options, () => reply({ threadId: params.threadId })),
    steer: (params, reply) => sessions.sessionOf(params.threadId).steer(inputText(params.input), params.clientRequestId, () => reply({ threadId: params.threadId })),
    async stop(params, reply) {
      await sessions.take(params.threadId)?.stop(params.intent);
      reply({ ok: true });
    },
    async closeAll() {
      await Promise.all(sessions.takeAll().map((session) => session.stop("interrupt")));
    },
  };
}

/**
 * Creates a pi bridge. Each bridge context (one per process) gets its own sessions on first
 * use; the value itself holds no process state.
 */
export function createPiBridge(options: PiBridgeOptions = {}): ProviderBridge {
  const depsOf = (ctx: BridgeContext): PiProcessDeps => ({
    ctx,
    scheduler: options.scheduler ?? createRealScheduler(),
    ...(options.spawn ? { spawn: options.spawn } : {}),
    ...(options.recordChild ? { recordChild: options.recordChild } : {}),
    startTimeoutMs: options.startTimeoutMs ?? 120_000,
    exitGraceMs: options.exitGraceMs ?? 5_000,
  });
  return defineSessionBridge({ capabilities: PI_CAPABILITIES, createSessions: (ctx) => createPiSessions(depsOf(ctx)) });
}

/** The module export the bootstrap loads (PROVIDER_BRIDGE_EXPORT_NAME). */
export const experimental_providerBridge: ProviderBridge = createPiBridge();
