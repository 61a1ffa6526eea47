/**
 * The shape every model API dialect of the loopback model endpoint shares (cells/README.md
 * "model script"; spec 50 "What each sends to its model endpoint"): one script format, one
 * encoder per API. A dialect classifies a route (a generation that plays the script, an
 * auxiliary request it answers alone, or unknown), reads what it needs from a generation
 * request, and writes one scripted answer in its API's wire format. Ids and timestamps are
 * fixed functions of the request number `n`, so two recordings see the same bytes.
 */
import type http from "node:http";
import type { ModelToolCall } from "./script.js";

/** The model APIs the endpoint speaks. */
export const MODEL_APIS = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"] as const;
/** One model API: OpenAI chat completions, OpenAI Responses, Anthropic Messages, Gemini. */
export type ModelApi = (typeof MODEL_APIS)[number];

/** A tool result the agent sent back to the model (what its tool answered). */
export interface ToolResult {
  /** The call id the result answers (Gemini: the call's id, else its function name). */
  callId: string;
  /** The result text as the model sees it (JSON-encoded when structured). */
  text: string;
}

/** What the endpoint needs to know about one generation request. */
export interface GenerationRequest {
  /** The request's model name ("" when absent). */
  model: string;
  /** Streamed (SSE) or one JSON answer. */
  stream: boolean;
  /** True when the request offers tools: it takes the script's next response. */
  hasTools: boolean;
  /** The names of the tools it offers, in order (see {@link offeredToolNames}); shown when the agent asks past the script. */
  toolNames?: string[];
  /**
   * Present when the request asks for a JSON answer and offers no tools (Gemini's JSON mode):
   * the response schema, or `true` when none was given.
   */
  json?: unknown;
  /** Every tool result the request carries, in order. */
  toolResults: ToolResult[];
  /**
   * The text of the request's latest user message ("" when it has none, or only tool results):
   * what tells a retry of one prompt from the next prompt (a repeating error response).
   */
  prompt: string;
}

/** A scripted HTTP error: status, message and the API error type to name. */
export interface ModelError {
  status: number;
  message: string;
  type?: string;
}

/** One answer to write: text, tool calls, held open, or a JSON value. */
export interface ModelAnswer {
  text?: string;
  toolCalls?: readonly ModelToolCall[];
  /** Keep the stream open after the text until the client goes away or the answer is released. */
  hold: boolean;
  usage?: { prompt: number; completion: number };
  /** A JSON answer (JSON-mode requests), written as the text of the answer. */
  json?: unknown;
}

/** How a dialect sees one HTTP request. */
export type RouteKind = "generate" | "aux";

/** One model API's encoder. */
export interface ModelDialect {
  readonly api: ModelApi;
  /** `generate` for a request that plays the script, `aux` for one answered by {@link answerAux}, undefined for an unknown route. */
  classify(method: string, url: URL): RouteKind | undefined;
  /** Reads a generation request's body (parsed JSON). */
  read(body: Record<string, unknown>, url: URL): GenerationRequest;
  /** Answers an auxiliary request (token counts, reachability checks); consumes nothing. */
  answerAux(method: string, url: URL, body: Record<string, unknown> | undefined, res: http.ServerResponse): void;
  /** Writes one answer; `n` is the 1-based request number, `callIds` the ids to give the answer's tool calls. */
  write(res: http.ServerResponse, n: number, request: GenerationRequest, answer: ModelAnswer, callIds: readonly string[]): void;
  /** Writes a scripted HTTP error with the API's own error body. */
  writeError(res: http.ServerResponse, error: ModelError): void;
  /**
   * Ends a held answer's open stream as if it had not been held (finish reason, usage, end of
   * stream): a cell's `model/release` step. Absent: this API's held answers end only when the
   * agent goes away.
   */
  endHeld?(res: http.ServerResponse, n: number, request: GenerationRequest, answer: ModelAnswer): void;
}

