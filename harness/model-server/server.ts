/**
 * The loopback model endpoint (00-product.md "Real input": "a loopback model endpoint
 * scripted per cell lets it do real tool work without a network"): a project-owned
 * OpenAI-compatible `POST …/chat/completions` server bound to 127.0.0.1 only, playing one
 * cell's {@link ModelScript}. It streams Server-Sent Events (`chat.completion.chunk`s: role,
 * text word by word, `tool_calls`, finish reason, then a usage chunk when
 * `stream_options.include_usage` asks for it, then `[DONE]`). Ids and timestamps are fixed
 * functions of the request index, so two recordings of a cell see the same bytes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fillTemplate, type ModelResponse, type ModelScript } from "./script.js";

/** The only address the endpoint listens on. */
export const MODEL_SERVER_HOST = "127.0.0.1";

/** One request the endpoint served. */
export interface ServedRequest {
  /** `title` for a request without tools, `response` for a scripted response. */
  kind: "title" | "response" | "exhausted";
  /** Index into the script's responses (responses only). */
  index?: number;
  /** The request's model field. */
  model: string;
}

/** A running endpoint. */
export interface ModelServer {
  /** `http://127.0.0.1:<port>/v1`, the `baseURL` an OpenAI-compatible client takes. */
  readonly baseUrl: string;
  readonly port: number;
  /** Requests served so far, in arrival order. */
  readonly served: readonly ServedRequest[];
  /** Problems seen (unknown route, bad body, more requests than responses); empty when the script fit. */
  readonly problems: readonly string[];
  /** How many scripted responses were not used yet. */
  remaining(): number;
  /** Stops listening and drops every open stream (held responses included). */
  close(): Promise<void>;
}

/** Options of {@link startModelServer}. */
export interface ModelServerOptions {
  script: ModelScript;
  /** Values of `{{name}}` placeholders in the script (e.g. `cwd`). */
  vars?: Readonly<Record<string, string>>;
}

interface ChatRequest {
  model?: unknown;
  stream?: unknown;
  tools?: unknown;
  stream_options?: { include_usage?: unknown };
}

/** Splits text into word-sized chunks that join back to it exactly. */
export function textChunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function sseWriter(res: http.ServerResponse, n: number, model: string) {
  const base = { id: `chatcmpl-parity-${n}`, object: "chat.completion.chunk", created: 0, model };
  return {
    chunk(choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}) {
      res.write(`data: ${JSON.stringify({ ...base, choices: choice ? [{ index: 0, ...choice }] : [], ...extra })}\n\n`);
    },
    done() {
      res.end("data: [DONE]\n\n");
    },
  };
}

function streamResponse(res: http.ServerResponse, n: number, request: ChatRequest, response: ModelResponse): void {
  const model = typeof request.model === "string" ? request.model : "parity";
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const sse = sseWriter(res, n, model);
  sse.chunk({ delta: { role: "assistant", content: "" }, finish_reason: null });
  for (const piece of response.text === undefined ? [] : textChunks(response.text)) sse.chunk({ delta: { content: piece }, finish_reason: null });
  if (response.hold) return; // stays open until the agent aborts the request
  (response.toolCalls ?? []).forEach((call, i) => {
    const id = `call_parity_${n}_${i + 1}`;
    sse.chunk({ delta: { tool_calls: [{ index: i, id, type: "function", function: { name: call.name, arguments: "" } }] }, finish_reason: null });
    sse.chunk({ delta: { tool_calls: [{ index: i, function: { arguments: JSON.stringify(call.arguments) } }] }, finish_reason: null });
  });
  sse.chunk({ delta: {}, finish_reason: response.toolCalls ? "tool_calls" : "stop" });
  if (request.stream_options?.include_usage === true) {
    const prompt = response.usage?.prompt ?? 1000 + n * 10;
    const completion = response.usage?.completion ?? 20;
    sse.chunk(null, { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });
  }
  sse.done();
}

function jsonResponse(res: http.ServerResponse, n: number, request: ChatRequest, response: ModelResponse): void {
  const toolCalls = (response.toolCalls ?? []).map((call, i) => ({
    id: `call_parity_${n}_${i + 1}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: `chatcmpl-parity-${n}`,
      object: "chat.completion",
      created: 0,
      model: typeof request.model === "string" ? request.model : "parity",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: response.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls.length ? "tool_calls" : "stop",
        },
      ],
      usage: { prompt_tokens: 1000 + n * 10, completion_tokens: 20, total_tokens: 1020 + n * 10 },
    }),
  );
}

/**
 * Starts the endpoint on 127.0.0.1 with an OS-chosen port (so parallel recordings never
 * collide) and resolves once it listens.
 * @throws Error when a `{{placeholder}}` of the script has no value in `vars`.
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const script = fillTemplate(options.script, options.vars ?? {});
  const served: ServedRequest[] = [];
  const problems: string[] = [];
  let next = 0;
  let count = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      count += 1;
      if (req.method !== "POST" || !(req.url ?? "").endsWith("/chat/completions")) {
        problems.push(`unexpected ${req.method} ${req.url}`);
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "only POST /chat/completions is served", type: "not_found" } }));
        return;
      }
      let request: ChatRequest;
      try {
        request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
      } catch {
        problems.push(`request ${count} is not JSON`);
        res.writeHead(400).end();
        return;
      }
      const model = typeof request.model === "string" ? request.model : "";
      const hasTools = Array.isArray(request.tools) && request.tools.length > 0;
      let response: ModelResponse;
      if (!hasTools) {
        served.push({ kind: "title", model });
        response = { text: script.title, hold: false };
      } else if (next < script.responses.length) {
        served.push({ kind: "response", index: next, model });
        response = script.responses[next]!;
        next += 1;
      } else {
        served.push({ kind: "exhausted", model });
        problems.push(`request ${count} came after all ${script.responses.length} scripted responses were used`);
        response = { text: "The model script has no more responses.", hold: false };
      }
      if (request.stream === true) streamResponse(res, count, request, response);
      else jsonResponse(res, count, request, response);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, MODEL_SERVER_HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://${MODEL_SERVER_HOST}:${port}/v1`,
    port,
    served,
    problems,
    remaining: () => script.responses.length - next,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
