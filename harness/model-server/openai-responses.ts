/**
 * OpenAI Responses (`POST …/responses`; spec 50: codex): streamed `response.*` events —
 * `response.created`, per output item `response.output_item.added`, text as
 * `response.output_text.delta`s, `response.output_item.done`, then `response.completed` with
 * the whole output and usage. Tool calls are `function_call` items (JSON `arguments`) or
 * freeform `custom_tool_call` items (raw `input`, e.g. `apply_patch`). Tool results are the
 * input's `function_call_output` / `custom_tool_call_output` items.
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

/** The output items of an answer, completed. */
function outputItems(n: number, answer: ModelAnswer, callIds: readonly string[]): Record<string, unknown>[] {
  const text = answerText(answer);
  const items: Record<string, unknown>[] = [];
  if (text !== undefined) {
    items.push({ id: `msg_parity_${n}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
  }
  (answer.toolCalls ?? []).forEach((call, i) => {
    const callId = callIds[i]!;
    items.push(
      call.input !== undefined
        ? { id: `ctc_parity_${n}_${i + 1}`, type: "custom_tool_call", status: "completed", call_id: callId, name: call.name, input: call.input }
        : { id: `fc_parity_${n}_${i + 1}`, type: "function_call", status: "completed", call_id: callId, name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
    );
  });
  return items;
}

function write(res: http.ServerResponse, n: number, request: GenerationRequest, answer: ModelAnswer, callIds: readonly string[]): void {
  const usage = usageOf(answer, n);
  const items = outputItems(n, answer, callIds);
  const response = (status: string, output: unknown[]) => ({
    id: `resp_parity_${n}`,
    object: "response",
    created_at: 0,
    status,
    model: request.model || "parity",
    output,
    ...(status === "completed"
      ? {
          usage: {
            input_tokens: usage.prompt,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: usage.completion,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.prompt + usage.completion,
          },
        }
      : {}),
  });
  if (!request.stream) {
    sendJson(res, response("completed", items));
    return;
  }
  startSse(res);
  let seq = 0;
  const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  event("response.created", { response: response("in_progress", []) });
  event("response.in_progress", { response: response("in_progress", []) });
  items.forEach((item, index) => {
    if (item.type === "message") {
      const text = (item.content as Array<{ text: string }>)[0]!.text;
      event("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } });
      event("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      for (const delta of textChunks(text)) event("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta });
      if (answer.hold) return;
      event("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text });
      event("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text, annotations: [] } });
    } else {
      event("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } });
    }
    event("response.output_item.done", { output_index: index, item });
  });
  if (answer.hold) return; // stays open until the agent aborts the request
  event("response.completed", { response: response("completed", items) });
  res.end();
}

/** The OpenAI Responses dialect. */
export const openAiResponsesDialect: ModelDialect = {
  api: "openai-responses",
  classify: (method, url) => (method === "POST" && url.pathname.endsWith("/responses") ? "generate" : undefined),
  read(body) {
    const input = Array.isArray(body.input) ? body.input.map(objectOf) : [];
    return {
      model: typeof body.model === "string" ? body.model : "",
      stream: body.stream === true,
      hasTools: Array.isArray(body.tools) && body.tools.length > 0,
      toolNames: offeredToolNames(body.tools),
      toolResults: input
        .filter((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output")
        .map((item) => ({ callId: String(item.call_id ?? ""), text: resultText(item.output) })),
      prompt: lastUserText(input),
    };
  },
  answerAux: (_method, _url, _body, res) => sendJson(res, { error: { message: "not served", type: "not_found" } }, 404),
  write,
  writeError: (res, error) => sendError(res, error.status, { error: { message: error.message, type: error.type ?? errorTypeOf(error.status), param: null, code: null } }),
};
