/**
 * Codex's approval requests → the runtime's `interaction/request` and back (spec 60 "Approval";
 * spec 20 §1.5, §3.8). Codex enforces its approval policy and asks the bridge; the bridge asks
 * the runtime and answers with Codex's own decision.
 */
import { askRuntime, type BridgeIo } from "../bridge-kit/io.js";
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
 * Answers one approval request: asks the runtime and hands `reply` the `{decision}` for Codex
 * where the runtime's answer is read (`askRuntime`), so Codex hears it before anything the bridge
 * writes for a runtime line read after it (a `thread/stop`'s `turn/interrupt`, a `turn/steer` in
 * the same chunk). A stopping session's request is answered `cancel` at once, asking nothing; a
 * failed request or error answer is `cancel`.
 * @throws Error (synchronously) when the params are not an approval request's.
 */
export function answerApproval(asker: ApprovalAsker, method: string, params: unknown, reply: (answer: { decision: CodexDecision }) => void): void {
  const request = ApprovalRequestSchema.parse(params);
  const finish = (decision: CodexDecision): void => {
    asker.noteApproval(request.itemId, decision === "accept" || decision === "acceptForSession");
    reply({ decision });
  };
  if (asker.stopping) return finish("cancel");
  const payload = approvalPayload(method, request);
  askRuntime(asker.io, "interaction/request", { threadId: asker.threadId, providerThreadId: asker.providerThreadId, turnId: null, payload }, (answer) =>
    finish(answer.ok ? codexDecision((answer.result as { decision?: unknown } | null | undefined)?.decision) : "cancel"),
  );
}
