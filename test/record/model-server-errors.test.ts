import { afterEach, describe, expect, it } from "vitest";
import { ModelScriptSchema } from "../../harness/model-server/script.js";
import { startModelServer, type ModelApi, type ModelServer } from "../../harness/model-server/server.js";

const servers: ModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(script: unknown, api: ModelApi = "openai-chat"): Promise<ModelServer> {
  const server = await startModelServer({ script: ModelScriptSchema.parse(script), api });
  servers.push(server);
  return server;
}

const TOOLS = [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }];

/** One chat-completions request whose last user message is `prompt` (plus optional extra body); status and parsed body. */
async function ask(server: ModelServer, prompt: string, extra: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "scripted",
      stream: true,
      tools: TOOLS,
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: prompt },
      ],
      ...extra,
    }),
  });
  const text = await res.text();
  return { status: res.status, body: res.headers.get("content-type") === "application/json" ? JSON.parse(text) : text };
}

describe("model-script error responses", () => {
  it("answers a scripted error with its status and the API's error body, once", async () => {
    const server = await start({ responses: [{ error: { status: 401, message: "Invalid API key" } }, { text: "ok" }] });
    const first = await ask(server, "hi");
    expect(first.status).toBe(401);
    expect(first.body).toEqual({ error: { message: "Invalid API key", type: "authentication_error", param: null, code: null } });
    // Without `repeat`, the next request takes the next response, even for the same prompt.
    const second = await ask(server, "hi");
    expect(second.status).toBe(200);
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  it("repeats an error for every retry of one prompt, changed bodies included, and moves on at a new prompt", async () => {
    const server = await start({ responses: [{ error: { status: 400, message: "bad request" }, repeat: true }, { text: "fine now" }] });
    for (const extra of [{}, { temperature: 0.5 }, { tools: [...TOOLS, { type: "function", function: { name: "read", parameters: {} } }] }]) {
      expect((await ask(server, "say hi", extra)).status).toBe(400);
    }
    expect(server.served.map((s) => s.kind)).toEqual(["response", "retry", "retry"]);
    const next = await ask(server, "say hi again");
    expect(next.status).toBe(200);
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  it("takes a retry whose agent-added <system-reminder> parts changed for a retry (Claude Code 2.1.332's fourth try of a 400)", async () => {
    // The shape the real CLI sent (logged in the netns run of cells/model-error's claude-code
    // variant): three identical tries, then one that drops the deferred tools and adds a
    // reminder saying so, inside the same user message, before the user's unchanged prompt.
    const server = await start({ responses: [{ error: { status: 400, message: "bad request" }, repeat: true }, { text: "next" }] }, "anthropic-messages");
    const env = { type: "text", text: "<system-reminder>\n# Environment\n - Primary working directory: /tmp/ws\n</system-reminder>" };
    const dropped = { type: "text", text: "<system-reminder>\nToolSearch is no longer available.\n</system-reminder>\n" };
    const messages = (parts: object[]) => ({ model: "claude-sonnet-4-5", stream: true, tools: TOOLS, messages: [{ role: "user", content: parts }] });
    const post = async (body: object) => (await fetch(`${server.origin}/v1/messages`, { method: "POST", body: JSON.stringify(body) })).status;
    for (let i = 0; i < 3; i += 1) expect(await post(messages([env, { type: "text", text: "Say hello." }]))).toBe(400);
    expect(await post(messages([env, dropped, { type: "text", text: "Say hello." }]))).toBe(400);
    expect(server.served.map((s) => s.kind)).toEqual(["response", "retry", "retry", "retry"]);
    // A new prompt, even under the same reminders, takes the next response.
    expect(await post(messages([env, dropped, { type: "text", text: "Say hello again." }]))).toBe(200);
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  it("still reports a request past the script when the last response was an error that does not repeat", async () => {
    const server = await start({ responses: [{ error: { status: 500, message: "boom" } }] });
    expect((await ask(server, "x")).status).toBe(500);
    expect((await ask(server, "x")).status).toBe(200);
    expect(server.problems).toEqual(['request 2 came after all 1 scripted responses were used (the agent asked for more than the script holds): last user message "x"; tools offered: bash']);
  });

  it("writes each API's own error body", async () => {
    const anthropic = await start({ responses: [{ error: { status: 429, message: "slow down" } }] }, "anthropic-messages");
    const a = await fetch(`${anthropic.origin}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", tools: TOOLS, messages: [{ role: "user", content: [{ type: "text", text: "p" }] }] }),
    });
    expect(a.status).toBe(429);
    expect(await a.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
    const gemini = await start({ responses: [{ error: { status: 401, message: "no key" } }] }, "gemini");
    const g = await fetch(`${gemini.origin}/v1beta/models/gemini-x:generateContent`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "p" }] }], tools: [{ functionDeclarations: [{ name: "bash" }] }] }),
    });
    expect(g.status).toBe(401);
    expect(await g.json()).toEqual({ error: { code: 401, message: "no key", status: "UNAUTHENTICATED" } });
  });

  it("refuses an error response that carries anything else, and a repeat without an error", () => {
    expect(() => ModelScriptSchema.parse({ responses: [{ error: { status: 500, message: "x" }, text: "y" }] })).toThrow(/an error response carries nothing else/);
    expect(() => ModelScriptSchema.parse({ responses: [{ text: "y", repeat: true }] })).toThrow(/only an error response repeats/);
    expect(() => ModelScriptSchema.parse({ responses: [{ error: { status: 200, message: "x" } }] })).toThrow();
  });
});
