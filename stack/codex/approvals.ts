/**
 * Codex's approval requests → the runtime's `interaction/request` and back (spec 60 "Approval";
 * spec 20 §1.5, §3.8). Codex enforces its approval policy and asks the bridge; the bridge asks
 * the runtime and answers with Codex's own decision.
 */
import type { BridgeIo } from "../bridge-kit/io.js";
import { unwrapShellCommand } from "./items.js";
import { ApprovalRequestSchema, CODEX_SERVER_REQUESTS, type ApprovalRequest } from "./wire.js";

/** Codex's decisions the bridge sends (`CommandExecutionApprovalDecision`, `FileChangeApprovalDecision`). */
export type CodexDecision = "accept" | "acceptForSession" | "decline" | "cancel";

/** The runtime's decisions the bridge offers (spec 20 §3.8). */
export const OFFERED_DECISIONS = ["allow_once", "allow_for_session", "deny"] as const;

/**
 * The runtime's decision as Codex's: `allow_once` → `accept`, `allow_for_session` →
 * `acceptForSession`, `deny` → `decline` (Codex accepts it though its `availableDecisions` may
 * not list it, spec 60), anything else (no answer, an error) → `cancel`.
 */
export function codexDecision(decision: unknown): CodexDecision {
  if (decision === "allow_once") return "accept";
  if (decision === "allow_for_session") return "acceptForSession";
  if (decision === "deny") return "decline";
  return "cancel";
}

/** True for the server requests this module answers. */
export function isApprovalRequest(method: string): boolean {
  return method === CODEX_SERVER_REQUESTS.commandApproval || method === CODEX_SERVER_REQUESTS.fileChangeApproval;
}

/** The `interaction/request` payload of one approval request. */
export function approvalPayload(method: string, request: ApprovalRequest): Record<string, unknown> {
  if (method === CODEX_SERVER_REQUESTS.commandApproval) {
    const command = unwrapShellCommand(request.command ?? "");
    return {
      kind: "approval",
      subject: {
        kind: "command",
        itemId: request.itemId,
        command,
        cwd: request.cwd ?? null,
        actions: (request.commandActions ?? []).map((a) => ({ type: a.type, command: a.command ?? command, ...(a.path ? { path: a.path } : {}) })),
        sessionGrant: null,
      },
      reason: request.reason ?? null,
      availableDecisions: [...OFFERED_DECISIONS],
    };
  }
  return {
    kind: "approval",
    subject: { kind: "file_change", itemId: request.itemId, writeScope: request.grantRoot ?? null, sessionGrant: null },
    reason: request.reason ?? null,
    availableDecisions: [...OFFERED_DECISIONS],
  };
}

/** Who asks: the session's ids and whether it is stopping (a request then gets `cancel` without asking). */
export interface ApprovalAsker {
  io: BridgeIo;
  threadId: string;
  providerThreadId: string;
  stopping: boolean;
  /** Called with the item id of the call Codex asked about and whether it was allowed (`decline` and `cancel`, a stopping session's too, are not). */
  noteApproval(itemId: string, allowed: boolean): void;
}

/**
 * Answers one approval request: asks the runtime and resolves with `{decision}` for Codex.
 * @throws Error when the params are not an approval request's.
 */
export async function answerApproval(asker: ApprovalAsker, method: string, params: unknown): Promise<{ decision: CodexDecision }> {
  const request = ApprovalRequestSchema.parse(params);
  let decision: CodexDecision = "cancel";
  if (!asker.stopping) {
    try {
      const reply = await asker.io.request<{ decision?: unknown }>("interaction/request", {
        threadId: asker.threadId,
        providerThreadId: asker.providerThreadId,
        turnId: null,
        payload: approvalPayload(method, request),
      });
      decision = codexDecision(reply?.decision);
    } catch {
      decision = "cancel";
    }
  }
  asker.noteApproval(request.itemId, decision === "accept" || decision === "acceptForSession");
  return { decision };
}
