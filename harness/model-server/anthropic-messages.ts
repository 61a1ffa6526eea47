/**
 * Anthropic Messages (spec 50: both Claude Code adapters): `POST /v1/messages` streamed as
 * `message_start`, per content block `content_block_start` / `content_block_delta`
 * (`text_delta`, `input_json_delta`) / `content_block_stop`, then `message_delta` (stop reason,
 * usage) and `message_stop`; or one `message`. Auxiliary: `POST /v1/messages/count_tokens`
 * (a fixed count) and `HEAD /` (Claude Code's reachability check). Tool results are the
 * `tool_result` blocks of user messages.
 */
import type http from "node:http";
import {
  answerText,
  errorTypeOf,
  lastUserText,
  objectOf,
  offeredToolNames,
  resultText,
  sendError,
  sendJson,
  startSse,
  textChunks,
  usageOf,
  type GenerationRequest,
  type ModelAnswer,
  type ModelDialect,
} from "./dialect.js";

/** The fixed token count `count_tokens` answers. */
export const ANTHROPIC_COUNTED_TOKENS = 1000;

/** Writes one SSE event of type `type`. */
const sseEvent = (res: http.ServerResponse, type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

function write(res: http.ServerResponse, n: number, request: GenerationRequest, answer: ModelAnswer, callIds: readonly string[]): void {
  const text = answerText(answer);
  const calls = answer.toolCalls ?? [];
  const usage = usageOf(answer, n);
  const stopReason = calls.length > 0 ? "tool_use" : "end_turn";
  const blocks: Record<string, unknown>[] = [
    ...(text !== undefined ? [{ type: "text", text }] : []),
    ...calls.map((call, i) => ({ type: "tool_use", id: callIds[i], name: call.name, input: call.arguments ?? {} })),
  ];
  const message = { id: `msg_parity_${n}`, type: "message", role: "assistant", model: request.model || "parity" };
  if (!request.stream) {
    sendJson(res, { ...message, content: blocks, stop_reason: stopReason, stop_sequence: null, usage: { input_tokens: usage.prompt, output_tokens: usage.completion } });
    return;
  }
  startSse(res);
  const event = (type: string, data: Record<string, unknown>) => sseEvent(res, type, data);
  event("message_start", { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.prompt, output_tokens: 1 } } });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const piece of textChunks(block.text as string)) event("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
      if (answer.hold) return;
    } else {
      event("content_block_start", { index, content_block: { ...block, input: {} } });
      event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    event("content_block_stop", { index });
  });
  if (answer.hold) return; // stays open until the agent aborts the request or the cell releases it (endHeld)
  finish(res, stopReason, usage.completion);
}

/** The end of a stream: `message_delta` with the stop reason and output tokens, `message_stop`. */
function finish(res: http.ServerResponse, stopReason: string, outputTokens: number): void {
  sseEvent(res, "message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  sseEvent(res, "message_stop", {});
  res.end();
}

/** Ends a held answer (text only, script.ts): its open text block (index 0) stops, then the message ends `end_turn`. */
function endHeld(res: http.ServerResponse, n: number, _request: GenerationRequest, answer: ModelAnswer): void {
  if (answerText(answer) !== undefined) sseEvent(res, "content_block_stop", { index: 0 });
  finish(res, "end_turn", usageOf(answer, n).completion);
}

/** The Anthropic Messages dialect. */
export const anthropicMessagesDialect: ModelDialect = {
  api: "anthropic-messages",
  endHeld,
  classify(method, url) {
    if (method === "HEAD" && url.pathname === "/") return "aux";
    if (method !== "POST") return undefined;
    if (url.pathname === "/v1/messages/count_tokens") return "aux";
    return url.pathname === "/v1/messages" ? "generate" : undefined;
  },
  read(body) {
    const messages = Array.isArray(body.messages) ? body.messages.map(objectOf) : [];
    const blocks = messages.filter((m) => m.role === "user" && Array.isArray(m.content)).flatMap((m) => (m.content as unknown[]).map(objectOf));
    return {
      model: typeof body.model === "string" ? body.model : "",
      stream: body.stream === true,
      hasTools: Array.isArray(body.tools) && body.tools.length > 0,
      toolNames: offeredToolNames(body.tools),
      toolResults: blocks.filter((b) => b.type === "tool_result").map((b) => ({ callId: String(b.tool_use_id ?? ""), text: resultText(b.content) })),
      prompt: lastUserText(messages),
    };
  },
  answerAux(method, _url, _body, res) {
    if (method === "HEAD") {
      res.writeHead(200).end();
      return;
    }
    sendJson(res, { input_tokens: ANTHROPIC_COUNTED_TOKENS });
  },
  write,
  writeError: (res, error) => sendError(res, error.status, { type: "error", error: { type: error.type ?? errorTypeOf(error.status), message: error.message } }),
};
