/**
 * The Codex sessions of one bridge process: one `codex app-server` per runtime thread, started
 * by `thread/start`, `thread/resume` (a new process that resumes the thread from Codex's
 * rollout) or `thread/fork` (spec 60 "Codex"). Requests of the runtime become Codex requests;
 * Codex's notifications become deltas through the thread's {@link CodexTranslator}.
 */
import type { AgentProcess } from "../bridge-kit/agent-process.js";
import type { BridgeContext } from "../bridge-kit/define.js";
import { settleWithin, type Scheduler } from "../bridge-kit/scheduler.js";
import {
  announceSession,
  moveSessionPhase,
  noActiveTurnError,
  SessionTable,
  turnActiveError,
  type BridgeSessions,
  type SessionPhase,
  type SessionResult,
  type StopReply,
  type TurnReply,
} from "../bridge-kit/session-bridge.js";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import type { ThreadForkParams, ThreadResumeParams, ThreadStartParams, ThreadStopParams, TurnStartParams, TurnSteerParams } from "../protocol/methods.js";
import type { ThreadDelta } from "../protocol/thread-delta.js";
import { answerApproval, isApprovalRequest } from "./approvals.js";
import { CodexExitedError, CodexRequestError, notifyAppServer, startAppServer, type AppServerOptions, type ServerRequestAnswer } from "./app-server.js";
import { codexPolicy, resolveCodexLaunch, turnOverrides } from "./launch.js";
import { CodexTranslator, type Translated } from "./translate.js";
import { CODEX_INITIALIZED, CODEX_REQUESTS, ThreadResultSchema, TurnStartResultSchema } from "./wire.js";

/** Timeouts of the sessions (ms); every one only bounds a hung app-server, none paces. */
export interface CodexTimeouts {
  /** One Codex request. */
  requestMs: number;
  /** How long `thread/stop` waits for Codex's `turn/completed` after `turn/interrupt`. */
  interruptMs: number;
  /** Grace between closing an app-server's stdin and SIGKILL. */
  killGraceMs: number;
}

/** The bridge's client identity in Codex's `initialize`. */
export const CODEX_CLIENT_INFO = { name: "bridge_parity", title: "bridge-parity Codex bridge", version: "0.1.0" };

interface ActiveTurn {
  codexTurnId: string | undefined;
  done: Promise<void>;
  settle(): void;
}

interface Session {
  threadId: string;
  providerThreadId: string;
  server: AgentProcess;
  translator: CodexTranslator;
  turn: ActiveTurn | undefined;
  /** `starting` until Codex answered the thread request and the session was announced. */
  phase: SessionPhase;
  /**
   * Notifications that came while `starting`, handled right after `session.reset`: Codex sends
   * some unprompted (a resumed thread's restored token usage, its goal) and may put them in the
   * same read as the answer, so handling them as they come would order them before or after
   * the reset by how the pipe split its bytes.
   */
  early: Array<{ method: string; params: unknown }>;
}

export type { SessionResult };

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The runtime's turn input as Codex's `UserInput[]`: text items kept, `text_elements: []`. */
export function codexInput(input: ReadonlyArray<{ type: string; text?: unknown }>): Array<Record<string, unknown>> {
  return input.filter((i) => i.type === "text" && typeof i.text === "string").map((i) => ({ type: "text", text: i.text, text_elements: [] }));
}

/** The recovery hint of a model error, when it has one: 401 → `authRequired`, 429 → `rateLimited` (spec 10 §1.1). */
export function recoveryOf(error: { message: string; codexErrorInfo?: unknown }): { kind: "authRequired" | "rateLimited"; retryable: boolean } | undefined {
  const text = JSON.stringify(error.codexErrorInfo ?? null);
  if (error.codexErrorInfo === "unauthorized" || /"httpStatusCode":401\b/.test(text)) return { kind: "authRequired", retryable: false };
  if (error.codexErrorInfo === "rateLimitExceeded" || error.codexErrorInfo === "usageLimitExceeded" || /"httpStatusCode":429\b/.test(text)) return { kind: "rateLimited", retryable: true };
  return undefined;
}

