/**
 * Translation of one ACP `session/update` by kind (spec 20 §3.2, with spec 30 §6.3 thread state).
 */
import type { PlanStep, ThreadDelta } from "../../protocol/thread-delta.js";
import {
  AcpChunkUpdateSchema,
  AcpPlanUpdateSchema,
  AcpUsageUpdateSchema,
  readToolCallFields,
} from "./acp-update-schemas.js";
import {
  ASSISTANT_CHANNEL,
  closeThought,
  suppressedUpdate,
  THOUGHT_CHANNEL,
  unhandledUpdate,
  updateFallback,
} from "./envelopes.js";
import { shapePresentation } from "./presentation.js";
import type { SessionStateModel } from "./session-state.js";
import type { ToolCallTracker } from "./tool-calls.js";

/** Update kinds that count as turn output (spec 30 §6.2, zero-output turns and pre-prompt drops). */
export const TURN_OUTPUT_UPDATE_KINDS: readonly string[] = Object.freeze([
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);

/** Update kinds that produce nothing on the timeline (spec 20 §3.2 "noise"). */
export const NOISE_UPDATE_KINDS: readonly string[] = Object.freeze(["user_message_chunk", "session_info_update"]);

/** Key channel of plan snapshots (spec 20 §3.2). */
export const PLAN_CHANNEL = "planSteps";

const PLAN_STATUS: Readonly<Record<string, PlanStep["status"]>> = Object.freeze({
  pending: "pending",
  in_progress: "active",
  completed: "completed",
});

/** What the per-kind translation needs from its translator instance. */
export interface SessionUpdateContext {
  threadId: string;
  tools: ToolCallTracker;
  state: SessionStateModel;
  /** Called with each agent message chunk's text (omp compaction reads the reply). */
  onAgentText(text: string): void;
}

/** A chunk's text; `null` for a well-formed non-text chunk (suppressed); `undefined` when unparseable (dropped). */
function textChunk(update: Record<string, unknown>): string | null | undefined {
  const parsed = AcpChunkUpdateSchema.safeParse(update);
  if (!parsed.success) return undefined;
  if (parsed.data.content.type !== "text" || typeof parsed.data.content.text !== "string") return null;
  return parsed.data.content.text;
}

function planSteps(ctx: SessionUpdateContext, update: Record<string, unknown>): ThreadDelta[] {
  const parsed = AcpPlanUpdateSchema.safeParse(update);
  if (!parsed.success) return [];
  const steps = parsed.data.entries.map((entry): PlanStep => {
    const status = entry.status != null ? PLAN_STATUS[entry.status] : undefined;
    return status !== undefined ? { step: entry.content, status } : { step: entry.content };
  });
  const item = { type: "planSteps" as const, steps };
  return [
    {
      kind: "item.close",
      key: { channel: PLAN_CHANNEL },
      status: "completed",
      item,
      presentation: shapePresentation(item, undefined),
      noTurnFallback: updateFallback(ctx.threadId, update),
    },
  ];
}

/**
 * Deltas of one update whose `sessionUpdate` is a string (spec 20 §3.2). Unknown kinds →
 * `unhandled {vouchedTurn:true}`; non-text chunks → suppressed `unhandled`; a known kind missing its
 * required fields is unparseable and dropped (spec 20 §2.5); state kinds feed the session model and
 * publish changed `extension.state`.
 */
export function translateSessionUpdate(ctx: SessionUpdateContext, update: Record<string, unknown>): ThreadDelta[] {
  const kind = update.sessionUpdate as string;
  switch (kind) {
    case "agent_message_chunk": {
      const text = textChunk(update);
      if (text === undefined) return [];
      if (text === null) return [suppressedUpdate(ctx.threadId, update)];
      ctx.onAgentText(text);
      return [
        closeThought(),
        { kind: "item.textDelta", key: { channel: ASSISTANT_CHANNEL }, channel: "agentMessage", text, noTurnFallback: updateFallback(ctx.threadId, update) },
      ];
    }
    case "agent_thought_chunk": {
      const text = textChunk(update);
      if (text === undefined) return [];
      if (text === null) return [suppressedUpdate(ctx.threadId, update)];
      return [
        { kind: "item.textDelta", key: { channel: THOUGHT_CHANNEL }, channel: "reasoningText", text, noTurnFallback: updateFallback(ctx.threadId, update) },
      ];
    }
    case "tool_call":
    case "tool_call_update": {
      // Without a toolCallId the update is unparseable, and unparseable updates are dropped (spec 20 §2.5).
      const fields = readToolCallFields(update);
      if (fields === undefined) return [];
      return kind === "tool_call" ? ctx.tools.toolCall(update, fields) : ctx.tools.toolCallUpdate(update, fields);
    }
    case "plan":
      return planSteps(ctx, update);
    case "usage_update": {
      const parsed = AcpUsageUpdateSchema.safeParse(update);
      if (!parsed.success) return [];
      return [{ kind: "contextWindow", used: parsed.data.used, size: parsed.data.size, estimated: false, attach: "open" }];
    }
    case "available_commands_update":
    case "current_mode_update":
    case "config_option_update":
      ctx.state.observeUpdate(update);
      return ctx.state.publish();
    default:
      if (NOISE_UPDATE_KINDS.includes(kind)) return [];
      return [unhandledUpdate(ctx.threadId, update)];
  }
}
