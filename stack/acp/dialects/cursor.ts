/**
 * The Cursor dialect (spec 30 §1.3): the Task tool (`rawInput._toolName === "task"`) as a
 * `delegation`, and the vendor request `cursor/task` acknowledged with a sub-agent report.
 */
import * as z from "zod";
import { CURSOR_ACP_MAINTENANCE } from "../maintenance/cursor.js";
import { delegationPresentation } from "./presentation.js";
import type { AcpClientRequestOutcome, AcpDelegationReport, AcpDialect, AcpToolCallEvent } from "./types.js";

/** Cursor's vendor agent→client method reporting a finished sub-agent. */
export const CURSOR_TASK_METHOD = "cursor/task";

/** Label of a Task call without a title. */
export const CURSOR_DEFAULT_TASK_LABEL = "Subagent task";

/** `cursor/task` params: `toolCallId` required; other keys pass through (spec 30 §1.3). */
const CursorTaskParamsSchema = z.looseObject({
  toolCallId: z.string().min(1),
  description: z.string().min(1).optional().catch(undefined),
  prompt: z.string().min(1).optional().catch(undefined),
  agentId: z.string().min(1).optional().catch(undefined),
  model: z.string().min(1).optional().catch(undefined),
});

function isCursorTask(event: AcpToolCallEvent): boolean {
  const rawInput = event.rawInput;
  return typeof rawInput === "object" && rawInput !== null && (rawInput as Record<string, unknown>)._toolName === "task";
}

/**
 * The reply and report of a `cursor/task` request: always `{}`; a report
 * `{toolCallId, childRef: agentId ?? toolCallId, label: description ?? prompt, detail: "model <m>"}`
 * only when the params are valid and carry a label (spec 30 §1.3).
 */
export function handleCursorTask(params: unknown): AcpClientRequestOutcome {
  const parsed = CursorTaskParamsSchema.safeParse(params);
  if (!parsed.success) return { result: {} };
  const { toolCallId, description, prompt, agentId, model } = parsed.data;
  const label = description ?? prompt;
  if (label === undefined) return { result: {} };
  const delegation: AcpDelegationReport = { toolCallId, childRef: agentId ?? toolCallId, label };
  if (model !== undefined) delegation.detail = `model ${model}`;
  return { result: {}, delegation };
}

/** The `cursor` dialect (spec 30 §1.3). */
export const cursorAcpDialect: AcpDialect = Object.freeze({
  id: "cursor",
  classifyToolCall(event: AcpToolCallEvent) {
    if (!isCursorTask(event)) return undefined;
    const label = event.title ?? CURSOR_DEFAULT_TASK_LABEL;
    return {
      item: { type: "delegation" as const, childRef: event.toolCallId, label, background: false },
      presentation: delegationPresentation(label),
    };
  },
  clientRequestMethods: Object.freeze([CURSOR_TASK_METHOD]),
  handleClientRequest(method: string, params: unknown) {
    return method === CURSOR_TASK_METHOD ? handleCursorTask(params) : undefined;
  },
  maintenance: CURSOR_ACP_MAINTENANCE,

  parameterizedModelCatalog: true,
});
