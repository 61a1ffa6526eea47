/**
 * The flow every session-keeping bridge shares (spec 20 §1.2 thread and turn requests): state
 * per bridge process, kept by context; sessions by runtime thread and the errors of that table;
 * a session's identity announced with a clean thread state (spec 10 §2.12); `initialize` with
 * the bridge's capabilities; the standard method table over a bridge's {@link BridgeSessions};
 * and a session's phase, moved forward only, instead of lifecycle booleans. A bridge brings its
 * capabilities and its sessions; everything here is the same for each of them.
 */
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import { PROVIDER_BRIDGE_PROTOCOL_VERSION, THREAD_DELTA_GRAMMAR_V3 } from "../protocol/handshake.js";
import {
  BRIDGE_REQUEST_METHODS as M,
  type ModelListResult,
  type ThreadForkParams,
  type ThreadResumeParams,
  type ThreadStartParams,
  type ThreadStopParams,
  type TurnStartParams,
  type TurnSteerParams,
} from "../protocol/methods.js";
import { defineProviderBridge, type BridgeContext, type ProviderBridge } from "./define.js";
import type { BridgeIo } from "./io.js";
import { runBridgeRequest, type BridgeRequestHandlers } from "./run-request.js";

/** What a native bridge chooses in its handshake (spec 10 §1.1); the rest is the same for all. */
export interface NativeCapabilityChoices<Fork extends string, Approval extends string, Steer extends string> {
  fork: Fork;
  approvalEnforcedBy: Approval;
  steerMode: Steer;
}

/**
 * The handshake capabilities of a native bridge: grammar `[3,3]`, sessions restorable, no
 * archive, rename or goals, and the bridge's own fork, approval and steer choices, in the key
 * order every native bridge has always sent (a replay matches the `initialize` answer byte for byte).
 */
export function nativeCapabilities<Fork extends string, Approval extends string, Steer extends string>(choices: NativeCapabilityChoices<Fork, Approval, Steer>) {
  return {
    grammarVersions: [THREAD_DELTA_GRAMMAR_V3, THREAD_DELTA_GRAMMAR_V3] as [number, number],
    sessionRestore: true as const,
    threadArchive: false as const,
    threadRename: false as const,
    threadGoalClear: false as const,
    fork: choices.fork,
    approvalEnforcedBy: choices.approvalEnforcedBy,
    steerMode: choices.steerMode,
  };
}

/** The result of `thread/start`, `thread/resume` and `thread/fork`. */
export interface SessionResult {
  providerThreadId: string;
  sessionRestorable: boolean;
}

/**
 * Announces a session once its provider thread is known: `thread/identity`, then a
 * `session.reset` delta (every session construction starts from a clean thread state,
 * spec 10 §2.12). Returns the request's result.
 */
export function announceSession(io: Pick<BridgeIo, "notify">, threadId: string, providerThreadId: string): SessionResult {
  io.notify("thread/identity", { threadId, providerThreadId, sessionRestorable: true });
  io.notify("thread/delta", { threadId, deltas: [{ kind: "session.reset" }] });
  return { providerThreadId, sessionRestorable: true };
}

/** The text of a turn's input: the `text` of every `{type:"text"}` item, joined by a newline. */
export function inputText(input: ReadonlyArray<{ type: string; text?: unknown }>): string {
  return input
    .filter((item) => item.type === "text" && typeof item.text === "string")
    .map((item) => item.text as string)
    .join("\n");
}

/** −32000 `A turn is already active`: a `turn/start` while the thread's turn runs. */
export function turnActiveError(): BridgeJsonRpcError {
  return new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, "A turn is already active");
}

/** −32001 `No active turn to steer`: a `turn/steer` with no turn running. */
export function noActiveTurnError(): BridgeJsonRpcError {
  return new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.noActiveTurn, "No active turn to steer");
}

/** The sessions of one bridge process by runtime thread id. */
export class SessionTable<S> {
  private readonly byThread = new Map<string, S>();

  /** `label` names the agent in errors (`No active <label> session for thread "…"`). */
  constructor(private readonly label: string) {}

  /** The session of `threadId`, if any. */
  get(threadId: string): S | undefined {
    return this.byThread.get(threadId);
  }

  /**
   * The session of `threadId`.
   * @throws BridgeJsonRpcError −32000 `No active <label> session for thread "<id>"` when there is none.
   */
  sessionOf(threadId: string): S {
    const session = this.byThread.get(threadId);
    if (session === undefined) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `No active ${this.label} session for thread "${threadId}"`);
    return session;
  }

  set(threadId: string, session: S): void {
    this.byThread.set(threadId, session);
  }

  /** Removes and returns the session of `threadId`. */
  take(threadId: string): S | undefined {
    const session = this.byThread.get(threadId);
    this.byThread.delete(threadId);
    return session;
  }

  /** Removes and returns every session, in the order they were opened. */
  takeAll(): S[] {
    const all = [...this.byThread.values()];
    this.byThread.clear();
    return all;
  }

  /** Every thread id and its session, in the order they were opened. */
  entries(): Array<[string, S]> {
    return [...this.byThread.entries()];
  }
}

