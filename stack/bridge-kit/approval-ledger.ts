/**
 * The runtime's answers to an agent's permission requests, kept per call until the call's
 * `item.close` says them (issue 37: an allowed call is as visible as a denied one; spec 10 §1.3
 * `item.close.approvalStatus`, whose "approved" is this project's extension —
 * stack/protocol/thread-events.ts `ApprovalStatusSchema`). A native bridge notes what the runtime
 * answered to a request its CLI made; a call that never asked, or one the bridge let through
 * without asking (a `full` permission mode), has no entry and its close no `approvalStatus`.
 * No I/O, no clock.
 */

/** An approval outcome as an `item.close` carries it. */
export type ApprovalStatus = "approved" | "denied";

/**
 * True for the runtime's decisions that let a call run: `allow_once` and `allow_for_session`
 * (spec 20 §3.8); anything else — `deny`, a missing or unknown decision — does not.
 */
export function isAllowDecision(decision: unknown): boolean {
  return decision === "allow_once" || decision === "allow_for_session";
}

/**
 * The decision of a runtime's reply to an approval `interaction/request` (`{decision, …}`), or
 * undefined when the reply has none (null, not an object).
 */
export function replyDecision(reply: unknown): unknown {
  return typeof reply === "object" && reply !== null ? (reply as { decision?: unknown }).decision : undefined;
}

/**
 * The approval outcomes of one session's (or turn's) calls, by the CLI's call id. A denial
 * stays: a later allow of the same id does not undo it (the ACP bridge's rule,
 * stack/acp/translate/tool-calls.ts `approve`).
 */
export class ApprovalLedger {
  private readonly outcomes = new Map<string, ApprovalStatus>();

  /** Records the runtime's answer about call `callId`: `approved` when it allowed the call, else `denied`. */
  note(callId: string, allowed: boolean): void {
    if (this.outcomes.get(callId) === "denied") return;
    this.outcomes.set(callId, allowed ? "approved" : "denied");
  }

  /**
   * The `approvalStatus` field of call `callId`'s close — `{approvalStatus}` when the runtime
   * answered a request about it, `{}` when none was made — and forgets the call.
   */
  take(callId: string): { approvalStatus?: ApprovalStatus } {
    const status = this.outcomes.get(callId);
    this.outcomes.delete(callId);
    return status === undefined ? {} : { approvalStatus: status };
  }

  /** Forgets every call (a turn settled). */
  clear(): void {
    this.outcomes.clear();
  }
}
