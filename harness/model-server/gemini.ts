/**
 * The Gemini API (spec 50: gemini-cli): `POST /v1beta/models/<model>:generateContent` (one JSON
 * answer), `…:streamGenerateContent?alt=sse` (SSE `data:` chunks of `GenerateContentResponse`),
 * and `…:countTokens` (auxiliary, a fixed count). Text is `parts[].text`, tool calls are
 * `parts[].functionCall {id, name, args}`; the last chunk has `finishReason: "STOP"` and
 * `usageMetadata`. A request in JSON mode (`generationConfig.responseMimeType:
 * "application/json"`) without tools gets a JSON answer (json-answer.ts). Tool results are the
 * `functionResponse` parts.
 */
import type http from "node:http";
import {
  answerText,
  contentText,
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

/** The fixed token count `countTokens` answers. */
export const GEMINI_COUNTED_TOKENS = 1000;

/** The `error.status` word Google APIs give an HTTP status. */
const GEMINI_STATUS: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

const MODEL_ROUTE = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

function write(res: http.ServerResponse, n: number, request: GenerationRequest, answer: ModelAnswer, callIds: readonly string[]): void {
  const text = answerText(answer);
  const usage = usageOf(answer, n);
  const calls = (answer.toolCalls ?? []).map((call, i) => ({ functionCall: { id: callIds[i], name: call.name, args: call.arguments ?? {} } }));
  const usageMetadata = { promptTokenCount: usage.prompt, candidatesTokenCount: usage.completion, totalTokenCount: usage.prompt + usage.completion };
  const chunk = (parts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    ...(last ? { usageMetadata } : {}),
    modelVersion: request.model || "parity",
    responseId: `parity-${n}`,
  });
  if (!request.stream) {
    sendJson(res, chunk([...(text !== undefined ? [{ text }] : []), ...calls], true));
    return;
  }
  startSse(res);
  const send = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\r\n\r\n`);
  const pieces = text === undefined ? [] : textChunks(text);
  if (answer.hold) {
    for (const piece of pieces) send(chunk([{ text: piece }], false));
    return; // stays open until the agent aborts the request
  }
  pieces.forEach((piece, i) => send(chunk([{ text: piece }], i === pieces.length - 1 && calls.length === 0)));
  if (calls.length > 0) send(chunk(calls, true));
  else if (pieces.length === 0) send(chunk([{ text: "" }], true));
  res.end();
}

/** The Gemini API dialect. */
export const geminiDialect: ModelDialect = {
  api: "gemini",
  classify(method, url) {
    const match = MODEL_ROUTE.exec(url.pathname);
    if (method !== "POST" || !match) return undefined;
    return match[2] === "countTokens" ? "aux" : "generate";
  },
  read(body, url) {
    const contents = Array.isArray(body.contents) ? body.contents.map(objectOf) : [];
    const parts = contents.flatMap((c) => (Array.isArray(c.parts) ? c.parts.map(objectOf) : []));
    const tools = Array.isArray(body.tools) ? body.tools.map(objectOf) : [];
    const hasTools = tools.some((t) => Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0);
    const config = objectOf(body.generationConfig);
    const jsonMode = config.responseMimeType === "application/json" && !hasTools;
    return {
      model: MODEL_ROUTE.exec(url.pathname)?.[1] ?? "",
      stream: url.pathname.endsWith(":streamGenerateContent"),
      hasTools,
      toolNames: offeredToolNames(body.tools),
      ...(jsonMode ? { json: config.responseJsonSchema ?? config.responseSchema ?? true } : {}),
      toolResults: parts
        .filter((p) => p.functionResponse !== undefined)
        .map((p) => {
          const r = objectOf(p.functionResponse);
          return { callId: String(r.id ?? r.name ?? ""), text: resultText(r.response) };
        }),
      prompt: lastUserText(contents, (c) => contentText(c.parts)),
    };
  },
  answerAux: (_method, _url, _body, res) => sendJson(res, { totalTokens: GEMINI_COUNTED_TOKENS }),
  write,
  writeError: (res, error) => sendError(res, error.status, { error: { code: error.status, message: error.message, status: error.type ?? GEMINI_STATUS[error.status] ?? "INTERNAL" } }),
};
