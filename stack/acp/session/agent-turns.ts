/**
 * Agent-initiated turns (spec 30 §6.2): work the agent starts on its own while the session is idle
 * (turn output, or a permission/elicitation request not auto-answered) opens a turn of kind
 * `agent`; it ends `end_turn` once the agent has been quiet for `agentTurnQuietMs` with no open tool
 * calls. `turn/start` finishes it first (`cancelled` when work is still open); `turn/steer` prompts
 * inside it. Part of the session's lifecycle: `interaction/` reports a question the agent asks
 * through the `noteAgentActivity` port `handleClientRequest` is given (session-setup.ts), and
 * never imports this module.
 */
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { createPromptRun, emitDeltas, isAnnounced, type AcpSession, type PromptRun } from "../state/session.js";

function armQuietTimer(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun): void {
  const { scheduler } = rt.options;
  scheduler.cancel(run.quietTimer);
  run.quietTimer = scheduler.schedule(
    rt.options.agentTurnQuietMs,
    () => {
      run.quietTimer = undefined;
      if (session.prompt !== run || run.done || run.kind !== "agent") return;
      // Open tool calls or a pending approval mean the agent is still working: wait another period.
      if (session.translator.activity().openToolCount > 0 || session.pending.size > 0) armQuietTimer(rt, session, run);
      else finishAgentTurn(rt, session, run, "end_turn");
    },
    { keepAlive: false },
  );
}

/**
 * Opens an agent-initiated turn when the session is idle and live; re-arms the quiet timer of an
 * open one. Called before the triggering update is translated. No-op during a runtime turn, and
 * during session setup unless `duringSetup` (turn output an agent streams right after
 * `session/new`: its deltas wait with the other deferred ones until the session is announced).
 */
export function noteAgentActivity(rt: AcpBridgeRuntime, session: AcpSession, options: { duringSetup?: boolean } = {}): void {
  if (session.phase === "stopping" || session.phase === "exited") return;
  if (!isAnnounced(session) && options.duringSetup !== true) return;
  const current = session.prompt;
  if (current) {
    if (current.kind === "agent") armQuietTimer(rt, session, current);
    return;
  }
  const run = createPromptRun("agent", rt.options.scheduler);
  session.prompt = run;
  emitDeltas(rt.ctx.io, session, session.translator.agentTurnStarted());
  armQuietTimer(rt, session, run);
}

/** Ends an agent-initiated turn with `stopReason` (flush + `turn.boundary`); idempotent. */
export function finishAgentTurn(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun, stopReason: "end_turn" | "cancelled"): void {
  if (session.prompt !== run || run.done) return;
  session.prompt = null;
  emitDeltas(rt.ctx.io, session, session.translator.turnCompleted(stopReason));
  run.markSettled();
}

/** Before a runtime `turn/start`: finishes an open agent turn, `cancelled` when tool calls are still open. */
export function finishAgentTurnForRuntimeTurn(rt: AcpBridgeRuntime, session: AcpSession): void {
  const run = session.prompt;
  if (!run || run.kind !== "agent") return;
  finishAgentTurn(rt, session, run, session.translator.activity().openToolCount > 0 ? "cancelled" : "end_turn");
}