/** The sessions of one bridge process (see the module doc). */
export class CodexSessions implements BridgeSessions {
  private readonly sessions = new SessionTable<Session>("Codex");

  constructor(
    private readonly ctx: BridgeContext,
    private readonly scheduler: Scheduler,
    private readonly timeouts: CodexTimeouts,
    /** Replaces how the app-server is spawned (tests). */
    private readonly spawn?: AppServerOptions["spawn"],
  ) {}

  private deltas(session: Session, deltas: ThreadDelta[]): void {
    if (deltas.length > 0) this.ctx.io.notify("thread/delta", { threadId: session.threadId, deltas });
  }

  private sessionOf(threadId: string): Session {
    return this.sessions.sessionOf(threadId);
  }

  /** Starts an app-server for `threadId` and runs Codex's handshake; the session is registered before it answers. */
  private async open(params: ThreadStartParams): Promise<Session> {
    const previous = this.sessions.get(params.threadId);
    if (previous) await this.closeSession(previous, "interrupted");
    let launch;
    try {
      launch = resolveCodexLaunch(params.options, this.ctx.env, params.cwd);
    } catch (error) {
      throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.invalidParams, errorMessage(error));
    }
    // The server's handlers need the session; the session is registered once its server runs.
    const session = { threadId: params.threadId, providerThreadId: "", translator: new CodexTranslator(params.cwd), turn: undefined, phase: "starting", early: [] } as Omit<
      Session,
      "server"
    > as Session;
    session.server = startAppServer({
      launch,
      threadId: params.threadId,
      inheritedEnv: this.ctx.env,
      scheduler: this.scheduler,
      requestTimeoutMs: this.timeouts.requestMs,
      log: (text) => this.ctx.log(text),
      ...(this.spawn ? { spawn: this.spawn } : {}),
      handlers: {
        onNotification: (method, p) => this.onNotification(session, method, p),
        onRequest: (method, p, respond) => this.onServerRequest(session, method, p, respond),
        onExit: (description) => this.onExit(session, description),
      },
    });
    this.sessions.set(params.threadId, session);
    await this.codex(session, CODEX_REQUESTS.initialize, { clientInfo: CODEX_CLIENT_INFO, capabilities: { experimentalApi: false } });
    notifyAppServer(session.server, CODEX_INITIALIZED);
    return session;
  }

  /** Sends a Codex request; a failure is a bridge error (−32000) naming the method. */
  private async codex<T = unknown>(session: Session, method: string, params: unknown, onResult?: (result: T) => void): Promise<T> {
    try {
      return await session.server.request<T>(method, params, onResult);
    } catch (error) {
      throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, errorMessage(error));
    }
  }

  /** Registers the provider thread Codex answered with and tells the runtime (identity, then a clean thread state, spec 10 §2.12). */
  private identify(session: Session, answer: unknown): SessionResult {
    const parsed = ThreadResultSchema.safeParse(answer);
    if (!parsed.success) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, "codex answered a thread request without thread.id");
    session.providerThreadId = parsed.data.thread.id;
    const result = announceSession(this.ctx.io, session.threadId, session.providerThreadId);
    moveSessionPhase(session, "open");
    for (const n of session.early.splice(0)) this.onNotification(session, n.method, n.params);
    return result;
  }

  /** `thread/start` → a new app-server and Codex's `thread/start {cwd, approvalPolicy, sandbox}`. */
  async start(params: ThreadStartParams): Promise<SessionResult> {
    const session = await this.open(params);
    const result = await this.codex(session, CODEX_REQUESTS.threadStart, { cwd: params.cwd, ...codexPolicy(params.options) });
    return this.identify(session, result);
  }

  /** `thread/resume` → a new app-server and Codex's `thread/resume {threadId, cwd, …, excludeTurns}`. */
  async resume(params: ThreadResumeParams): Promise<SessionResult> {
    const session = await this.open(params);
    const result = await this.codex(session, CODEX_REQUESTS.threadResume, { threadId: params.providerThreadId, cwd: params.cwd, ...codexPolicy(params.options), excludeTurns: true });
    return this.identify(session, result);
  }

  /** `thread/fork` → a new app-server and Codex's `thread/fork {threadId, lastTurnId?}` (the checkpoint is a Codex turn id). */
  async fork(params: ThreadForkParams): Promise<SessionResult> {
    const session = await this.open(params);
    const result = await this.codex(session, CODEX_REQUESTS.threadFork, {
      threadId: params.sourceProviderThreadId,
      ...(params.sourceProviderCheckpointId ? { lastTurnId: params.sourceProviderCheckpointId } : {}),
      cwd: params.cwd,
      ...codexPolicy(params.options),
      excludeTurns: true,
    });
    return this.identify(session, result);
  }

  /**
   * `turn/start`: the input is accepted (queued until Codex's `turn/started` opens the turn),
   * Codex's `turn/start` sent with the turn's overrides, and `reply` called once Codex answered.
   * @throws BridgeJsonRpcError −32000 without a session, while a turn runs, or when Codex refuses (the turn then settles failed)
   */
  async startTurn(params: TurnStartParams, reply: TurnReply): Promise<void> {
    const session = this.sessionOf(params.threadId);
    if (session.turn) throw turnActiveError();
    let settle = () => undefined as void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const turn: ActiveTurn = { codexTurnId: undefined, done, settle };
    session.turn = turn;
    this.deltas(session, [{ kind: "input.accepted", clientRequestId: params.clientRequestId }]);
    try {
      const result = TurnStartResultSchema.parse(
        await session.server.request(CODEX_REQUESTS.turnStart, { threadId: session.providerThreadId, input: codexInput(params.input), ...turnOverrides(params.options) }),
      );
      turn.codexTurnId ??= result.turn.id;
    } catch (error) {
      if (session.turn === turn) session.turn = undefined;
      turn.settle();
      this.deltas(session, [{ kind: "turn.boundary", status: "failed", error: { message: errorMessage(error) }, claimIfIdle: true }]);
      throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, errorMessage(error));
    }
    reply({ threadId: params.threadId });
  }

  /**
   * `turn/steer` → Codex's `turn/steer {threadId, input, expectedTurnId}`: the input joins the running turn.
   * @throws BridgeJsonRpcError −32001 when no turn runs, −32000 when Codex refuses
   */
  async steer(params: TurnSteerParams, reply: TurnReply): Promise<void> {
    const session = this.sessionOf(params.threadId);
    const turnId = session.turn?.codexTurnId;
    if (!turnId) throw noActiveTurnError();
    // Accepted as Codex's answer is read, before the notifications of the steered model call.
    await this.codex(session, CODEX_REQUESTS.turnSteer, { threadId: session.providerThreadId, input: codexInput(params.input), expectedTurnId: turnId }, () =>
      this.deltas(session, [{ kind: "input.accepted", clientRequestId: params.clientRequestId }]),
    );
    reply({ threadId: params.threadId });
  }

  /**
   * `thread/stop`. `interrupt`: Codex's `turn/interrupt`, then `reply` only once Codex's
   * `turn/completed` put the terminal boundary on the wire (the session stays for a resume).
   * `release`: the app-server is closed and the session forgotten.
   */
  async stop(params: ThreadStopParams, reply: StopReply): Promise<void> {
    const session = this.sessions.get(params.threadId);
    if (session && params.intent === "interrupt") await this.interrupt(session);
    if (session && params.intent === "release") {
      this.sessions.take(params.threadId);
      await this.closeSession(session, "interrupted");
    }
    reply({ ok: true });
  }

  private async interrupt(session: Session): Promise<void> {
    const turn = session.turn;
    if (!turn || session.server.exited) return;
    if (turn.codexTurnId) {
      try {
        await session.server.request(CODEX_REQUESTS.turnInterrupt, { threadId: session.providerThreadId, turnId: turn.codexTurnId });
      } catch (error) {
        this.ctx.log(`codex: turn/interrupt failed: ${errorMessage(error)}`);
      }
    }
    await settleWithin(this.scheduler, turn.done, this.timeouts.interruptMs);
    // Codex never settled the turn: the bridge ends it, so the runtime is not left waiting.
    if (session.turn === turn) this.endTurn(session, "interrupted", "codex did not complete the interrupted turn");
  }

  /** Ends the running turn from the bridge's side: open items closed, then the boundary. */
  private endTurn(session: Session, status: "interrupted" | "failed", message: string): void {
    const turn = session.turn;
    if (!turn) return;
    session.turn = undefined;
    this.deltas(session, [...session.translator.closeOpenItems(status), { kind: "turn.boundary", status, error: { message } }]);
    turn.settle();
  }

  /** Closes a session's app-server; a running turn ends first. */
  private async closeSession(session: Session, status: "interrupted" | "failed"): Promise<void> {
    moveSessionPhase(session, "stopping");
    if (session.turn) this.endTurn(session, status, "the Codex session was closed");
    await session.server.close(this.timeouts.killGraceMs);
  }

  /** Process shutdown: every app-server closed. */
  async closeAll(): Promise<void> {
    await Promise.all(this.sessions.takeAll().map((s) => this.closeSession(s, "interrupted")));
  }

  private onNotification(session: Session, method: string, params: unknown): void {
    if (session.phase === "starting") {
      session.early.push({ method, params });
      return;
    }
    let translated: Translated | "ignored" | "unknown";
    try {
      translated = session.translator.translate(method, params);
    } catch (error) {
      this.ctx.log(`codex: ${method} not understood: ${errorMessage(error)}`);
      translated = "unknown";
    }
    if (translated === "ignored") return;
    if (translated === "unknown") {
      this.deltas(session, [{ kind: "unhandled", raw: { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params: params as never }) }, rawType: method, vouchedTurn: true }]);
      return;
    }
    if (translated.turnStarted && session.turn) session.turn.codexTurnId ??= translated.turnStarted;
    this.deltas(session, translated.deltas);
    if (translated.error) {
      const recovery = recoveryOf(translated.error);
      if (recovery) this.ctx.io.notify("provider/recovery", { threadId: session.threadId, kind: recovery.kind, message: translated.error.message, retryable: recovery.retryable });
    }
    if (translated.turnCompleted && session.turn) {
      const turn = session.turn;
      session.turn = undefined;
      turn.settle();
    }
  }

  private onServerRequest(session: Session, method: string, params: unknown, respond: (answer: ServerRequestAnswer) => void): void {
    if (isApprovalRequest(method)) {
      return answerApproval(
        {
          io: this.ctx.io,
          threadId: session.threadId,
          providerThreadId: session.providerThreadId,
          stopping: session.phase === "stopping",
          noteApproval: (itemId, allowed) => session.translator.noteApproval(itemId, allowed),
        },
        method,
        params,
        (result) => respond({ result }),
      );
    }
    // Refused, and counted: the request reaches the thread as `provider/unhandled` (issue 41).
    this.deltas(session, [{ kind: "unhandled", raw: { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params: params as never }) }, rawType: method, vouchedTurn: true }]);
    respond({ error: new Error(`the bridge does not serve ${method}`) });
  }

  /** The app-server ended: a running turn fails with the exit's description (never a hang). */
  private onExit(session: Session, description: string): void {
    const stopping = session.phase === "stopping";
    moveSessionPhase(session, "exited");
    if (stopping) return;
    this.ctx.log(description);
    if (!session.turn) return;
    this.deltas(session, [{ kind: "provider.error", message: description }]);
    this.endTurn(session, "failed", description);
  }
}

export { CodexExitedError, CodexRequestError };
