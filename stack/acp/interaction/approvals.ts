/**
 * `session/request_permission` → `interaction/request` (spec 20 §1.5, §3.8; spec 30 §6.2).
 *
 * - Cancelled at once while stopping, while a steer's cancel is outstanding, or during compaction.
 * - `full`: decided locally (`allow_once`, else `allow_always`).
 * - `accept-edits`: always forwarded; the runtime enforces policy and its decision is mapped back
 *   to one of the agent's option ids. A stop or steer cancels a forwarded request: the agent gets
 *   `cancelled` and the runtime's late answer is ignored (no `notifications/cancelled`, as the
 *   reference bridge sends none for approvals).
 */
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { BRIDGE_JSON_RPC_ERRORS } from "../../protocol/errors.js";
import { AcpClientReplyError } from "../connection/connection.js";
import { AcpPermissionRequestSchema, CANCELLED_PERMISSION, availableDecisions, localFullModeOption, outcomeForDecision, type AcpPermissionOutcome } from "./permission-options.js";
import { askRuntimeInteraction, type ClientRequestPorts } from "./runtime-interaction.js";
import { emitDeltas, type AcpSession } from "../state/session.js";

/** Who enforces approvals, as the handshake reports it: the runtime (spec 20 §1.3). */
export const ACP_APPROVAL_ENFORCED_BY = "runtime";

/** The `interaction/request` approval subject (spec 20 §1.5). */
function approvalSubject(session: AcpSession, toolCall: unknown): Record<string, unknown> {
  const subject = session.translator.permissionSubject(toolCall);
  if (subject.kind === "command") {
    return {
      kind: "command",
      itemId: subject.itemId,
      command: subject.command,
      cwd: null,
      actions: [{ type: "unknown", command: subject.command }],
      sessionGrant: null,
    };
  }
  if (subject.kind === "file_change") return { kind: "file_change", itemId: subject.itemId, writeScope: subject.writeScope, sessionGrant: null };
  return { kind: "tool_use", itemId: subject.itemId, tool: subject.tool, presentation: subject.presentation };
}

/**
 * Handles one permission request and resolves with the ACP outcome for the agent.
 * @throws AcpClientReplyError -32602 `Invalid session/request_permission params`.
 */
export async function handlePermissionRequest(rt: AcpBridgeRuntime, session: AcpSession, params: unknown, ports: ClientRequestPorts): Promise<AcpPermissionOutcome> {
  const parsed = AcpPermissionRequestSchema.safeParse(params);
  if (!parsed.success) throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.invalidParams, "Invalid session/request_permission params");
  const { options, toolCall } = parsed.data;
  const run = session.prompt;
  if (session.phase === "stopping" || run?.cancelling || run?.kind === "compaction") return CANCELLED_PERMISSION;
  // A tool call the agent names first in its permission request keeps the request's title, and the
  // client writes it makes before reporting the call settle with it (one edit, one fileChange), in
  // full mode too, where the request is answered here without asking the runtime.
  if (toolCall) session.translator.notePermissionToolCall(toolCall);
  if (session.settings.permissionMode === "full") {
    const option = localFullModeOption(options);
    if (option) return { outcome: { outcome: "selected", optionId: option.optionId } };
  }

  // A request the runtime must answer while the session is idle is agent-initiated work (spec 30 §6.2).
  ports.noteAgentActivity();
  const payload = {
    kind: "approval",
    subject: approvalSubject(session, toolCall ?? undefined),
    reason: null,
    availableDecisions: availableDecisions(options),
  };
  let decision: unknown;
  const outcome = await askRuntimeInteraction(
    rt,
    session,
    payload,
    (reply) => {
      decision = reply && typeof reply === "object" ? (reply as { decision?: unknown }).decision : undefined;
      return outcomeForDecision(decision, options);
    },
    CANCELLED_PERMISSION,
    ports.answerWritten,
  );
  if (outcome.outcome.outcome === "selected") noteChosenOption(rt, session, toolCall?.toolCallId, decision, outcome.outcome.optionId, options);
  // A denial is in the lane: the call settles with approvalStatus "denied" (its own item even
  // when only this request named it), before the agent hears the answer.
  if (decision === "deny" && toolCall?.toolCallId !== undefined) emitDeltas(rt.ctx.io, session, session.translator.permissionDenied(toolCall.toolCallId));
  // An allow is in the lane too (issue 37): the runtime's allow went back as one of the agent's
  // allow options, and the call's close says approvalStatus "approved".
  if (outcome.outcome.outcome === "selected" && toolCall?.toolCallId !== undefined) {
    const chosen = outcome.outcome.optionId;
    if (options.find((option) => option.optionId === chosen)?.kind.startsWith("allow") === true) session.translator.permissionApproved(toolCall.toolCallId);
  }
  return outcome;
}

/**
 * Makes the option the bridge answered with visible: a log line, and, when the agent offered
 * several options of the chosen kind, `item.progress` on the tool call's open item ("Permission
 * deny → option reject-continue (No, continue)"). Spec 20 §3.8 leaves the choice invisible; with
 * several options of one kind the reader of the lane needs to see which went back.
 */
function noteChosenOption(
  rt: AcpBridgeRuntime,
  session: AcpSession,
  toolCallId: string | undefined,
  decision: unknown,
  optionId: string,
  options: ReadonlyArray<{ optionId: string; name?: string | undefined; kind: string }>,
): void {
  const name = options.find((option) => option.optionId === optionId)?.name;
  const message = `Permission ${String(decision)} → option ${optionId}${name ? ` (${name})` : ""}`;
  rt.ctx.log(`ACP thread ${session.threadId}: ${message}${toolCallId ? ` for tool call ${toolCallId}` : ""}`);
  // On the thread only when the decision had several options of the chosen kind to pick from.
  const kind = options.find((option) => option.optionId === optionId)?.kind;
  const ambiguous = options.filter((option) => option.kind === kind).length > 1;
  if (toolCallId && ambiguous) emitDeltas(rt.ctx.io, session, session.translator.permissionDecided(toolCallId, message));
}
