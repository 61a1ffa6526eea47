import { afterEach, describe, expect, it } from "vitest";
import { ModelScriptSchema } from "../../harness/model-server/script.js";
import { MODEL_SERVER_HOST, startModelServer, textChunks, type ModelServer } from "../../harness/model-server/server.js";

const servers: ModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(script: unknown, vars: Record<string, string> = {}): Promise<ModelServer> {
  const server = await startModelServer({ script: ModelScriptSchema.parse(script), vars });
  servers.push(server);
  return server;
}

const TOOLS = [{ type: "function", function: { name: "read", parameters: { type: "object" } } }];

/** Posts a streaming chat-completions request and returns the parsed SSE `data:` payloads. */
async function chat(server: ModelServer, body: Record<string, unknown>): Promise<unknown[]> {
  const res = await fetch(`${server.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted", stream: true, stream_options: { include_usage: true }, ...body }),
  });
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice(6))
    .map((data) => (data === "[DONE]" ? data : JSON.parse(data)));
}

describe("loopback model endpoint", () => {
  it("listens on 127.0.0.1 only", async () => {
    const server = await start({ responses: [{ text: "hi" }] });
    expect(MODEL_SERVER_HOST).toBe("127.0.0.1");
    expect(server.baseUrl).toBe(`http://127.0.0.1:${server.port}/v1`);
  });

  it("streams tool calls with filled placeholders, a finish reason, a usage chunk and [DONE]", async () => {
    const server = await start({ responses: [{ text: "Reading it.", toolCalls: [{ name: "read", arguments: { filePath: "{{cwd}}/a.txt" } }] }] }, { cwd: "/ws" });
    const chunks = (await chat(server, { tools: TOOLS, messages: [] })) as Array<Record<string, any>>;
    expect(chunks.at(-1)).toBe("[DONE]");
    const deltas = chunks
      .slice(0, -1)
      .filter((c) => c.choices.length > 0)
      .map((c) => c.choices[0]);
    expect(deltas.map((d) => d.delta.content).filter((c) => c)).toEqual(["Reading ", "it."]);
    const calls = deltas.flatMap((d) => d.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: `call_parity_1_1`, type: "function", function: { name: "read", arguments: "" } });
    expect(JSON.parse(calls.map((c) => c.function.arguments).join(""))).toEqual({ filePath: "/ws/a.txt" });
    expect(deltas.at(-1)?.finish_reason).toBe("tool_calls");
    const usage = chunks.at(-2) as Record<string, any>;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 1010, completion_tokens: 20, total_tokens: 1030 });
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  it("answers requests without tools with the title, without using a response", async () => {
    const server = await start({ title: "A title", responses: [{ text: "answer" }] });
    const title = (await chat(server, { messages: [] })) as any[];
    expect(title.flatMap((c) => (c === "[DONE]" ? [] : c.choices.map((x: any) => x.delta.content ?? ""))).join("")).toBe("A title");
    expect(server.remaining()).toBe(1);
    expect(server.served).toEqual([{ kind: "title", model: "scripted" }]);
  });

  it("numbers a conversation request by its place among conversation requests: a title before or after it moves no id or token count", async () => {
    // opencode 1.18.33 asks for its session title beside its first prompt; which arrives first is
    // the scheduler's (a whole re-record's acp-opencode approval-deny had the prompt first, the
    // committed recording the title first, and its token counts moved by one request's step).
    const script = { title: "T", responses: [{ text: "a", toolCalls: [{ name: "read", arguments: {} }] }, { text: "b" }] };
    const conversation = async (titleFirst: boolean) => {
      const server = await start(script);
      if (titleFirst) await chat(server, { messages: [] });
      const first = (await chat(server, { tools: TOOLS, messages: [] })) as Array<Record<string, any> | string>;
      if (!titleFirst) await chat(server, { messages: [] });
      const second = (await chat(server, { tools: TOOLS, messages: [] })) as Array<Record<string, any> | string>;
      const gist = (chunks: Array<Record<string, any> | string>) => ({
        usage: (chunks.find((c) => typeof c !== "string" && c.usage) as Record<string, any> | undefined)?.usage,
        ids: chunks.flatMap((c) => (typeof c === "string" ? [] : [c.id, ...c.choices.flatMap((x: any) => (x.delta.tool_calls ?? []).map((t: any) => t.id ?? ""))])),
      });
      return [gist(first), gist(second)];
    };
    const titleFirst = await conversation(true);
    expect(titleFirst[0]!.usage).toEqual({ prompt_tokens: 1010, completion_tokens: 20, total_tokens: 1030 });
    expect(titleFirst[1]!.usage).toEqual({ prompt_tokens: 1020, completion_tokens: 20, total_tokens: 1040 });
    expect(titleFirst[0]!.ids).toContain("call_parity_1_1");
    expect(await conversation(false)).toEqual(titleFirst);
  });

  it("is deterministic: the same script gives the same bytes", async () => {
    const script = { responses: [{ text: "same words here" }] };
    const a = await chat(await start(script), { tools: TOOLS });
    const b = await chat(await start(script), { tools: TOOLS });
    expect(a).toEqual(b);
  });

  it("notes a request after the script ran out, and an unknown route", async () => {
    const server = await start({ responses: [{ text: "one" }] });
    await chat(server, { tools: TOOLS });
    await chat(server, { tools: TOOLS });
    const res = await fetch(`${server.baseUrl}/models`);
    expect(res.status).toBe(404);
    expect(server.problems).toEqual([
      "request 2 came after all 1 scripted responses were used (the agent asked for more than the script holds): tools offered: read",
      "unexpected GET /v1/models (the openai-chat endpoint does not serve it)",
    ]);
  });

  it("an off-script request's gist names its last user message, its last tool result (by the scripted call's name) and the tools it offers", async () => {
    const server = await start({ responses: [{ toolCalls: [{ name: "read", arguments: { filePath: "/ws/a.txt" } }] }] });
    const first = await chat(server, { tools: TOOLS, messages: [{ role: "user", content: "Read a.txt" }] });
    const id = first.flatMap((c: any) => (c === "[DONE]" ? [] : (c.choices?.[0]?.delta?.tool_calls ?? []))).find((t: any) => t.id)?.id as string;
    const many = [...TOOLS, ...Array.from({ length: 12 }, (_, i) => ({ type: "function", function: { name: `t${i}` } }))];
    const messages = [
      { role: "user", content: "Read a.txt" },
      { role: "assistant", tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }] },
      { role: "tool", tool_call_id: id, content: "line one\nline two" },
    ];
    await chat(server, { tools: many, messages });
    expect(server.problems).toEqual([
      `request 2 came after all 1 scripted responses were used (the agent asked for more than the script holds): last user message "Read a.txt"; last tool result (read) "line one line two"; tools offered: read, t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 (+1 more)`,
    ]);
  });

  it("holds a stream open until the client goes away, and close() ends it", async () => {
    const server = await start({ responses: [{ text: "Thinking…", hold: true }] });
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, tools: TOOLS }),
    });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("Thinking…")) seen += new TextDecoder().decode((await reader.read()).value);
    expect(seen).not.toContain("[DONE]");
    expect(seen).not.toContain('finish_reason":"stop');
    await server.close();
    servers.length = 0;
    // The held stream ends (cleanly or by reset) once the endpoint closes; a hang fails the test.
    const outcome = await (async () => {
      try {
        for (;;) if ((await reader.read()).done) return "ended";
      } catch {
        return "reset";
      }
    })();
    expect(["ended", "reset"]).toContain(outcome);
  });

  it("releaseHeld ends a held stream as a text answer: finish reason stop, usage, [DONE]", async () => {
    const server = await start({ responses: [{ text: "Drafting now", hold: true }, { text: "next" }] });
    expect(server.releaseHeld()).toBe(0);
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, stream_options: { include_usage: true }, tools: TOOLS }),
    });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("now")) seen += new TextDecoder().decode((await reader.read()).value);
    expect(seen).not.toContain("[DONE]");
    expect(server.releaseHeld()).toBe(1);
    for (let r = await reader.read(); !r.done; r = await reader.read()) seen += new TextDecoder().decode(r.value);
    const chunks = seen
      .split("\n\n")
      .filter((b) => b.startsWith("data: "))
      .map((b) => b.slice(6));
    expect(chunks.at(-1)).toBe("[DONE]");
    const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c) as Record<string, any>);
    expect(parsed.flatMap((c) => c.choices.map((x: any) => x.delta.content ?? "")).join("")).toBe("Drafting now");
    expect(parsed.at(-2)!.choices[0].finish_reason).toBe("stop");
    expect(parsed.at(-1)!.usage).toEqual({ prompt_tokens: 1010, completion_tokens: 20, total_tokens: 1030 });
    // Released once: a second release finds nothing open; the script goes on with the next response.
    expect(server.releaseHeld()).toBe(0);
    expect(server.remaining()).toBe(1);
    expect(server.problems).toEqual([]);
  });

  it("releaseHeld ends a held Anthropic stream: the text block stops, the message ends end_turn", async () => {
    const server = await startModelServer({ script: ModelScriptSchema.parse({ responses: [{ text: "Drafting now", hold: true }] }), api: "anthropic-messages" });
    servers.push(server);
    const res = await fetch(`${server.origin}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, tools: [{ name: "read", input_schema: { type: "object" } }], messages: [{ role: "user", content: "hi" }] }),
    });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("now")) seen += new TextDecoder().decode((await reader.read()).value);
    expect(server.releaseHeld()).toBe(1);
    for (let r = await reader.read(); !r.done; r = await reader.read()) seen += new TextDecoder().decode(r.value);
    const types = [...seen.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(types.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    expect(seen).toContain('"stop_reason":"end_turn"');
    expect(server.problems).toEqual([]);
  });

  it("an API without endHeld notes a release it cannot do and keeps the stream open", async () => {
    const server = await startModelServer({ script: ModelScriptSchema.parse({ responses: [{ text: "Held here", hold: true }] }), api: "gemini" });
    servers.push(server);
    const res = await fetch(`${server.origin}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }], tools: [{ functionDeclarations: [{ name: "read" }] }] }),
    });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("here")) seen += new TextDecoder().decode((await reader.read()).value);
    expect(server.releaseHeld()).toBe(0);
    expect(server.problems).toEqual(["the gemini endpoint cannot release a held response (no endHeld)"]);
  });

  it("splits text into chunks that join back exactly", () => {
    for (const text of ["a b  c", " lead", "trail ", "one"]) expect(textChunks(text).join("")).toBe(text);
  });

  it("rejects an unknown placeholder", async () => {
    await expect(startModelServer({ script: ModelScriptSchema.parse({ responses: [{ text: "{{nope}}" }] }) })).rejects.toThrow(/\{\{nope\}\}/);
  });
});
