/**
 * pi's `extension_ui_request`s as the runtime's `interaction/request`s (spec 60 "pi",
 * Approvals; spec 20 §1.5): the gate's `confirm` is an approval of the tool call it names;
 * any other `confirm`, `select`, `input` and `editor` is a user question; the fire-and-forget
 * methods (`notify`, `setStatus`, `setWidget`, `setTitle`, `set_editor_text`) need no answer
 * and show nothing. Pure: builds payloads and answers, sends nothing.
 */
import { isAllowDecision, replyDecision } from "../bridge-kit/approval-ledger.js";
import { UserAnswerResolutionSchema } from "../protocol/user-question.js";
import { gatedCallOf } from "./extension.js";

/** The dialog methods pi waits on (pi 0.73.1 `docs/rpc.md` "Extension UI Protocol"). */
export const PI_DIALOG_METHODS = ["confirm", "select", "input", "editor"] as const;

/** What to ask the runtime for one UI request, and how its reply becomes pi's `extension_ui_response` fields. */
export interface UiQuestion {
  /** The `interaction/request` payload. */
  payload: Record<string, unknown>;
  /** The tool call an approval is about (its denial is shown on that call's item). */
  toolCallId?: string;
  /** pi's answer fields for the runtime's reply. */
  answer(reply: unknown): Record<string, unknown>;
  /** pi's answer fields when the runtime cannot answer (stop, closed, error). */
  readonly refused: Record<string, unknown>;
}

const QUESTION_ID = "answer";

function approvalSubject(call: { toolCallId: string; toolName: string; input: Record<string, unknown> }, cwd: string): Record<string, unknown> {
  if (call.toolName === "bash") {
    const command = typeof call.input.command === "string" ? call.input.command : "";
    return { kind: "command", itemId: call.toolCallId, command, cwd, actions: [{ type: "unknown", command }], sessionGrant: null };
  }
  if (call.toolName === "edit" || call.toolName === "write") {
    return { kind: "file_change", itemId: call.toolCallId, writeScope: typeof call.input.path === "string" ? call.input.path : null, sessionGrant: null };
  }
  return { kind: "tool_use", itemId: call.toolCallId, tool: call.toolName };
}

/** The answers of a user_question reply to our one question, or undefined. */
function answerOf(reply: unknown): { selected: string[]; freeText?: string } | undefined {
  const parsed = UserAnswerResolutionSchema.safeParse(reply);
  return parsed.success ? parsed.data.answers[QUESTION_ID] : undefined;
}

function question(prompt: string, options: string[] | undefined, allowFreeText: boolean): Record<string, unknown> {
  return {
    kind: "user_question",
    questions: [{ id: QUESTION_ID, prompt, multiSelect: false, ...(options ? { options: options.map((o) => ({ value: o, label: o })) } : {}), allowFreeText }],
  };
}

/**
 * The question one dialog request asks, or undefined for a fire-and-forget method.
 * @param request the `extension_ui_request` line, parsed
 * @param cwd the session's working directory (an approval's command subject)
 */
export function uiQuestionOf(request: Record<string, unknown>, cwd: string): UiQuestion | undefined {
  const method = String(request.method);
  const title = typeof request.title === "string" ? request.title : "";
  if (method === "confirm") {
    const call = gatedCallOf(request);
    if (call) {
      return {
        payload: { kind: "approval", subject: approvalSubject(call, cwd), reason: null, availableDecisions: ["allow_once", "deny"] },
        toolCallId: call.toolCallId,
        answer: (reply) => ({ confirmed: isAllowDecision(replyDecision(reply)) }),
        refused: { confirmed: false },
      };
    }
    const prompt = [title, typeof request.message === "string" ? request.message : ""].filter(Boolean).join("\n\n");
    return { payload: question(prompt, ["yes", "no"], false), answer: (reply) => ({ confirmed: answerOf(reply)?.selected[0] === "yes" }), refused: { confirmed: false } };
  }
  if (method === "select") {
    const options = Array.isArray(request.options) ? request.options.map(String) : [];
    return {
      payload: question(title, options, false),
      answer: (reply) => {
        const picked = answerOf(reply)?.selected[0];
        return picked === undefined ? { cancelled: true } : { value: picked };
      },
      refused: { cancelled: true },
    };
  }
  if (method === "input" || method === "editor") {
    return {
      payload: question(title, undefined, true),
      answer: (reply) => {
        const text = answerOf(reply)?.freeText;
        return text === undefined ? { cancelled: true } : { value: text };
      },
      refused: { cancelled: true },
    };
  }
  return undefined;
}
