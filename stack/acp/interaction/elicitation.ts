/**
 * `elicitation/create` (spec 30 §6.3): the agent's form becomes a `user_question`
 * `interaction/request` to the runtime (planned in elicitation-plan.ts), and the runtime's
 * `user_answer` goes back to the agent as typed form content.
 *
 * - A form bb cannot show (URL mode, too many or unaskable fields) → warning
 *   "The agent asked a question bb could not show" and `{action:"decline"}`.
 * - The runtime's request failing, or a stop/steer/compaction cancelling it → `{action:"cancel"}`.
 * - An answer that does not fit its field (not an option, not a number) → warning
 *   "The answer to the agent's question could not be sent" and `{action:"cancel"}`.
 */
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { askRuntimeInteraction, type ClientRequestPorts } from "./runtime-interaction.js";
import { emitDeltas, type AcpSession } from "../state/session.js";
import { ElicitationAnswerError, elicitationResponseOf, planAcpElicitation, type ElicitationResponse } from "./elicitation-plan.js";

export { USER_QUESTION_MAX_FIELDS, type ElicitationResponse } from "./elicitation-plan.js";

/** Warning summary when a question cannot be shown. */
export const UNSHOWABLE_QUESTION_WARNING = "The agent asked a question bb could not show";
/** Warning summary when the runtime's answer does not fit the agent's form. */
export const UNSENDABLE_ANSWER_WARNING = "The answer to the agent's question could not be sent";

/** Handles one `elicitation/create` and resolves with the agent's answer (never rejects). */
export async function handleElicitation(rt: AcpBridgeRuntime, session: AcpSession, params: unknown, ports: ClientRequestPorts): Promise<ElicitationResponse> {
  if (session.phase === "stopping") return { action: "cancel" };
  const plan = planAcpElicitation(params);
  if (plan.kind === "unshowable") {
    const message = params && typeof params === "object" ? (params as { message?: unknown }).message : undefined;
    rt.ctx.log(`elicitation/create not shown: ${plan.reason}`);
    emitDeltas(rt.ctx.io, session, session.translator.warning({ summary: UNSHOWABLE_QUESTION_WARNING, details: typeof message === "string" && message ? message : undefined }));
    return { action: "decline" };
  }
  ports.noteAgentActivity();
  const answerOf = (reply: unknown): ElicitationResponse => {
    try {
      return elicitationResponseOf(plan, reply);
    } catch (error) {
      if (!(error instanceof ElicitationAnswerError)) throw error;
      emitDeltas(rt.ctx.io, session, session.translator.warning({ summary: UNSENDABLE_ANSWER_WARNING, details: error.message }));
      return { action: "cancel" };
    }
  };
  return askRuntimeInteraction(rt, session, plan.payload, answerOf, { action: "cancel" }, ports.answerWritten);
}
