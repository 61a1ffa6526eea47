/**
 * `elicitation/create` (spec 30 §6.3): a form becomes a `user_question` `interaction/request`.
 *
 * - Up to {@link USER_QUESTION_MAX_FIELDS} string/enum/boolean/number fields → one question each;
 *   no fields → one Accept/Decline question.
 * - Anything the runtime cannot show (URL mode, too many or nested fields) → warning
 *   "The agent asked a question bb could not show" and `{action:"decline"}`.
 * - A runtime failure → `{action:"cancel"}`; a stop cancels it with `{action:"cancel"}`.
 * The exact `user_question` payload of the reference is not specified; the shape here is
 * `{kind:"user_question", message, questions[{id, question, options?}]}` (answers by question id).
 */
import type { AcpBridgeRuntime } from "./bridge-runtime.js";
import { askRuntimeInteraction } from "./runtime-interaction.js";
import { emitDeltas, type AcpSession } from "./session.js";
import { noteAgentActivity } from "./agent-turns.js";

/** Most fields one elicitation may ask (the user-question maximum). */
export const USER_QUESTION_MAX_FIELDS = 4;
/** Warning summary when a question cannot be shown. */
export const UNSHOWABLE_QUESTION_WARNING = "The agent asked a question bb could not show";

/** The ACP elicitation answer. */
export type ElicitationResponse = { action: "accept"; content?: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

interface Question {
  id: string;
  question: string;
  options?: string[];
}

function questionsOf(message: string, schema: unknown): Question[] | null {
  if (schema === undefined || schema === null) return [{ id: "confirm", question: message, options: ["Accept", "Decline"] }];
  if (typeof schema !== "object") return null;
  const properties = (schema as { properties?: unknown }).properties;
  if (properties === undefined) return [{ id: "confirm", question: message, options: ["Accept", "Decline"] }];
  if (!properties || typeof properties !== "object") return null;
  const entries = Object.entries(properties as Record<string, unknown>);
  if (entries.length === 0) return [{ id: "confirm", question: message, options: ["Accept", "Decline"] }];
  if (entries.length > USER_QUESTION_MAX_FIELDS) return null;
  const out: Question[] = [];
  for (const [id, raw] of entries) {
    if (!raw || typeof raw !== "object") return null;
    const field = raw as { type?: unknown; title?: unknown; description?: unknown; enum?: unknown };
    const question = typeof field.title === "string" ? field.title : typeof field.description === "string" ? field.description : id;
    if (Array.isArray(field.enum) && field.enum.every((v) => typeof v === "string")) out.push({ id, question, options: field.enum as string[] });
    else if (field.type === "boolean") out.push({ id, question, options: ["true", "false"] });
    else if (field.type === "string" || field.type === "number" || field.type === "integer") out.push({ id, question });
    else return null;
  }
  return out;
}

/** Handles one `elicitation/create` and resolves with the agent's answer (never rejects). */
export async function handleElicitation(rt: AcpBridgeRuntime, session: AcpSession, params: unknown): Promise<ElicitationResponse> {
  if (session.stopping) return { action: "cancel" };
  const p = (params && typeof params === "object" ? params : {}) as { message?: unknown; requestedSchema?: unknown; mode?: unknown };
  const message = typeof p.message === "string" ? p.message : "";
  const questions = p.mode === "url" ? null : questionsOf(message, p.requestedSchema);
  if (!questions) {
    emitDeltas(rt.ctx.io, session, session.translator.warning({ summary: UNSHOWABLE_QUESTION_WARNING, details: message || undefined }));
    return { action: "decline" };
  }
  noteAgentActivity(rt, session);
  const confirmOnly = questions.length === 1 && questions[0]!.id === "confirm" && questions[0]!.options?.length === 2 && questions[0]!.options[0] === "Accept";
  const answerOf = (reply: unknown): ElicitationResponse => {
    const r = (reply && typeof reply === "object" ? reply : {}) as { action?: unknown; answers?: unknown };
    if (r.action === "decline" || r.action === "cancel") return { action: r.action };
    const answers = (r.answers && typeof r.answers === "object" ? r.answers : {}) as Record<string, unknown>;
    if (confirmOnly) return answers.confirm === "Decline" ? { action: "decline" } : { action: "accept" };
    return { action: "accept", content: answers };
  };
  return askRuntimeInteraction(rt, session, { kind: "user_question", message, questions }, answerOf, { action: "cancel" });
}
