/**
 * Claude Code's stream-json messages of one turn as grammar-v3 deltas (spec 60 "Streaming",
 * "Tool call", "Interrupt", "Turn end"; spec 10 §1.3). Text and thinking arrive twice — as
 * `stream_event` deltas and again as one `assistant` line per block, sent before that block's
 * `content_block_stop` — and reach the thread once: the deltas stream, the block closes the item
 * with its full text (a block that was never streamed is emitted whole). A `tool_use` block opens
 * its item, the `tool_result` in the next user line closes it. Holds per-turn state only; no I/O.
 */
import { ApprovalLedger } from "../bridge-kit/approval-ledger.js";
import type { ThreadDelta, ThreadDeltaKey } from "../protocol/thread-delta.js";
import { isRecord } from "../protocol/json-value.js";
import { closeOf, openItemOf, readToolUse, type ToolOutcome, type ToolUse } from "./tools.js";
import { contentBlocksOf, stringField, type ContentBlock, type StreamJsonMessage } from "./wire.js";

/** The model name Claude Code gives the `assistant` line it makes up for an API error (spec 60 "Turn end"). */
export const SYNTHETIC_MODEL = "<synthetic>";

/** The user text Claude Code records after an interrupt; the turn's boundary says it, so it is not an item. */
export const INTERRUPT_MARKER = "[Request interrupted by user]";

type TextChannel = "agentMessage" | "reasoningText";

/** A text or thinking block being streamed. */
interface StreamingBlock {
  key: ThreadDeltaKey;
  channel: TextChannel;
  text: string;
}

/** The translator of one session's turns. */
export interface TurnTranslator {
  /** Deltas for one message line of the CLI (`stream_event`, `assistant`, `user`); other types give none. */
  translate(message: StreamJsonMessage): ThreadDelta[];
  /**
   * Records the runtime's answer to the CLI's `can_use_tool` about a tool call: its close carries
   * `approvalStatus` "approved" (`allowed`) or "denied". Not called for a call the bridge let
   * through without asking the runtime.
   */
  noteApproval(toolUseId: string, allowed: boolean): void;
  /** The text of the synthetic API-error message of this turn, if the CLI sent one. */
  readonly syntheticError: string | undefined;
  /** Closes whatever is still open (text as streamed, tool calls `interrupted`) and forgets the turn. */
  settle(): ThreadDelta[];
}

const CHANNEL_OF_DELTA: Readonly<Record<string, TextChannel>> = { text_delta: "agentMessage", thinking_delta: "reasoningText" };
const CHANNEL_OF_BLOCK: Readonly<Record<string, TextChannel>> = { text: "agentMessage", thinking: "reasoningText" };

/** The text of a `text` or `thinking` block. */
function blockText(block: ContentBlock): string {
  return stringField(block, block.type === "thinking" ? "thinking" : "text") ?? "";
}

/**
 * A `user` line's `tool_result` blocks: each open tool call they answer closed with its outcome
 * (and forgotten); a result for no open call gives nothing.
 */
function toolResults(message: StreamJsonMessage, tools: Map<string, ToolUse>, approvals: ApprovalLedger, cwd: string): ThreadDelta[] {
  const deltas: ThreadDelta[] = [];
  for (const block of contentBlocksOf(message)) {
    const id = stringField(block, "tool_use_id");
    const tool = block.type === "tool_result" && id !== undefined ? tools.get(id) : undefined;
    if (!tool) continue;
    tools.delete(tool.id);
    const outcome: ToolOutcome = { content: block.content, isError: block.is_error === true, structured: message.tool_use_result, ...approvals.take(tool.id) };
    deltas.push({ kind: "item.close", key: { providerItemId: tool.id }, ...closeOf(tool, outcome, cwd) });
  }
  return deltas;
}

/**
 * Message kinds (`type`, or `type:subtype`) the CLI sends that the bridge reads elsewhere or that
 * say nothing to the thread, each known by name: `system:init` (the session's tools and model, read
 * by nobody downstream), `system:status` (the CLI's own busy/idle status), `control_response`
 * (answered by cli-process.ts), `control_request` and `result` (session.ts). Any other kind is
 * counted as `provider/unhandled` (issue 41), never dropped.
 */
export const KNOWN_MESSAGE_KINDS: ReadonlySet<string> = new Set(["system:init", "system:status", "control_response", "control_request", "stream_event", "assistant", "user", "result"]);

