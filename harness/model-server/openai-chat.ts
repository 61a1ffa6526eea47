/**
 * OpenAI chat completions (`POST …/chat/completions`; spec 50: qwen, copilot, pi, opencode):
 * streamed `chat.completion.chunk`s (role, text word by word, `tool_calls`, finish reason, a
 * usage chunk when `stream_options.include_usage` asks, `[DONE]`) or one `chat.completion`.
 * Tool results are the `tool` messages.
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

function write(res: http.ServerResponse, n: number, request: GenerationRequest & { includeUsage?: boolean }, answer: ModelAnswer, callIds: readonly string[]): void {
  const model = request.model || "parity";
  const text = answerText(answer);
  const calls = answer.toolCalls ?? [];
  const usage = usageOf(answer, n);
  if (!request.stream) {
    const toolCalls = calls.map((call, i) => ({ id: callIds[i], type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) } }));
    sendJson(res, {
      id: `chatcmpl-parity-${n}`,
      object: "chat.completion",
      created: 0,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls.length ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
    });
    return;
  }
  startSse(res);
  const chunk = chunkWriter(res, n, model);
  chunk({ delta: { role: "assistant", content: "" }, finish_reason: null });
  for (const piece of text === undefined ? [] : textChunks(text)) chunk({ delta: { content: piece }, finish_reason: null });
  if (answer.hold) return; // stays open until the agent aborts the request or the cell releases it (endHeld)
  calls.forEach((call, i) => {
    chunk({ delta: { tool_calls: [{ index: i, id: callIds[i], type: "function", function: { name: call.name, arguments: "" } }] }, finish_reason: null });
    chunk({ delta: { tool_calls: [{ index: i, function: { arguments: JSON.stringify(call.arguments ?? {}) } }] }, finish_reason: null });
  });
  finish(res, n, request, answer, calls.length ? "tool_calls" : "stop");
}

/** Writes one `chat.completion.chunk` of request `n` (ids fixed by `n`). */
function chunkWriter(res: http.ServerResponse, n: number, model: string) {
  const base = { id: `chatcmpl-parity-${n}`, object: "chat.completion.chunk", created: 0, model };
  return (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, choices: choice ? [{ index: 0, ...choice }] : [], ...extra })}\n\n`);
}

/** The end of a stream: the finish reason, the usage chunk when asked for, `[DONE]`. */
function finish(res: http.ServerResponse, n: number, request: GenerationRequest & { includeUsage?: boolean }, answer: ModelAnswer, reason: "stop" | "tool_calls"): void {
  const chunk = chunkWriter(res, n, request.model || "parity");
  const usage = usageOf(answer, n);
  chunk({ delta: {}, finish_reason: reason });
  if (request.includeUsage) chunk(null, { usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion } });
  res.end("data: [DONE]\n\n");
}

/** The OpenAI chat completions dialect. */
export const openAiChatDialect: ModelDialect = {
  api: "openai-chat",
  classify: (method, url) => (method === "POST" && url.pathname.endsWith("/chat/completions") ? "generate" : undefined),
  read(body) {
    const messages = Array.isArray(body.messages) ? body.messages.map(objectOf) : [];
    return {
      model: typeof body.model === "string" ? body.model : "",
      stream: body.stream === true,
      hasTools: Array.isArray(body.tools) && body.tools.length > 0,
      toolNames: offeredToolNames(body.tools),
      includeUsage: objectOf(body.stream_options).include_usage === true,
      toolResults: messages.filter((m) => m.role === "tool").map((m) => ({ callId: String(m.tool_call_id ?? ""), text: resultText(m.content) })),
      prompt: lastUserText(messages),
    } as GenerationRequest;
  },
  answerAux: (_method, _url, _body, res) => sendJson(res, { error: { message: "not served", type: "not_found" } }, 404),
  write,
  writeError: (res, error) => sendError(res, error.status, { error: { message: error.message, type: error.type ?? errorTypeOf(error.status), param: null, code: null } }),
  // A held answer carries text only (script.ts), so it ends as a text answer does.
  endHeld: (res, n, request, answer) => finish(res, n, request, answer, "stop"),
};
