/**
 * The loopback model endpoint (docs/design/00-product.md "Real input": "a loopback model endpoint
 * scripted per cell lets it do real tool work without a network"): a project-owned HTTP
 * server bound to 127.0.0.1 only, playing one cell's {@link ModelScript} in the wire format of
 * one model API (dialect.ts; spec 50 "What each sends to its model endpoint"). Requests that
 * offer tools take the script's responses in order; requests without tools get the script's
 * title (a JSON answer in JSON mode); auxiliary requests (token counts, reachability checks)
 * are answered by the dialect. Anything the script does not fit — an unknown route, a request
 * after the script ran out, a tool result that says the agent rejected a scripted tool call —
 * is a problem `record` reports; an unused response is seen through {@link ModelServer.remaining}.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicMessagesDialect } from "./anthropic-messages.js";
import { toolCallId, type GenerationRequest, type ModelAnswer, type ModelApi, type ModelDialect } from "./dialect.js";
import { geminiDialect } from "./gemini.js";
import { jsonAnswer } from "./json-answer.js";
import { openAiChatDialect } from "./openai-chat.js";
import { openAiResponsesDialect } from "./openai-responses.js";
import { fillTemplate, type ModelResponse, type ModelScript } from "./script.js";

export { textChunks } from "./dialect.js";
export type { ModelApi } from "./dialect.js";

/** The only address the endpoint listens on. */
export const MODEL_SERVER_HOST = "127.0.0.1";

/** The encoder of each model API. */
export const MODEL_DIALECTS: Readonly<Record<ModelApi, ModelDialect>> = {
  "openai-chat": openAiChatDialect,
  "openai-responses": openAiResponsesDialect,
  "anthropic-messages": anthropicMessagesDialect,
  gemini: geminiDialect,
};

/**
 * Tool results that mean the agent did not run a scripted tool call at all (spec 50: "An agent
 * answers a tool name it does not know with an error to the model … a recording can look fine
 * while no tool ran"): unknown tool names, calls the agent does not support, arguments it
 * refused, a sandbox that could not start. A user's denial is not among them.
 */
export const TOOL_REJECTION_PATTERNS: readonly RegExp[] = [
  /no such tool/i,
  /unsupported call/i,
  /unknown tool/i,
  /tool (?:"[^"]*"|'[^']*'|\S+) (?:is )?not (?:found|available|registered)/i,
  /not found in (?:the )?(?:tool )?registry/i,
  /InputValidationError/,
  /invalid (?:tool )?(?:arguments|parameters|params)/i,
  /failed to parse (?:tool )?(?:arguments|input)/i,
  /sandbox (?:error|failed|denied)/i,
  /bwrap:/,
];

/** One request the endpoint served. */
export interface ServedRequest {
  /**
   * `title` for a request without tools, `response` for a scripted response (an error one
   * included), `retry` for a further request of a repeating error's prompt, `exhausted` past the
   * script, `aux` for an auxiliary request.
   */
  kind: "title" | "response" | "retry" | "exhausted" | "aux";
  /** Index into the script's responses (responses only). */
  index?: number;
  /** The request's model field. */
  model: string;
}