/** The Messages API stream events (`stream_event`'s `event.type`): the text is read from the deltas, the rest is framing the final `assistant` message repeats. */
const STREAM_EVENT_TYPES: ReadonlySet<string> = new Set(["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);

/** A message's kind as {@link KNOWN_MESSAGE_KINDS} names it: `type`, `type:subtype` for `system`, `stream_event:<event type>` for an unknown stream event. */
function messageKind(message: StreamJsonMessage): string {
  if (message.type === "system") return `system:${String(message.subtype)}`;
  if (message.type === "stream_event" && isRecord(message.event) && !STREAM_EVENT_TYPES.has(String(message.event.type))) return `stream_event:${String(message.event.type)}`;
  return String(message.type);
}

/**
 * `[unhandled]` for a message of a kind the bridge has no translation for (its kind as `rawType`,
 * the whole message in `raw`), else `[]`.
 */
export function unknownKindDeltas(message: StreamJsonMessage): ThreadDelta[] {
  const kind = messageKind(message);
  return KNOWN_MESSAGE_KINDS.has(kind) ? [] : [unhandledDelta(kind, message)];
}

/** `unhandled` for one line of the CLI: the line as a JSON-RPC envelope's params (`ProviderRawEvent`), its kind as the method and `rawType`. */
export function unhandledDelta(kind: string, message: StreamJsonMessage): ThreadDelta {
  return { kind: "unhandled", raw: { jsonrpc: "2.0", method: kind, params: message as never }, rawType: kind, vouchedTurn: true };
}

/**
 * Creates the translator of one session whose commands run in `cwd`. Item keys: a text block is
 * `<message id>:<block index>` (both from the model), a tool call its `tool_use` id.
 */
export function createTurnTranslator(cwd: string): TurnTranslator {
  let messageId = "";
  let streaming: StreamingBlock | undefined;
  let syntheticError: string | undefined;
  const tools = new Map<string, ToolUse>();
  const approvals = new ApprovalLedger();

  const streamEvent = (event: Record<string, unknown>): ThreadDelta[] => {
    if (event.type === "message_start" && isRecord(event.message)) messageId = stringField(event.message, "id") ?? messageId;
    if (event.type === "content_block_start" && isRecord(event.content_block)) {
      const channel = CHANNEL_OF_BLOCK[String(event.content_block.type)];
      streaming = channel ? { key: { providerItemId: `${messageId}:${String(event.index)}` }, channel, text: "" } : undefined;
      return [];
    }
    if (event.type !== "content_block_delta" || !isRecord(event.delta) || !streaming) return [];
    const channel = CHANNEL_OF_DELTA[String(event.delta.type)];
    const text = stringField(event.delta, channel === "reasoningText" ? "thinking" : "text");
    if (channel !== streaming.channel || !text) return [];
    streaming.text += text;
    return [{ kind: "item.textDelta", key: { ...streaming.key }, channel, text }];
  };

  const textBlock = (block: ContentBlock, channel: TextChannel, index: number): ThreadDelta[] => {
    const text = blockText(block);
    const open = streaming?.channel === channel ? streaming : undefined;
    streaming = undefined;
    if (open) return [{ kind: "item.textClose", key: open.key, channel, text }];
    // Never streamed (a resumed or non-streaming message): the whole block at once.
    if (text === "") return [];
    const key = { providerItemId: `${messageId || "message"}:${index}` };
    return [
      { kind: "item.textDelta", key, channel, text },
      { kind: "item.textClose", key: { ...key }, channel, text },
    ];
  };

  const assistant = (message: StreamJsonMessage): ThreadDelta[] => {
    const inner = isRecord(message.message) ? message.message : {};
    if (inner.model === SYNTHETIC_MODEL) {
      syntheticError = contentBlocksOf(message).map(blockText).join("\n");
      return [];
    }
    const deltas: ThreadDelta[] = [];
    contentBlocksOf(message).forEach((block, index) => {
      const channel = CHANNEL_OF_BLOCK[block.type];
      if (channel) deltas.push(...textBlock(block, channel, index));
      const tool = readToolUse(block);
      if (tool && !tools.has(tool.id)) {
        tools.set(tool.id, tool);
        deltas.push({ kind: "item.open", key: { providerItemId: tool.id }, item: openItemOf(tool, cwd) });
      }
    });
    return deltas;
  };

  return {
    translate(message) {
      if (message.type === "stream_event" && isRecord(message.event)) return STREAM_EVENT_TYPES.has(String(message.event.type)) ? streamEvent(message.event) : unknownKindDeltas(message);
      if (message.type === "assistant") return assistant(message);
      if (message.type === "user") return toolResults(message, tools, approvals, cwd);
      return unknownKindDeltas(message);
    },
    noteApproval(toolUseId, allowed) {
      approvals.note(toolUseId, allowed);
    },
    get syntheticError() {
      return syntheticError;
    },
    settle() {
      const deltas: ThreadDelta[] = [];
      if (streaming) deltas.push({ kind: "item.textClose", key: streaming.key, channel: streaming.channel, text: streaming.text });
      for (const tool of tools.values()) {
        deltas.push({ kind: "item.close", key: { providerItemId: tool.id }, status: "interrupted", item: openItemOf(tool, cwd) });
      }
      streaming = undefined;
      syntheticError = undefined;
      messageId = "";
      tools.clear();
      approvals.clear();
      return deltas;
    },
  };
}
