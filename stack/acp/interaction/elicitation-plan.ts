/**
 * Elicitation planning (spec 30 §6.3, the reference's `planAcpElicitation`): which ACP
 * `elicitation/create` forms bb can show as a `user_question` interaction, the questions it
 * shows, and how the runtime's `user_answer` maps back to the form's typed `content`.
 *
 * Pure: no I/O, no session. The request is read through the official ACP SDK's types and its
 * validating guards (`CreateElicitationRequest.isForm` / `isUrl`), so a malformed form is refused
 * the way the SDK's wire validation would refuse it; the guards are loaded on the first plan
 * (elicitation-guards.ts), not when the bridge starts.
 */
import type { CreateElicitationRequest, ElicitationContentValue, ElicitationPropertySchema, EnumOption } from "@agentclientprotocol/sdk";
import { elicitationRequestGuards } from "./elicitation-guards.js";
import type { UserQuestion, UserQuestionOption, UserQuestionPayload } from "../../protocol/user-question.js";
import { UserAnswerResolutionSchema, type UserAnswer } from "../../protocol/user-question.js";

/** Most fields one form may ask and still be shown (the user-question maximum, spec 30 §6.3). */
export const USER_QUESTION_MAX_FIELDS = 4;

/** The question id of a form with no fields (Accept/Decline). */
export const CONFIRM_QUESTION_ID = "confirm";

/** How one form field is read back from an answer. */
export type PlannedField =
  | { id: string; required: boolean; kind: "choice"; values: string[] }
  | { id: string; required: boolean; kind: "text" }
  | { id: string; required: boolean; kind: "boolean" }
  | { id: string; required: boolean; kind: "number"; integer: boolean }
  | { id: string; required: boolean; kind: "multi"; values: string[] };

/**
 * The plan for one `elicitation/create`:
 * - `confirm`: a form with no fields → one Accept/Decline question;
 * - `form`: one question per field (at most {@link USER_QUESTION_MAX_FIELDS});
 * - `unshowable`: URL mode, an unknown mode, a malformed form, too many fields or a field type
 *   bb cannot ask; `reason` says which (for logs).
 */
export type ElicitationPlan = { kind: "confirm"; payload: UserQuestionPayload } | { kind: "form"; payload: UserQuestionPayload; fields: PlannedField[] } | { kind: "unshowable"; reason: string };

/** The ACP answer to an elicitation (spec 30 §6.3; ACP `CreateElicitationResponse`). */
export type ElicitationResponse = { action: "accept"; content?: Record<string, ElicitationContentValue> } | { action: "decline" } | { action: "cancel" };

function label(field: { title?: string | null; description?: string | null }, id: string): { prompt: string; shortLabel: string } {
  const title = field.title?.trim() || undefined;
  const description = field.description?.trim() || undefined;
  return { prompt: description ?? title ?? id, shortLabel: title ?? id };
}

function enumOptions(values: string[]): UserQuestionOption[] {
  return values.map((value) => ({ value, label: value }));
}

function titledOptions(options: EnumOption[]): UserQuestionOption[] {
  return options.map((o) => ({ value: o.const, label: o.title, ...(o.description ? { description: o.description } : {}) }));
}

/** One field → its question and read-back rule, or a reason it cannot be asked. */
function planField(id: string, schema: ElicitationPropertySchema, required: boolean): { question: UserQuestion; field: PlannedField } | string {
  const { prompt, shortLabel } = label(schema as { title?: string | null; description?: string | null }, id);
  const base = { id, prompt, shortLabel };
  switch (schema.type) {
    case "string": {
      const s = schema as Extract<ElicitationPropertySchema, { type: "string"; enum?: unknown }>;
      const options = s.oneOf?.length ? titledOptions(s.oneOf) : s.enum?.length ? enumOptions(s.enum) : null;
      if (options) return { question: { ...base, multiSelect: false, options, allowFreeText: false }, field: { id, required, kind: "choice", values: options.map((o) => o.value) } };
      return { question: { ...base, multiSelect: false, allowFreeText: true }, field: { id, required, kind: "text" } };
    }
    case "boolean":
      return {
        question: {
          ...base,
          multiSelect: false,
          options: [
            { value: "true", label: "Yes" },
            { value: "false", label: "No" },
          ],
          allowFreeText: false,
        },
        field: { id, required, kind: "boolean" },
      };
    case "number":
    case "integer":
      return { question: { ...base, multiSelect: false, allowFreeText: true }, field: { id, required, kind: "number", integer: schema.type === "integer" } };
    case "array": {
      const items = (schema as { items?: unknown }).items as { enum?: unknown; anyOf?: unknown } | undefined;
      const options = Array.isArray(items?.anyOf)
        ? titledOptions(items.anyOf as EnumOption[])
        : Array.isArray(items?.enum) && items.enum.every((v) => typeof v === "string")
          ? enumOptions(items.enum as string[])
          : null;
      if (!options?.length) return `field "${id}": a multi-select without options`;
      return { question: { ...base, multiSelect: true, options, allowFreeText: false }, field: { id, required, kind: "multi", values: options.map((o) => o.value) } };
    }
    default:
      return `field "${id}": type "${String(schema.type)}" cannot be asked`;
  }
}

