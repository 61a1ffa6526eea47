/**
 * The runtime side of an agent's question (spec 20 §1.5, §3.8; spec 30 §6.2–6.3): one
 * `interaction/request` to the runtime, held as a pending agent request of the session so a
 * stop, steer or compaction can answer the agent at once and ignore the runtime's late reply.
 */
import { runtimeLinePlace, type AcpBridgeRuntime } from "../state/runtime.js";
import type { AcpSession, PendingAgentRequest } from "../state/session.js";

/**
 * What an agent→client request tells the session's lifecycle above (`session/`), which passes it
 * in (session-setup.ts): a port, so this room never imports the lifecycle.
 */
export interface ClientRequestPorts {
  /**
   * The agent asks the runtime something (a permission or a question not auto-answered): while
   * the session is idle that is agent-initiated work, which opens an agent turn or keeps one open
   * (spec 30 §6.2; `session/agent-turns.ts`). Called before the question is sent.
   */
  noteAgentActivity(): void;
  /**
   * Settles once the connection wrote this request's answer to the agent (or dropped it, the
   * connection having ended): the runtime line read after the runtime's answer is placed only
   * then (connection/read-order.ts), so the answer reaches the agent before that line's writes.
   */
  readonly answerWritten: Promise<void>;
}

/**
 * True while a question arriving now would only be cancelled (spec 30 §6.2, §5): the session is
 * stopping, a `session/cancel` for a steer is outstanding, or a compaction runs.
 */
export function questionsCancelledNow(session: AcpSession): boolean {
  const run = session.prompt;
  return session.phase === "stopping" || run?.cancelling === true || run?.kind === "compaction";
}

/**
 * Sends `interaction/request {providerThreadId, threadId, turnId: null, payload}` and resolves
 * once: with `answerOf(reply)` when the runtime replies, with `cancelled` when its request fails
 * or the session's pending requests are cancelled first. Resolves `cancelled` at once, asking
 * nothing, while {@link questionsCancelledNow}. Never rejects; a reply after the settlement is
 * ignored.
 *
 * The reply settles the question when it is read (a stop after it no longer cancels it), but it
 * is acted on only at its place in read order (`runtimeLinePlace`, taken in the `acceptResponse`
 * that reads it; connection/read-order.ts): once every agent line read before it has been
 * handled and the runtime lines read before it were acted on, as every runtime request is
 * (bridge.ts). The bridge reads the runtime's lines at once and the agent's one per macrotask, so
 * without the wait an agent line read first (omp's `tool_call`, sent right after its
 * `session/request_permission`) could be handled after the runtime's deny: the bridge would then
 * act in an order neither pipe had, and its recording (which orders lines as read) would replay
 * differently from what it did. An error answer waits the same; only a request that fails
 * without an answer (the runtime connection closed) settles `cancelled` at once.
 *
 * The runtime line read after the answer (a `thread/stop`, a `turn/steer` written in the same
 * chunk) is placed only once the agent request's answer was written (`answerWritten`, the
 * connection's): the outcome goes back to the agent through the request's handler and the
 * connection, some microtasks after the answer's place, while a stop writes its `session/cancel`
 * at once at its own place; without the wait the agent could hear the stop first.
 */
export function askRuntimeInteraction<T>(
  rt: AcpBridgeRuntime,
  session: AcpSession,
  payload: Record<string, unknown>,
  answerOf: (reply: unknown) => T,
  cancelled: T,
  answerWritten: Promise<void>,
): Promise<T> {
  if (questionsCancelledNow(session)) return Promise.resolve(cancelled);
  return new Promise<T>((resolve) => {
    let settled = false;
    let place: Promise<void> | null = null;
    const pending: PendingAgentRequest = {
      cancel() {
        if (settled) return;
        settled = true;
        resolve(cancelled);
      },
    };
    session.pending.add(pending);
    const finish = (answer: () => T): void => {
      if (settled) return;
      settled = true;
      session.pending.delete(pending);
      if (place === null) return resolve(answer());
      void place.then(() => resolve(answer()));
    };
    rt.ctx.io
      .request<unknown>(
        "interaction/request",
        {
          providerThreadId: session.providerThreadId,
          threadId: session.threadId,
          turnId: null,
          payload,
        },
        { onAnswer: () => (place = runtimeLinePlace(rt, answerWritten)) },
      )
      .then(
        (reply) => finish(() => answerOf(reply)),
        () => finish(() => cancelled),
      );
  });
}
