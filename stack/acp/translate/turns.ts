/**
 * Turn and compaction boundaries of the translator: stop reason → turn status, the flush, the
 * zero-output warning and the compaction outcome (spec 20 §3.1, §3.5; spec 30 §1.5, §6.2).
 */
import type { ThreadDelta, TurnStatus } from "../../protocol/thread-delta.js";
import { closeAssistant, closeThought } from "./envelopes.js";
import { compactionPresentation } from "../dialects/presentation.js";
import type { ToolCallTracker } from "./tool-calls.js";
import type { AcpDialect } from "../dialects/types.js";

/** Stop reasons ACP defines and the turn status each settles to (spec 20 §3.5). */
export const STOP_REASON_STATUS: Readonly<Record<string, TurnStatus>> = Object.freeze({
  end_turn: "completed",
  cancelled: "interrupted",
  max_tokens: "failed",
  max_turn_requests: "failed",
  refusal: "failed",
});

/** Summary of the zero-output warning (spec 30 §6.2). */
export const ZERO_OUTPUT_WARNING = "The agent ended the turn without replying";

/** Key channel of the compaction item (spec 20 §3.1). */
export const COMPACTION_CHANNEL = "compaction";

/** A stop reason outside ACP's set, or bad translator input. The bridge treats it as a prompt error. */
export class AcpTranslateError extends Error {
  readonly code = "E_ACP_TRANSLATE";

  constructor(message: string) {
    super(message);
    this.name = "AcpTranslateError";
  }
}

/**
 * Turn status of a stop reason: `end_turn`→completed, `cancelled`→interrupted,
 * `max_tokens`/`max_turn_requests`/`refusal`→failed (spec 20 §3.5).
 * @throws AcpTranslateError for any other value (it fails prompt-result validation).
 */
export function stopReasonToTurnStatus(stopReason: string): TurnStatus {
  const status = STOP_REASON_STATUS[stopReason];
  if (status === undefined) throw new AcpTranslateError(`ACP agent returned an unknown stop reason "${stopReason}".`);
  return status;
}

/** Flush: close thought, close assistant, then drain cached tools with `status` (spec 20 §3.1). */
export function flush(tools: ToolCallTracker, status: TurnStatus): ThreadDelta[] {
  return [closeThought(), closeAssistant(), ...tools.drain(status)];
}

/** `acp/turn/started`: clear the tool cache, `turn.open` (spec 20 §3.1). */
export function turnStarted(tools: ToolCallTracker): ThreadDelta[] {
  tools.clear();
  tools.newTurn();
  return [{ kind: "turn.open" }];
}

/**
 * `acp/turn/completed {stopReason}`: the zero-output warning when `end_turn` came with no turn
 * output (spec 30 §6.2), the flush, then `turn.boundary {status, error? (failed only), claimIfIdle}`.
 * `agentDetail` is the agent's own word on why (a refusal's `_meta` error text), kept in the error.
 * @throws AcpTranslateError for an unknown stop reason.
 */
export function turnCompleted(tools: ToolCallTracker, stopReason: string, turnOutputSeen: boolean, agentDetail?: string): ThreadDelta[] {
  const status = stopReasonToTurnStatus(stopReason);
  const deltas: ThreadDelta[] = [];
  if (stopReason === "end_turn" && !turnOutputSeen) {
    deltas.push({
      kind: "provider.warning",
      summary: ZERO_OUTPUT_WARNING,
      details: "The prompt finished with stop reason end_turn and no message, thought, tool call or plan update.",
      vouchedTurn: true,
    });
  }
  deltas.push(...flush(tools, status));
  const boundary: ThreadDelta = { kind: "turn.boundary", status, claimIfIdle: true };
  if (status === "failed") boundary.error = { message: `Agent stopped the turn: ${stopReason}${agentDetail !== undefined ? ` (${agentDetail})` : ""}` };
  deltas.push(boundary);
  return deltas;
}

/** `acp/compaction/started`: clear the cache, `turn.open`, the compaction item (spec 20 §3.1). */
export function compactionStarted(tools: ToolCallTracker): ThreadDelta[] {
  tools.clear();
  tools.newTurn();
  return [{ kind: "turn.open" }, { kind: "item.open", key: { channel: COMPACTION_CHANNEL }, item: { type: "compaction" }, presentation: compactionPresentation() }];
}

/** How a compaction prompt ended: its stop reason, or the rejection's error text. */
export type CompactionEnd = { stopReason: string } | { error: string };

/**
 * `acp/compaction/completed`: `end_turn`→completed (or what the dialect's `compactionOutcome` reads from the collected reply
 * text: omp),
 * `cancelled`→interrupted, other→failed `Agent stopped compaction: <reason>`, rejection → failed
 * with its text. Emits the flush, `context.compacted` (completed only), `turn.boundary` without
 * `claimIfIdle`; the compaction item is never closed explicitly (spec 20 §3.1, §3.5; 30 §1.5).
 * An omp `skipped` outcome becomes a `compaction-skipped` warning and a completed boundary
 * without `context.compacted` (spec 30 leaves its rendering open, §7 item 4).
 */
export function compactionCompleted(tools: ToolCallTracker, end: CompactionEnd, dialect: AcpDialect, replyText: string): ThreadDelta[] {
  let status: TurnStatus;
  let error: string | undefined;
  let compacted = false;
  let skippedDetail: string | undefined;
  if ("error" in end) {
    status = "failed";
    error = end.error;
  } else if (end.stopReason === "end_turn") {
    const outcome = dialect.compactionOutcome?.(replyText) ?? { status: "completed" as const };
    if (outcome.status === "failed") {
      status = "failed";
      error = outcome.detail;
    } else {
      status = "completed";
      if (outcome.status === "skipped") skippedDetail = outcome.detail;
      else compacted = true;
    }
  } else if (end.stopReason === "cancelled") {
    status = "interrupted";
  } else {
    status = "failed";
    error = `Agent stopped compaction: ${end.stopReason}`;
  }
  const deltas = flush(tools, status);
  if (skippedDetail !== undefined) {
    deltas.push({ kind: "provider.warning", summary: "Compaction skipped", details: skippedDetail, category: "compaction-skipped", vouchedTurn: true });
  }
  if (compacted) deltas.push({ kind: "context.compacted" });
  const boundary: ThreadDelta = { kind: "turn.boundary", status };
  if (error !== undefined) boundary.error = { message: error };
  deltas.push(boundary);
  return deltas;
}

/**
 * The agent's own text about why a prompt ended, from the prompt result's `_meta`: `error` (a
 * string, or an object's `message`), else `message`, else `reason`. Agents put a refusal's cause
 * there ("429: quota exhausted"); spec 20 §3.5 only names the stop reason.
 */
export function promptResultDetail(result: unknown): string | undefined {
  const meta = result && typeof result === "object" ? (result as { _meta?: unknown })._meta : undefined;
  if (!meta || typeof meta !== "object") return undefined;
  const m = meta as Record<string, unknown>;
  const error = m.error;
  if (typeof error === "string" && error.length > 0) return error;
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
  for (const key of ["message", "reason"]) if (typeof m[key] === "string" && (m[key] as string).length > 0) return m[key] as string;
  return undefined;
}