/**
 * Plans one `elicitation/create` request (params as received; see {@link ElicitationPlan}).
 * A request without `mode` is read as a form (agents written before ACP named the modes).
 */
export function planAcpElicitation(params: unknown): ElicitationPlan {
  if (!params || typeof params !== "object") return { kind: "unshowable", reason: "params are not an object" };
  const request = ("mode" in params ? params : { ...params, mode: "form" }) as CreateElicitationRequest;
  const guards = elicitationRequestGuards();
  if (guards.isUrl(request)) return { kind: "unshowable", reason: "URL mode" };
  if (!guards.isForm(request)) return { kind: "unshowable", reason: request.mode === "form" ? "a malformed form" : `mode "${String(request.mode)}"` };
  const message = request.message;
  const properties = Object.entries(request.requestedSchema.properties ?? {});
  if (properties.length === 0) {
    const question: UserQuestion = {
      id: CONFIRM_QUESTION_ID,
      prompt: message,
      multiSelect: false,
      options: [
        { value: "accept", label: "Accept" },
        { value: "decline", label: "Decline" },
      ],
      allowFreeText: false,
    };
    return { kind: "confirm", payload: { kind: "user_question", questions: [question] } };
  }
  if (properties.length > USER_QUESTION_MAX_FIELDS) return { kind: "unshowable", reason: `${properties.length} fields (at most ${USER_QUESTION_MAX_FIELDS})` };
  const required = new Set(request.requestedSchema.required ?? []);
  const questions: UserQuestion[] = [];
  const fields: PlannedField[] = [];
  for (const [id, schema] of properties) {
    const planned = planField(id, schema, required.has(id));
    if (typeof planned === "string") return { kind: "unshowable", reason: planned };
    questions.push(planned.question);
    fields.push(planned.field);
  }
  // A lone field's own label is usually terse; the agent's message is the real question.
  if (questions.length === 1 && message.trim()) questions[0] = { ...questions[0]!, prompt: message };
  return { kind: "form", payload: { kind: "user_question", questions }, fields };
}

/** Why an answer could not become form content (the agent is then answered `cancel`). */
export class ElicitationAnswerError extends Error {}

function readField(field: PlannedField, answer: UserAnswer | undefined): ElicitationContentValue | undefined {
  const text = answer?.freeText?.trim() ? answer.freeText : undefined;
  const picked = answer?.selected ?? [];
  switch (field.kind) {
    case "text":
      return text ?? picked[0];
    case "choice": {
      const value = picked[0] ?? text;
      if (value !== undefined && !field.values.includes(value)) throw new ElicitationAnswerError(`"${value}" is not an option of ${field.id}`);
      return value;
    }
    case "boolean": {
      const value = picked[0] ?? text;
      if (value === undefined) return undefined;
      if (value !== "true" && value !== "false") throw new ElicitationAnswerError(`"${value}" is not yes or no for ${field.id}`);
      return value === "true";
    }
    case "number": {
      const raw = text ?? picked[0];
      if (raw === undefined) return undefined;
      const value = Number(raw.trim());
      if (raw.trim() === "" || !Number.isFinite(value) || (field.integer && !Number.isInteger(value))) {
        throw new ElicitationAnswerError(`"${raw}" is not ${field.integer ? "an integer" : "a number"} for ${field.id}`);
      }
      return value;
    }
    case "multi": {
      if (!answer) return undefined;
      const unknown = picked.find((v) => !field.values.includes(v));
      if (unknown !== undefined) throw new ElicitationAnswerError(`"${unknown}" is not an option of ${field.id}`);
      return picked;
    }
  }
}

/**
 * Maps the runtime's reply to the ACP answer:
 * - `{kind:"user_answer", answers}` → `accept` with each answered field converted to its schema
 *   type (a confirm question: `accept` / `decline` by the picked value);
 * - `{action:"decline"}`, `{decision:"deny"}` or an answer leaving a required field empty → `decline`;
 * - `{action:"cancel"}` or anything unreadable → `cancel`.
 * @throws ElicitationAnswerError when an answer does not fit its field (not an option, not a number).
 */
export function elicitationResponseOf(plan: Exclude<ElicitationPlan, { kind: "unshowable" }>, reply: unknown): ElicitationResponse {
  const r = (reply && typeof reply === "object" ? reply : {}) as { action?: unknown; decision?: unknown };
  if (r.action === "decline" || r.decision === "deny") return { action: "decline" };
  const resolution = UserAnswerResolutionSchema.safeParse(reply);
  if (!resolution.success) return { action: "cancel" };
  const answers = resolution.data.answers;
  if (plan.kind === "confirm") {
    const picked = answers[CONFIRM_QUESTION_ID]?.selected[0];
    return picked === "accept" ? { action: "accept" } : picked === "decline" ? { action: "decline" } : { action: "cancel" };
  }
  const content: Record<string, ElicitationContentValue> = {};
  for (const field of plan.fields) {
    const value = readField(field, answers[field.id]);
    if (value === undefined) {
      if (field.required) return { action: "decline" };
      continue;
    }
    content[field.id] = value;
  }
  return { action: "accept", content };
}
