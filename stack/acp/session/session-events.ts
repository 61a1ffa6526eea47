/**
 * What the agent does on its own: `session/update` notifications and process exit
 * (spec 20 §2.5, §3.5; spec 30 §6.2, §6.3).
 */
import type { AcpBridgeRuntime } from "../state/runtime.js";
import type { AgentExitInfo } from "../connection/connection.js";
import { cancelPendingAgentRequests, emitDeltas, emitSessionError, isAnnounced, moveSessionPhase, revokeApprovals, type AcpSession } from "../state/session.js";
import { isWhitespaceOnlyChunk, type AcpSessionNotification, type AcpUpdate } from "../translate/index.js";
import { noteAgentActivity } from "./agent-turns.js";
import { noteEditBaselines } from "../interaction/edit-baselines.js";

/**
 * One `session/update` (spec 20 §2.5), read once where it entered (`readSessionNotification`;
 * a malformed one never gets here): dropped while stopping, without a session id, or for another
 * `sessionId`; during a restore it only feeds session state; turn output before the first prompt
 * of a forked or restored session is dropped (history replay, spec 30 §6.2); other turn output
 * while idle (a fresh session's before its first prompt too) opens an agent-initiated turn, except
 * whitespace-only text, which is dropped;
 * everything else goes through the translator.
 */
export function handleSessionUpdate(rt: AcpBridgeRuntime, session: AcpSession, notification: AcpSessionNotification): void {
  if (session.phase === "stopping") return;
  const { sessionId, update } = notification;
  if (sessionId === undefined) return;
  if (session.providerThreadId !== null && sessionId !== session.providerThreadId) return;
  noteAgentCommands(session, update);
  if (session.phase === "restoring") {
    session.translator.restoreUpdate(update);
    return;
  }
  // More about a call that already settled is not new work and opens no turn.
  const output = update.turnOutput && !session.translator.isLateToolUpdate(update);
  // Before the first prompt, a forked or restored session's output replays history: dropped (spec
  // 30 §6.2). A fresh session's is the agent's own: kept in an agent-initiated turn of its own,
  // closed before the first runtime turn opens, so never lost and never glued to that turn.
  if (output && session.prompt === null && session.phase === "replaying") return;
  // Whitespace-only text while no turn is open is no work: it opens no turn and makes no item
  // (pi-acp's "\n" after session/new was a phantom turn with an empty agent message).
  if (output && session.prompt === null && isWhitespaceOnlyChunk(update)) return;
  if (output) noteAgentActivity(rt, session, { duringSetup: true });
  noteEditBaselines(session.editBaselines, update.value, session.settings.cwd, [session.settings.cwd, ...session.settings.writeRoots]);
  emitDeltas(rt.ctx.io, session, session.translator.update(update));
}

/**
 * The agent process ended (spec 30 §6.3 "Unexpected exit"). Expected when stopping: nothing.
 * Otherwise: pending permissions are cancelled, queued steers dropped, the active prompt cleared,
 * and the session error (`provider.error {settlesTurn}` + `error` notification) is emitted; the
 * session stays registered so the next `turn/start` rebuilds it.
 */
export function handleAgentExit(rt: AcpBridgeRuntime, session: AcpSession, exit: AgentExitInfo): void {
  if (session.phase === "stopping") return;
  moveSessionPhase(session, "exited");
  cancelPendingAgentRequests(session);
  void revokeApprovals(session);
  session.steers = [];
  const run = session.prompt;
  session.prompt = null;
  if (!isAnnounced(session) || rt.sessions.get(session.threadId) !== session) {
    run?.markSettled();
    return;
  }
  emitSessionError(rt.ctx.io, session, exit.message);
  run?.markSettled();
}

/** Keeps the agent's advertised slash command names (for the skill-command rewrite, spec 30 §6.2). */
function noteAgentCommands(session: AcpSession, update: AcpUpdate): void {
  const commands = update.value.availableCommands;
  if (update.kind !== "available_commands_update" || !Array.isArray(commands)) return;
  session.agentCommands = new Set(commands.map((c) => (c && typeof c === "object" ? (c as { name?: unknown }).name : undefined)).filter((name): name is string => typeof name === "string"));
}