/**
 * The error type OpenAI-style APIs name for an HTTP status (`invalid_request_error`,
 * `authentication_error`, `permission_error`, `not_found_error`, `rate_limit_error`,
 * `overloaded_error`, else `api_error`); Anthropic's `error.type` uses the same words.
 */
export function errorTypeOf(status: number): string {
  const known: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return known[status] ?? "api_error";
}

/**
 * Writes an error status with `body`. `retry-after: 0` lets a client that retries a 429 or
 * 5xx do so at once: the script, not a wait, decides what the retry gets.
 */
export function sendError(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "retry-after": "0", "retry-after-ms": "0" });
  res.end(JSON.stringify(body));
}

/** The text parts of a message's `content` (a string, or an array of parts with `text`), joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map(objectOf)
    .filter((part) => typeof part.text === "string" && part.type !== "tool_result")
    .map((part) => part.text as string)
    .join("\n");
}

/**
 * Context an agent wraps in `<system-reminder>` tags inside a user message (Claude Code: the
 * environment, the deferred tools, the date). It is the agent's, not the user's, and may change
 * between retries of one prompt.
 */
const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/**
 * The user's own text in a user message's text: `text` without the agent's `<system-reminder>`
 * blocks, trimmed. Claude Code 2.1.332, retrying an HTTP 400, drops its deferred tools and adds a
 * reminder saying so to the same user message; the user's prompt is unchanged, so it is still a
 * retry (script.ts `repeat`).
 */
export function userOwnText(text: string): string {
  return text.replace(SYSTEM_REMINDER, "").trim();
}

/**
 * The user's own text ({@link userOwnText}) of the last entry of `messages` whose role is `user`
 * ("" when none): what tells a retry of one prompt from the next prompt.
 */
export function lastUserText(messages: readonly Record<string, unknown>[], textOf: (message: Record<string, unknown>) => string = (m) => contentText(m.content)): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (messages[i]!.role === "user") return userOwnText(textOf(messages[i]!));
  }
  return "";
}

/** Splits text into word-sized chunks that join back to it exactly. */
export function textChunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

/** The fixed id of tool call `i` (0-based) of request `n`. */
export function toolCallId(n: number, i: number): string {
  return `call_parity_${n}_${i + 1}`;
}

/** The answer's text: its `text`, or its JSON value encoded. */
export function answerText(answer: ModelAnswer): string | undefined {
  return answer.json !== undefined ? JSON.stringify(answer.json) : answer.text;
}

/** Token usage of an answer: the script's, else a fixed function of `n`. */
export function usageOf(answer: ModelAnswer, n: number): { prompt: number; completion: number } {
  return answer.usage ?? { prompt: 1000 + n * 10, completion: 20 };
}

/** Writes a JSON body with status 200 (or `status`). */
export function sendJson(res: http.ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/** Starts a Server-Sent Events response. */
export function startSse(res: http.ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/** A tool result's content as text: strings as they are, arrays of text parts joined, anything else JSON. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : JSON.stringify(part)))
      .join("\n");
  }
  return JSON.stringify(content ?? null);
}

/** `value` when it is a plain object, else an empty one. */
export function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The names of the tools a request body's `tools` offers, in order, whatever the API's shape:
 * `name` (Anthropic messages, OpenAI Responses), `function.name` (OpenAI chat), Gemini's
 * `functionDeclarations[].name`, or a built-in tool's `type` (`web_search`). Not an array: [].
 */
export function offeredToolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  const nameOf = (t: Record<string, unknown>): string[] => {
    if (Array.isArray(t.functionDeclarations))
      return t.functionDeclarations.flatMap((d) => (typeof d === "object" && d !== null && typeof (d as { name?: unknown }).name === "string" ? [(d as { name: string }).name] : []));
    const fn = t.function as { name?: unknown } | undefined;
    const name = typeof t.name === "string" ? t.name : typeof fn?.name === "string" ? fn.name : typeof t.type === "string" ? t.type : undefined;
    return name === undefined ? [] : [name];
  };
  return tools.flatMap((t) => (typeof t === "object" && t !== null ? nameOf(t as Record<string, unknown>) : []));
}
