/**
 * The `user_question` payload of `interaction/request` and the runtime's `user_answer`
 * resolution (spec 30 §6.3: an agent's form becomes a `user_question` interaction).
 *
 * The spec names the kind but not its fields. These follow the reference runtime's pending
 * interaction contract: provider-neutral questions keyed by a host-chosen `id`, options carrying
 * a canonical `value` apart from their display `label`, and answers that always have a
 * `selected` slot plus an optional `freeText`, so one question can mix a pick and a typed note.
 */
import * as z from "zod";

/** One choice of a question: `value` is what answers carry, `label` what a person reads. */
export const UserQuestionOptionSchema = z.looseObject({
  value: z.string(),
  label: z.string(),
  description: z.string().optional(),
});
/** One choice of a question. */
export type UserQuestionOption = z.infer<typeof UserQuestionOptionSchema>;

/** One question: its answer key, text, short label, and how it may be answered. */
export const UserQuestionSchema = z.looseObject({
  id: z.string().min(1),
  prompt: z.string(),
  shortLabel: z.string().optional(),
  multiSelect: z.boolean(),
  options: z.array(UserQuestionOptionSchema).optional(),
  allowFreeText: z.boolean(),
});
/** One question of a `user_question` payload. */
export type UserQuestion = z.infer<typeof UserQuestionSchema>;

/** `{kind:"user_question", questions[]}` — the payload of an `interaction/request`. */
export const UserQuestionPayloadSchema = z.looseObject({
  kind: z.literal("user_question"),
  questions: z.array(UserQuestionSchema).min(1),
});
/** The payload of a `user_question` interaction. */
export type UserQuestionPayload = z.infer<typeof UserQuestionPayloadSchema>;

/** One question's answer: the option values picked (possibly none) and any typed text. */
export const UserAnswerSchema = z.looseObject({
  selected: z.array(z.string()),
  freeText: z.string().optional(),
});
/** One question's answer. */
export type UserAnswer = z.infer<typeof UserAnswerSchema>;

/** `{kind:"user_answer", answers: {<question id>: {selected, freeText?}}}` — the runtime's reply. */
export const UserAnswerResolutionSchema = z.looseObject({
  kind: z.literal("user_answer"),
  answers: z.record(z.string(), UserAnswerSchema),
});
/** The runtime's answer to a `user_question` interaction. */
export type UserAnswerResolution = z.infer<typeof UserAnswerResolutionSchema>;
