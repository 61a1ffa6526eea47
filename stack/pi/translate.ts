/**
 * One user-level turn of pi's RPC events as grammar-v3 deltas (spec 60 "pi"; spec 10 §1.3).
 * A user-level turn is `agent_start` … `agent_end`; a pi "turn" (`turn_start`/`turn_end`) is
 * one model call and maps to nothing of its own. Text and thinking are built from each
 * `message_update`'s `delta`, never from its `partial` (which can run ahead of its delta).
 * No I/O and no clock: the session feeds events in and writes the deltas out.
 */
import type { ErrorInfo, ThreadDelta, UsageBreakdown } from "../protocol/thread-delta.js";
import { ApprovalLedger } from "../bridge-kit/approval-ledger.js";
import { addTokenUsage } from "../bridge-kit/usage.js";
import { closeDelta, openShape, resultText, type PiToolExecution } from "./tools.js";

/** A pi RPC event line, parsed (`{type, …}`). */
export type PiEvent = Record<string, unknown> & { type: string };

/** How a user-level turn ended, from the last assistant message's `stopReason`. */
export interface PiTurnEnd {
  status: "completed" | "interrupted" | "failed";
  /** The model error (`stopReason:"error"`): its message and the HTTP status pi's message starts with. */
  error?: { message: string; httpStatus: number | null };
}

/** The translator of one user-level turn. */
export interface PiTurnTranslator {
  /** The deltas of one event (empty for events that show nothing). */
  event(event: PiEvent): ThreadDelta[];
  /**
   * Records the runtime's answer to the approval gate's confirm about a tool call: its close
   * carries `approvalStatus` "approved" (`allowed`) or "denied".
   */
  noteApproval(toolCallId: string, allowed: boolean): void;
  /** The closing deltas at `agent_end` (usage, error, the turn boundary) and how the turn ended. */
  finish(): { deltas: ThreadDelta[]; end: PiTurnEnd };
}

/** Options of {@link createPiTurnTranslator}. */
export interface PiTurnOptions {
  /** The session's working directory (command items, diff paths). */
  cwd: string;
  /** The model's context window from `get_state` (`model.contextWindow`), or null. */
  modelContextWindow: number | null;
  /** The thread's usage before this turn (tokens); the turn adds to it. */
  usageBefore: UsageBreakdown | undefined;
}

const ASSISTANT_KEY = { channel: "assistant" };
const THINKING_KEY = { channel: "thinking" };

/** Error categories of spec 10 §1.2 by HTTP status. */
export function errorCategoryOf(status: number | null): ErrorInfo["category"] {
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 429) return "rate-limit";
  if (status === 400) return "bad-request";
  if (status === 529 || status === 503) return "overloaded";
  if (status !== null && status >= 500) return "internal";
  return "unknown";
}

/** The HTTP status pi's error message starts with (`401 …`, the OpenAI client's wording), or null. */
export function httpStatusOf(message: string): number | null {
  const m = /^(\d{3})\b/.exec(message.trim());
  return m ? Number(m[1]) : null;
}

/** A pi assistant `usage` as a spec 10 breakdown: input counts cache reads, which are also the cached input. */
export function usageOf(usage: unknown): UsageBreakdown | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  return {
    totalTokens: n(u.totalTokens),
    inputTokens: n(u.input) + n(u.cacheRead) + n(u.cacheWrite),
    cachedInputTokens: n(u.cacheRead),
    outputTokens: n(u.output),
    reasoningOutputTokens: 0,
  };
}

/** A tool execution as its start, update or end event names it. */
function toolOf(event: PiEvent): PiToolExecution {
  return {
    toolCallId: String(event.toolCallId),
    toolName: String(event.toolName),
    args: typeof event.args === "object" && event.args !== null ? (event.args as Record<string, unknown>) : {},
  };
}

/** A model error as `provider.error`, its category from the HTTP status its message starts with; `willRetry` when pi retries it. */
function modelError(message: string, httpStatus: number | null, willRetry: boolean): ThreadDelta {
  const category = errorCategoryOf(httpStatus);
  return { kind: "provider.error", message, ...(willRetry ? { willRetry } : {}), category, errorInfo: { category, providerCode: null, httpStatusCode: httpStatus } };
}