/** A running endpoint. */
export interface ModelServer {
  /** The API it speaks. */
  readonly api: ModelApi;
  /** `http://127.0.0.1:<port>`, the origin (Anthropic and Gemini clients take it). */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/v1`, the `baseURL` an OpenAI client takes. */
  readonly baseUrl: string;
  readonly port: number;
  /** Requests served so far, in arrival order. */
  readonly served: readonly ServedRequest[];
  /** Problems seen (unknown route, bad body, more requests than responses, rejected tool calls); empty when the script fit. */
  readonly problems: readonly string[];
  /** How many scripted responses were not used yet. */
  remaining(): number;
  /**
   * Ends every held answer whose stream is still open as if it had not been held (a cell's
   * `model/release` step: the agent's model call ends causally, e.g. after a steer was
   * accepted). Returns how many were released; a held answer of an API without
   * `endHeld` (dialect.ts) is a problem and stays open.
   */
  releaseHeld(): number;
  /** Stops listening and drops every open stream (held responses included). */
  close(): Promise<void>;
}

/** Options of {@link startModelServer}. */
export interface ModelServerOptions {
  script: ModelScript;
  /** The API to speak; default `openai-chat`. */
  api?: ModelApi;
  /** Values of `{{name}}` placeholders in the script (e.g. `cwd`). */
  vars?: Readonly<Record<string, string>>;
  /** Tool results that mean a rejected call; default {@link TOOL_REJECTION_PATTERNS}. */
  rejectionPatterns?: readonly RegExp[];
  /**
   * Listen on this Unix socket instead of a TCP port, for an agent in another network
   * namespace that reaches it through a forwarder at `127.0.0.1:<port>` (record network.ts);
   * `origin` and `baseUrl` then name that port.
   */
  unixSocket?: { path: string; port: number };
}

/** A held answer whose stream was left open: what its dialect needs to end it. */
interface HeldAnswer {
  res: http.ServerResponse;
  n: number;
  request: GenerationRequest;
  answer: ModelAnswer;
}

/**
 * The numbers of a server's answers: `next(offersTools)` is the answer's place among requests of its
 * own kind (conversation requests, which offer tools; title requests, which do not), from 1. An
 * answer's ids, timestamps and made-up token counts are fixed functions of its number (dialect.ts),
 * and never of its place among all requests: an agent sends side requests (opencode's session title,
 * Claude Code's reachability check and token counts) beside its conversation, and which arrives
 * first is the scheduler's (opencode 1.18.33's title came before the first prompt in one run and
 * after it in the next: the prompt's token counts moved by one request's step).
 */
function answerNumbering(): (offersTools: boolean) => number {
  const numbered = { conversation: 0, title: 0 };
  return (offersTools) => (offersTools ? ++numbered.conversation : ++numbered.title);
}

/**
 * Reads the tool results of a request for scripted calls the agent rejected: each result of a call
 * in `issued` (call id → tool name) is taken out of it, and one matching a rejection pattern is a
 * problem pushed onto `problems`.
 */
function checkRejections(results: ReadonlyArray<{ callId: string; text: string }>, issued: Map<string, string>, rejections: readonly RegExp[], problems: string[]): void {
  for (const result of results) {
    const name = issued.get(result.callId);
    if (name === undefined) continue;
    issued.delete(result.callId);
    if (rejections.some((pattern) => pattern.test(result.text))) {
      problems.push(`the agent rejected scripted tool call ${name} (${result.callId}): ${excerptOf(result.text)}`);
    }
  }
}

/** Ends the held answers still open through the dialect's `endHeld` (none without it: a problem); returns how many. */
function releaseHeldAnswers(held: readonly HeldAnswer[], dialect: ModelDialect, problems: string[]): number {
  const open = held.filter((h) => !h.res.writableEnded && !h.res.destroyed);
  if (open.length > 0 && !dialect.endHeld) {
    problems.push(`the ${dialect.api} endpoint cannot release a held response (no endHeld)`);
    return 0;
  }
  for (const h of open) dialect.endHeld!(h.res, h.n, h.request, h.answer);
  return open.length;
}

const excerptOf = (text: string) => (text.length > 120 ? `${text.slice(0, 117)}...` : text).replace(/\s+/g, " ");

/** Most tool names a request's gist lists. */
const GIST_TOOL_NAMES = 12;

/**
 * What an off-script request asked (issue 24, adding an agent): its latest user message, its
 * latest tool result (with the scripted call's name when the endpoint issued it) and the tools
 * it offers — enough to write the response the cell's script lacks.
 */
export function requestGist(request: GenerationRequest, issued: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  if (request.prompt !== "") parts.push(`last user message "${excerptOf(request.prompt)}"`);
  const result = request.toolResults.at(-1);
  if (result) parts.push(`last tool result (${issued.get(result.callId) ?? result.callId}) "${excerptOf(result.text)}"`);
  const names = request.toolNames ?? [];
  const more = names.length > GIST_TOOL_NAMES ? ` (+${names.length - GIST_TOOL_NAMES} more)` : "";
  parts.push(names.length > 0 ? `tools offered: ${names.slice(0, GIST_TOOL_NAMES).join(", ")}${more}` : "no tool named");
  return parts.join("; ");
}

/**
 * Starts the endpoint on 127.0.0.1 with an OS-chosen port (so parallel recordings never
 * collide) and resolves once it listens.
 * @throws Error when a `{{placeholder}}` of the script has no value in `vars`.
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const script = fillTemplate(options.script, options.vars ?? {});
  const dialect = MODEL_DIALECTS[options.api ?? "openai-chat"];
  const rejections = options.rejectionPatterns ?? TOOL_REJECTION_PATTERNS;
  const served: ServedRequest[] = [];
  const problems: string[] = [];
  /** Tool calls handed out, by call id → tool name; deleted once their result was checked. */
  const issued = new Map<string, string>();
  /** Every call id the endpoint issued and its tool name, kept after its result came (an off-script request's gist names it). */
  const callNames = new Map<string, string>();
  let next = 0;
  /** Requests read so far, of every kind: the number a problem names a request by. */
  let count = 0;
  const answerNumber = answerNumbering();
  /** The repeating error response being served, and the prompt it answers (script.ts `repeat`). */
  let repeating: { index: number; response: ModelResponse; prompt: string } | undefined;
  /** Held answers still streaming, in the order they were served. */
  const held: HeldAnswer[] = [];

  const checkToolResults = (results: ReadonlyArray<{ callId: string; text: string }>) => checkRejections(results, issued, rejections, problems);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      count += 1;
      const requestNumber = count;
      const method = req.method ?? "GET";
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const kind = dialect.classify(method, url);
      if (kind === undefined) {
        problems.push(`unexpected ${method} ${req.url} (the ${dialect.api} endpoint does not serve it)`);
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `not served by the ${dialect.api} endpoint`, type: "not_found" } }));
        return;
      }
      let body: Record<string, unknown> | undefined;
      const raw = Buffer.concat(chunks).toString("utf8");
      if (raw !== "") {
        try {
          const parsed = JSON.parse(raw) as unknown;
          body = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
        } catch {
          problems.push(`request ${requestNumber} (${method} ${url.pathname}) is not JSON`);
          res.writeHead(400).end();
          return;
        }
      }
      if (kind === "aux") {
        served.push({ kind: "aux", model: "" });
        dialect.answerAux(method, url, body, res);
        return;
      }
      const request = dialect.read(body ?? {}, url);
      checkToolResults(request.toolResults);
      const n = answerNumber(request.hasTools);
      let answer: ModelAnswer;
      if (repeating && request.hasTools && repeating.prompt !== request.prompt) repeating = undefined;
      if (!request.hasTools) {
        served.push({ kind: "title", model: request.model });
        answer = request.json !== undefined ? { json: jsonAnswer(request.json, script.title), hold: false } : { text: script.title, hold: false };
      } else if (repeating) {
        served.push({ kind: "retry", index: repeating.index, model: request.model });
        dialect.writeError(res, repeating.response.error!);
        return;
      } else if (next < script.responses.length) {
        served.push({ kind: "response", index: next, model: request.model });
        const response = script.responses[next]!;
        next += 1;
        if (response.error) {
          if (response.repeat) repeating = { index: next - 1, response, prompt: request.prompt };
          dialect.writeError(res, response.error);
          return;
        }
        answer = response;
      } else {
        served.push({ kind: "exhausted", model: request.model });
        problems.push(
          `request ${requestNumber} came after all ${script.responses.length} scripted responses were used (the agent asked for more than the script holds): ${requestGist(request, callNames)}`,
        );
        answer = { text: "The model script has no more responses.", hold: false };
      }
      const callIds = (answer.toolCalls ?? []).map((call, i) => {
        const id = toolCallId(n, i);
        issued.set(id, call.name);
        callNames.set(id, call.name);
        return id;
      });
      dialect.write(res, n, request, answer, callIds);
      if (answer.hold) held.push({ res, n, request, answer });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (options.unixSocket) server.listen(options.unixSocket.path, () => resolve());
    else server.listen(0, MODEL_SERVER_HOST, () => resolve());
  });
  const port = options.unixSocket ? options.unixSocket.port : (server.address() as AddressInfo).port;
  const origin = `http://${MODEL_SERVER_HOST}:${port}`;
  return {
    api: dialect.api,
    origin,
    baseUrl: `${origin}/v1`,
    port,
    served,
    problems,
    remaining: () => script.responses.length - next,
    releaseHeld: () => releaseHeldAnswers(held.splice(0), dialect, problems),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
