/**
 * `thread/stop` (spec 30 §5): `interrupt` always settles the interrupted turn before the reply,
 * even when the agent ignores `session/cancel`; `release` cancels nothing and emits nothing.
 */
import type { ThreadStopParams } from "../../protocol/methods.js";
import { settleWithin } from "../../bridge-kit/scheduler.js";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { agentSessionId, cancelPendingAgentRequests, emitDeltas, moveSessionPhase, revokeApprovals, type AcpSession, type PromptRun } from "../state/session.js";

/** The interrupted-settle step (spec 30 §5 step 4): flush, open tools `interrupted`, `turn.boundary interrupted`. */
function settleInterrupted(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun): void {
  if (session.prompt !== run || run.done) return;
  session.prompt = null;
  const t = session.translator;
  const deltas = run.kind === "compaction" ? t.compactionCompleted({ stopReason: "cancelled" }) : t.turnCompleted("cancelled");
  emitDeltas(rt.ctx.io, session, deltas);
  run.markSettled();
}

/**
 * Stops one session (spec 30 §5). `interrupt`: mark stopping, drop steers, cancel pending
 * permissions; if a prompt is active and the agent alive, send `session/cancel` and wait for the
 * turn to settle (at most `cancelSettleTimeoutMs`); then settle it `interrupted` if the agent did
 * not; kill; revoke the Cursor MCP approval; unregister. `release`: the same without cancel, wait or
 * deltas.
 */
export async function stopSession(rt: AcpBridgeRuntime, session: AcpSession, intent: "interrupt" | "release"): Promise<void> {
  moveSessionPhase(session, "stopping");
  session.steers = [];
  cancelPendingAgentRequests(session);
  const run = session.prompt;
  if (run && !run.done) {
    if (intent === "interrupt") {
      if (session.connection.exitInfo() === null) {
        if (!run.cancelling) {
          run.cancelling = true;
          session.connection.notify("session/cancel", { sessionId: agentSessionId(session) });
        }
        // An agent-initiated turn has no prompt request whose answer could settle it: settle now.
        if (run.kind !== "agent") await settleWithin(rt.options.scheduler, run.settled, rt.options.cancelSettleTimeoutMs);
      }
      settleInterrupted(rt, session, run);
    } else {
      // Release leaves the turn to the runtime: abandon the run without a delta.
      session.prompt = null;
      run.markSettled();
    }
  }
  await session.connection.kill();
  await revokeApprovals(session);
  if (rt.sessions.get(session.threadId) === session) rt.sessions.delete(session.threadId);
}

/** `thread/stop {threadId, intent}` → `{ok:true}` (also with no session, spec 20 §1.2); aborts a setup in flight. */
export async function stopThread(rt: AcpBridgeRuntime, params: ThreadStopParams): Promise<{ ok: true }> {
  abortSetup(rt, params.threadId);
  const session = rt.sessions.get(params.threadId);
  if (session) await stopSession(rt, session, params.intent);
  return { ok: true };
}

/** A stop during `thread/start|resume|fork` aborts the setup: its request then fails naming the stop. */
function abortSetup(rt: AcpBridgeRuntime, threadId: string): void {
  const pending = rt.settingUp.get(threadId);
  if (!pending) return;
  moveSessionPhase(pending, "stopping");
  void pending.connection.kill();
}

/** Stdin closed: every session stops with interrupt semantics, then the tool host closes (spec 20 §6). */
export async function stopAllSessions(rt: AcpBridgeRuntime): Promise<void> {
  for (const threadId of [...rt.settingUp.keys()]) abortSetup(rt, threadId);
  await Promise.all([...rt.sessions.values()].map((session) => stopSession(rt, session, "interrupt")));
  const host = rt.toolHost;
  rt.toolHost = null;
  if (host)
    await host.then(
      (h) => h.close(),
      () => undefined,
    );
}