/** `auto_retry_start`: pi retries a failed model call. */
function retryDeltas(event: PiEvent): ThreadDelta[] {
  const message = String(event.errorMessage ?? "model request failed; pi retries");
  return [modelError(message, httpStatusOf(message), true)];
}

/** `extension_error`: a warning naming the extension event. */
function extensionErrorDeltas(event: PiEvent): ThreadDelta[] {
  return [{ kind: "provider.warning", summary: `pi extension error (${String(event.event ?? "?")})`, details: String(event.error ?? ""), vouchedTurn: true }];
}

/** One open text or thinking stream of the current assistant message. */
interface Stream {
  channel: "agentMessage" | "reasoningText";
  key: { channel: string };
  text: string;
}

/**
 * `message_update`: a text or thinking delta streamed on its content index's stream (opened by
 * its first delta, from `delta` only, never `partial`); a block's end closes its stream.
 */
function streamUpdate(streams: Map<number, Stream>, event: PiEvent, closeStream: (index: number) => ThreadDelta[]): ThreadDelta[] {
  const e = (event.assistantMessageEvent ?? {}) as Record<string, unknown>;
  const index = typeof e.contentIndex === "number" ? e.contentIndex : 0;
  const type = String(e.type);
  if (type === "text_delta" || type === "thinking_delta") {
    const delta = typeof e.delta === "string" ? e.delta : "";
    if (delta === "") return [];
    let stream = streams.get(index);
    if (!stream) {
      stream = type === "text_delta" ? { channel: "agentMessage", key: ASSISTANT_KEY, text: "" } : { channel: "reasoningText", key: THINKING_KEY, text: "" };
      streams.set(index, stream);
    }
    stream.text += delta;
    return [{ kind: "item.textDelta", key: stream.key, channel: stream.channel, text: delta }];
  }
  if (type === "text_end" || type === "thinking_end") return closeStream(index);
  return KNOWN_MESSAGE_UPDATES.has(type) ? [] : unknownKindDeltas(event, `message_update:${type}`);
}

/**
 * The `assistantMessageEvent` types of pi's `message_update` besides the text and thinking deltas
 * and ends: the starts open nothing (a stream opens with its first delta), a tool call's events
 * are repeated whole by `tool_execution_*`, `done`/`error` by `message_end`.
 */
const KNOWN_MESSAGE_UPDATES: ReadonlySet<string> = new Set(["start", "text_start", "thinking_start", "toolcall_start", "toolcall_delta", "toolcall_end", "done", "error"]);

/**
 * Event types of pi's RPC mode the bridge reads elsewhere or that say nothing to the thread, each
 * known by name: `agent_start`/`agent_end` (the turn itself, session.ts), `turn_start`/`turn_end`
 * (pi's turns inside one agent run: one per model call), `queue_update` (pi's steer queue, which
 * the runtime filled itself), `extension_ui_request` (answered by session.ts), `response`.
 * Any other type is counted as `provider/unhandled` (issue 41), never dropped.
 */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(["agent_start", "agent_end", "turn_start", "turn_end", "queue_update", "extension_ui_request", "response"]);

/** `[unhandled]` for an event the bridge has no translation for, its kind (`rawType`) as given. */
export function unknownKindDeltas(event: PiEvent, kind: string = String(event.type)): ThreadDelta[] {
  return [{ kind: "unhandled", raw: { jsonrpc: "2.0", method: kind, params: event as never }, rawType: kind, vouchedTurn: true }];
}

/** An event outside a turn: `[unhandled]` unless {@link KNOWN_EVENT_TYPES} names its type. */
export function eventOutsideTurn(event: PiEvent): ThreadDelta[] {
  return KNOWN_EVENT_TYPES.has(String(event.type)) ? [] : unknownKindDeltas(event);
}

