import { announceSession, noActiveTurnError, SessionTable, turnActiveError, type BridgeSessions, type SessionResult, type StopReply, type TurnReply } from "../bridge-kit/session-bridge.js";
import type { ThreadResumeParams, ThreadStartParams, ThreadStopParams, TurnStartParams, TurnSteerParams } from "../protocol/methods.js";
import type { ThreadDelta } from "../protocol/thread-delta.js";
import { chunkText, planPrompt, promptText, textClose, textDelta, turnBoundary } from "./answer.js";

/** Where the echo writes its notifications (a bridge's `io.notify`). */
export interface EchoOutput {
  notify(method: string, params: unknown): void;
}

/** Returns `bytes` random bytes; injected so tests choose the ids (style: entropy injected). */
export type Entropy = (bytes: number) => Uint8Array;

/** Bytes of entropy in a `providerThreadId` (16 hex characters after `echo-`). */
export const PROVIDER_THREAD_ID_BYTES = 8;

/** The echo's sessions of one bridge process: one per runtime thread. */
export interface EchoSessions extends BridgeSessions {
  /** `thread/start`: a new session under a fresh random `providerThreadId`. */
  start(params: ThreadStartParams): SessionResult;
  /** `thread/resume`: adopts the given `providerThreadId` (the echo keeps no history to reload). */
  resume(params: ThreadResumeParams): SessionResult;
  /**
   * `turn/start`. `reply` sends the `{threadId}` result; it is called after `turn.open` and
   * `input.accepted` and before the answer streams (acceptance timing, spec 20 §8.1).
   *
   * @throws BridgeJsonRpcError −32000 without a session or while a turn is active.
   */
  startTurn(params: TurnStartParams, reply: TurnReply): void;
  /**
   * `turn/steer`: accepts the input into the active turn, settles the held message and
   * answers the steer in the same turn, which then completes.
   *
   * @throws BridgeJsonRpcError −32001 when no turn is active, −32000 without a session.
   */
  steer(params: TurnSteerParams, reply: TurnReply): void;
  /**
   * `thread/stop`. `interrupt` settles the active turn (message closed, `turn.boundary
   * interrupted`) BEFORE `reply` is called (spec 02 §5: the bridge holds nothing back);
   * `release` drops the session and emits nothing. The session ends either way.
   */
  stop(params: ThreadStopParams, reply: StopReply): void;
  /** Process shutdown: interrupts every active turn (as a stop would), then forgets all sessions. */
  closeAll(): void;
}

interface ActiveTurn {
  /** Text streamed on the open message, not yet closed. */
  streamed: string;
}

interface Session {
  providerThreadId: string;
  turn: ActiveTurn | undefined;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Creates the sessions of one echo bridge process (spec 00 "echo/: the smallest complete
 * bridge"). Every `providerThreadId` is `echo-<16 hex>` from `entropy`, never a counter
 * (spec 02 §4, §7), so two processes cannot hand out the same id.
 */
export function createEchoSessions(output: EchoOutput, entropy: Entropy): EchoSessions {
  const sessions = new SessionTable<Session>("echo");

  const deltas = (threadId: string, list: ThreadDelta[]) => output.notify("thread/delta", { threadId, deltas: list });

  const open = (threadId: string, providerThreadId: string) => {
    const previous = sessions.get(threadId);
    if (previous?.turn) settleInterrupted(threadId, previous);
    sessions.set(threadId, { providerThreadId, turn: undefined });
    return announceSession(output, threadId, providerThreadId);
  };

  const streamMessage = (threadId: string, turn: ActiveTurn, text: string) => {
    for (const chunk of chunkText(text)) {
      turn.streamed += chunk;
      deltas(threadId, [textDelta(chunk)]);
    }
  };

  const closeMessage = (threadId: string, turn: ActiveTurn) => {
    if (turn.streamed === "") return;
    deltas(threadId, [textClose(turn.streamed)]);
    turn.streamed = "";
  };

  const finish = (threadId: string, session: Session, status: "completed" | "interrupted") => {
    const turn = session.turn;
    if (!turn) return;
    closeMessage(threadId, turn);
    session.turn = undefined;
    deltas(threadId, [turnBoundary(status)]);
  };

  function settleInterrupted(threadId: string, session: Session) {
    finish(threadId, session, "interrupted");
  }

  return {
    start: (params) => open(params.threadId, `echo-${hex(entropy(PROVIDER_THREAD_ID_BYTES))}`),
    resume: (params) => open(params.threadId, params.providerThreadId),
    startTurn(params, reply) {
      const session = sessions.sessionOf(params.threadId);
      if (session.turn) throw turnActiveError();
      const turn: ActiveTurn = { streamed: "" };
      session.turn = turn;
      deltas(params.threadId, [{ kind: "input.accepted", clientRequestId: params.clientRequestId }]);
      deltas(params.threadId, [{ kind: "turn.open" }]);
      reply({ threadId: params.threadId });
      const plan = planPrompt(promptText(params.input));
      if (plan.kind === "hold") {
        streamMessage(params.threadId, turn, plan.text);
        return;
      }
      if (plan.kind === "echo") streamMessage(params.threadId, turn, plan.text);
      finish(params.threadId, session, "completed");
    },
    steer(params, reply) {
      const session = sessions.sessionOf(params.threadId);
      const turn = session.turn;
      if (!turn) throw noActiveTurnError();
      reply({ threadId: params.threadId });
      closeMessage(params.threadId, turn);
      deltas(params.threadId, [{ kind: "input.accepted", clientRequestId: params.clientRequestId }]);
      const plan = planPrompt(promptText(params.input));
      if (plan.kind !== "zeroWork") streamMessage(params.threadId, turn, plan.text);
      finish(params.threadId, session, "completed");
    },
    stop(params, reply) {
      const session = sessions.take(params.threadId);
      if (session && params.intent === "interrupt") settleInterrupted(params.threadId, session);
      reply({ ok: true });
    },
    closeAll() {
      for (const [threadId, session] of sessions.entries()) settleInterrupted(threadId, session);
      sessions.takeAll();
    },
  };
}