/**
 * Where a session is in its life: `starting` (its agent is being started, the provider thread
 * not yet known), `open`, `stopping` (the bridge ends it: what its agent does next is expected),
 * `exited` (its agent ended on its own). Phases only move forward ({@link moveSessionPhase}).
 */
export type SessionPhase = "starting" | "open" | "stopping" | "exited";

const PHASE_MOVES: Record<SessionPhase, readonly SessionPhase[]> = {
  starting: ["open", "stopping", "exited"],
  open: ["stopping", "exited"],
  stopping: ["exited"],
  exited: [],
};

/** Moves `holder` to `next` when its phase may move there; returns whether it moved. */
export function moveSessionPhase(holder: { phase: SessionPhase }, next: SessionPhase): boolean {
  if (!PHASE_MOVES[holder.phase].includes(next)) return false;
  holder.phase = next;
  return true;
}

/** A turn or steer answered by its session: `reply` sends `{threadId}` when the session says so. */
export type TurnReply = (result: { threadId: string }) => void;
/** A stop answered by its session: `reply` sends `{ok: true}` once the stop is done. */
export type StopReply = (result: { ok: true }) => void;

/** The sessions of one bridge process, as the standard method table drives them. */
export interface BridgeSessions {
  /** `thread/start`: a new session; resolves after {@link announceSession}. */
  start(params: ThreadStartParams): SessionResult | Promise<SessionResult>;
  /** `thread/resume`: a new session on the given provider thread. */
  resume(params: ThreadResumeParams): SessionResult | Promise<SessionResult>;
  /** `thread/fork`, for a bridge whose capabilities fork; absent: −32601. */
  fork?(params: ThreadForkParams): SessionResult | Promise<SessionResult>;
  /** `turn/start`; throws to refuse (before `reply`). */
  startTurn(params: TurnStartParams, reply: TurnReply): void | Promise<void>;
  /** `turn/steer`; throws to refuse (before `reply`). */
  steer(params: TurnSteerParams, reply: TurnReply): void | Promise<void>;
  /** `thread/stop` (`interrupt` settles the running turn before `reply`). */
  stop(params: ThreadStopParams, reply: StopReply): void | Promise<void>;
  /** `model/list`, for a bridge that lists models; absent: −32601. */
  listModels?(params: { providerOptions?: Record<string, unknown>; cwd?: string }): Promise<ModelListResult>;
  /** Process shutdown: every session ended. */
  closeAll(): void | Promise<void>;
}

/**
 * The standard method table over `sessions`: `initialize` (protocol version and
 * `capabilities`), `thread/start`, `thread/resume`, `thread/fork` and `model/list` when the
 * sessions have them, `turn/start`, `turn/steer` and `thread/stop` answered by the sessions
 * through `reply`, `thread/discard` → `{ok: true}`.
 */
export function sessionBridgeHandlers(ctx: BridgeContext, sessions: BridgeSessions, capabilities: object): BridgeRequestHandlers {
  const fork = sessions.fork?.bind(sessions);
  const listModels = sessions.listModels?.bind(sessions);
  return {
    [M.initialize]: () => ({ protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION, capabilities: { ...capabilities } }),
    ...(listModels ? { [M.modelList]: (_id: unknown, params: Parameters<typeof listModels>[0]) => listModels(params) } : {}),
    [M.threadStart]: (_id, params) => sessions.start(params),
    [M.threadResume]: (_id, params) => sessions.resume(params),
    ...(fork ? { [M.threadFork]: (_id: unknown, params: ThreadForkParams) => fork(params) } : {}),
    // Each resolves undefined: the sessions answer through `reply` (a throw is the error answer).
    [M.turnStart]: (id, params) => sessions.startTurn(params, (result) => ctx.io.sendResult(id, result)),
    [M.turnSteer]: (id, params) => sessions.steer(params, (result) => ctx.io.sendResult(id, result)),
    [M.threadStop]: (id, params) => sessions.stop(params, (result) => ctx.io.sendResult(id, result)),
    [M.threadDiscard]: () => ({ ok: true }),
  };
}

/** What {@link defineSessionBridge} is given. */
export interface SessionBridgeSpec {
  /** The handshake capabilities (sent as a copy). */
  capabilities: object;
  /** The sessions of one bridge process, made on its first request. */
  createSessions(ctx: BridgeContext): BridgeSessions;
}

/**
 * A bridge made of sessions: each bridge context (one per process, or per in-process
 * instance) gets its own sessions and handlers on first use, and its sessions are closed
 * with it; the value itself holds no process state.
 */
export function defineSessionBridge(spec: SessionBridgeSpec): ProviderBridge {
  const byContext = new WeakMap<BridgeContext, { sessions: BridgeSessions; handlers: BridgeRequestHandlers }>();
  const stateOf = (ctx: BridgeContext) => {
    let state = byContext.get(ctx);
    if (!state) {
      const sessions = spec.createSessions(ctx);
      state = { sessions, handlers: sessionBridgeHandlers(ctx, sessions, spec.capabilities) };
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
      await state?.sessions.closeAll();
    },
  });
}