/** Creates the translator of one user-level turn (see {@link PiTurnTranslator}). */
export function createPiTurnTranslator(options: PiTurnOptions): PiTurnTranslator {
  const streams = new Map<number, Stream>();
  const tools = new Map<string, PiToolExecution>();
  const approvals = new ApprovalLedger();
  let last: UsageBreakdown | undefined;
  let stopReason: string | undefined;
  let errorMessage: string | undefined;

  const closeStream = (index: number): ThreadDelta[] => {
    const stream = streams.get(index);
    if (!stream) return [];
    streams.delete(index);
    return stream.text === "" ? [] : [{ kind: "item.textClose", key: stream.key, channel: stream.channel, text: stream.text }];
  };
  const closeAllStreams = (): ThreadDelta[] => [...streams.keys()].flatMap(closeStream);

  const onMessageEnd = (event: PiEvent): ThreadDelta[] => {
    const message = (event.message ?? {}) as Record<string, unknown>;
    if (message.role !== "assistant") return [];
    stopReason = typeof message.stopReason === "string" ? message.stopReason : undefined;
    errorMessage = typeof message.errorMessage === "string" ? message.errorMessage : undefined;
    const usage = usageOf(message.usage);
    if (usage) last = addTokenUsage(last, usage);
    // A stream left open by an abort or an error still shows the text the model sent.
    return closeAllStreams();
  };

  const onToolEnd = (event: PiEvent): ThreadDelta[] => {
    const id = String(event.toolCallId);
    const tool = tools.get(id) ?? toolOf(event);
    tools.delete(id);
    const result = event.result as { details?: unknown } | undefined;
    const details = typeof result?.details === "object" && result.details !== null ? (result.details as Record<string, unknown>) : undefined;
    return [closeDelta(tool, { text: resultText(result), details, isError: event.isError === true }, options.cwd, approvals.take(id))];
  };

  const handlers: Record<string, (event: PiEvent) => ThreadDelta[]> = {
    message_start: () => closeAllStreams(),
    message_update: (event) => streamUpdate(streams, event, closeStream),
    message_end: onMessageEnd,
    tool_execution_start: (event) => {
      const tool = toolOf(event);
      tools.set(tool.toolCallId, tool);
      return [{ kind: "item.open", key: { providerItemId: tool.toolCallId }, item: openShape(tool, options.cwd) }];
    },
    tool_execution_update: (event) => {
      const tool = tools.get(String(event.toolCallId));
      if (tool?.toolName !== "bash") return [];
      return [{ kind: "command.outputSnapshot", key: { providerItemId: tool.toolCallId }, text: resultText(event.partialResult) }];
    },
    tool_execution_end: onToolEnd,
    auto_retry_start: retryDeltas,
    extension_error: extensionErrorDeltas,
  };

  const finish = (): { deltas: ThreadDelta[]; end: PiTurnEnd } => {
    const deltas = closeAllStreams();
    const status = stopReason === "aborted" ? "interrupted" : stopReason === "error" ? "failed" : "completed";
    for (const tool of tools.values()) {
      // A tool pi never reported finished (the turn was aborted around it) closes with the turn's status, no result invented.
      deltas.push({ kind: "item.close", key: { providerItemId: tool.toolCallId }, status: status === "failed" ? "failed" : "interrupted", item: openShape(tool, options.cwd) });
    }
    tools.clear();
    if (last) deltas.push({ kind: "usage", total: addTokenUsage(options.usageBefore, last), last, modelContextWindow: options.modelContextWindow });
    if (status !== "failed") return { deltas: [...deltas, { kind: "turn.boundary", status }], end: { status } };
    const message = errorMessage ?? "pi reported a model error";
    const httpStatus = httpStatusOf(message);
    deltas.push(modelError(message, httpStatus, false), { kind: "turn.boundary", status: "failed", error: { message } });
    return { deltas, end: { status, error: { message, httpStatus } } };
  };

  return {
    event: (event) => handlers[event.type]?.(event) ?? (KNOWN_EVENT_TYPES.has(String(event.type)) ? [] : unknownKindDeltas(event)),
    noteApproval: (id, allowed) => approvals.note(id, allowed),
    finish,
  };
}
