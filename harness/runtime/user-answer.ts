/**
 * A cell's scripted answer to a `user_question` interaction, written the way a cell author thinks
 * of it (`{color: "green"}`, `{regions: ["eu", "us"]}`), turned into the runtime's `user_answer`
 * resolution for the questions actually asked (stack/protocol/user-question.ts).
 */
import { UserQuestionPayloadSchema, type UserAnswer, type UserAnswerResolution } from "../../stack/protocol/user-question.js";

/**
 * The runtime's reply for `action` and the author's `answers` (question id → value):
 * - `decline` / `cancel` → `{action}`;
 * - `accept` → `{kind:"user_answer", answers}` where a value that is one of the question's option
 *   values (or a list of them) becomes `selected`, and any other value its `freeText` (numbers and
 *   booleans as text, the way a person would type them). Questions without an answer get none.
 * A payload that is not a `user_question` gets the answers as free text for the ids given.
 */
export function userAnswerFor(payload: unknown, action: "accept" | "decline" | "cancel", answers: Record<string, unknown>): UserAnswerResolution | { action: "decline" | "cancel" } {
  if (action !== "accept") return { action };
  const parsed = UserQuestionPayloadSchema.safeParse(payload);
  const optionValues = new Map(parsed.success ? parsed.data.questions.map((q) => [q.id, new Set((q.options ?? []).map((o) => o.value))]) : []);
  const out: Record<string, UserAnswer> = {};
  for (const [id, value] of Object.entries(answers)) {
    const values = optionValues.get(id) ?? new Set<string>();
    const picks = (Array.isArray(value) ? value : [value]).map(String);
    out[id] = picks.every((v) => values.has(v)) ? { selected: picks } : { selected: [], freeText: picks.join(", ") };
  }
  return { kind: "user_answer", answers: out };
}
