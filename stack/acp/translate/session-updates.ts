/**
 * Translation of one ACP `session/update` by kind (spec 20 §3.2, with spec 30 §6.3 thread state).
 */
import type { JsonValue, PlanStep, ThreadDelta } from "../../protocol/thread-delta.js";
import { AcpPlanUpdateSchema, AcpUsageUpdateSchema, type AcpContentBlock } from "./acp-update-schemas.js";
import { AcpUpdate, TURN_OUTPUT_UPDATE_KINDS } from "./acp-update.js";
import { ASSISTANT_CHANNEL, closeAssistant, closeThought, suppressedUpdate, THOUGHT_CHANNEL, unhandledUpdate, updateFallback } from "./envelopes.js";
import { shapePresentation } from "../dialects/presentation.js";
import type { SessionStateModel } from "./session-state.js";
import type { ToolCallTracker } from "./tool-calls.js";

export { TURN_OUTPUT_UPDATE_KINDS };

/** Update kinds that produce nothing on the timeline (spec 20 §3.2 "noise"). */
export const NOISE_UPDATE_KINDS: readonly string[] = Object.freeze(["user_message_chunk", "session_info_update"]);

/** Extension kind of the session cost a `usage_update` reports. */
export const USAGE_COST_EXTENSION = "bb/session-cost";

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
  /** The ACP `messageId` of the last chunk per text channel (`assistant`, `thought`) that carried one. */
  readonly messageIds: Map<string, string>;
}

/**
 * The close of a text stream that a chunk of another ACP message ends: one agentMessage (or
 * reasoning item) per `messageId`, also when two messages follow each other with nothing between
 * (opencode's answer to a steer). Chunks without a `messageId` never split a stream.
 */
function messageBoundary(ctx: SessionUpdateContext, channel: string, update: Record<string, unknown>): ThreadDelta[] {
  const id = update.messageId;
  if (typeof id !== "string" || id.length === 0) return [];
  const last = ctx.messageIds.get(channel);
  ctx.messageIds.set(channel, id);
  if (last === undefined || last === id) return [];
  return [channel === ASSISTANT_CHANNEL ? closeAssistant() : closeThought()];
}

/** A chunk's text from its content block (read once, acp-update.ts); `null` for a well-formed non-text chunk (suppressed); `undefined` when it had none (dropped). */
function textChunk(content: AcpContentBlock | undefined, blocks = false): string | null | undefined {
  if (content === undefined) return undefined;
  if (content.type !== "text") return blocks ? contentBlockText(content) : null;
  if (typeof content.text !== "string") return null;
  return content.text;
}

/**
 * True for an `agent_message_chunk` or `agent_thought_chunk` whose text is non-empty and only
 * whitespace (pi-acp's `"\n"` right after `session/new`, spec 50): no work of the agent's, so
 * while no turn is open it opens none. A raw update is read first ({@link AcpUpdate.read}).
 */
export function isWhitespaceOnlyChunk(update: AcpUpdate | Record<string, unknown>): boolean {
  const read = AcpUpdate.read(update);
  if (read === undefined || (read.kind !== "agent_message_chunk" && read.kind !== "agent_thought_chunk")) return false;
  const text = textChunk(read.chunk);
  return typeof text === "string" && text.length > 0 && text.trim().length === 0;
}

/**
 * The message text of a non-text content block an agent put in its message (ACP `image`,
 * `audio`, `resource_link`, `resource`), so the block stays in the lane as a reader would write
 * it: a markdown image or link. A block missing the fields its type needs is kept as a marker
 * naming what is missing. `null` for any other block type (suppressed as before).
 */
export function contentBlockText(content: Record<string, unknown>): string | null {
  const str = (key: string): string | undefined => (typeof content[key] === "string" && (content[key] as string).length > 0 ? (content[key] as string) : undefined);
  switch (content.type) {
    case "image": {
      const uri = str("uri");
      const data = str("data");
      const mimeType = str("mimeType");
      if (data !== undefined && mimeType !== undefined) return `![image](data:${mimeType};base64,${data})`;
      if (uri !== undefined) return `![image](${uri})`;
      return `[invalid image block: ${data === undefined ? "no data or uri" : "no mimeType"}]`;
    }
    case "audio": {
      const mimeType = str("mimeType");
      return str("data") !== undefined && mimeType !== undefined ? `[audio: ${mimeType}]` : "[invalid audio block: no data or mimeType]";
    }
    case "resource_link": {
      const uri = str("uri");
      if (uri === undefined) return "[invalid resource_link block: no uri]";
      return `[${str("title") ?? str("name") ?? uri}](${uri})`;
    }
    case "resource": {
      const resource = content.resource && typeof content.resource === "object" ? (content.resource as Record<string, unknown>) : undefined;
      const uri = typeof resource?.uri === "string" ? resource.uri : undefined;
      if (uri === undefined) return "[invalid resource block: no resource.uri]";
      return typeof resource?.text === "string" ? `[${uri}](${uri})\n${resource.text}` : `[${uri}](${uri})`;
    }
    default:
      return null;
  }
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
export function translateSessionUpdate(ctx: SessionUpdateContext, read: AcpUpdate): ThreadDelta[] {
  const update = read.value;
  const kind = read.kind;
  switch (kind) {
    case "agent_message_chunk": {
      const text = textChunk(read.chunk, true);
      if (text === undefined) return [];
      if (text === null) return [suppressedUpdate(ctx.threadId, update)];
      // An empty chunk (qwen sends one carrying only `_meta.usage` after each model call) adds no
      // text: it must not start an agentMessage item that nothing would fill.
      if (text === "") return [];
      ctx.onAgentText(text);
      return [
        closeThought(),
        ...messageBoundary(ctx, ASSISTANT_CHANNEL, update),
        { kind: "item.textDelta", key: { channel: ASSISTANT_CHANNEL }, channel: "agentMessage", text, noTurnFallback: updateFallback(ctx.threadId, update) },
      ];
    }
    case "agent_thought_chunk": {
      const text = textChunk(read.chunk);
      if (text === undefined) return [];
      if (text === null) return [suppressedUpdate(ctx.threadId, update)];
      if (text === "") return [];
      return [
        ...messageBoundary(ctx, THOUGHT_CHANNEL, update),
        { kind: "item.textDelta", key: { channel: THOUGHT_CHANNEL }, channel: "reasoningText", text, noTurnFallback: updateFallback(ctx.threadId, update) },
      ];
    }
    case "tool_call":
    case "tool_call_update": {
      // Without a toolCallId the update is unparseable, and unparseable updates are dropped (spec 20 §2.5).
      const fields = read.toolCall;
      if (fields === undefined) return [];
      return kind === "tool_call" ? ctx.tools.toolCall(update, fields) : ctx.tools.toolCallUpdate(update, fields);
    }
    case "plan":
      return planSteps(ctx, update);
    case "usage_update": {
      const parsed = AcpUsageUpdateSchema.safeParse(update);
      if (!parsed.success) return [];
      const deltas: ThreadDelta[] = [{ kind: "contextWindow", used: parsed.data.used, size: parsed.data.size, estimated: false, attach: "open" }];
      // The session's cost so far (ACP `cost {amount, currency}`) has no slot in contextWindow
      // (spec 10 §1.5): it is thread state, published as its own extension state.
      const cost = parsed.data.cost;
      if (cost && typeof cost === "object" && !Array.isArray(cost)) {
        deltas.push({ kind: "extension.state", extensionKind: USAGE_COST_EXTENSION, payload: JSON.parse(JSON.stringify(cost)) as JsonValue });
      }
      return deltas;
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
