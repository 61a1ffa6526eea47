import { afterEach, describe, expect, it } from "vitest";
import { jsonAnswer } from "../../harness/model-server/json-answer.js";
import { ModelScriptSchema } from "../../harness/model-server/script.js";
import { startModelServer, type ModelApi, type ModelServer } from "../../harness/model-server/server.js";

const servers: ModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(api: ModelApi, script: unknown, vars: Record<string, string> = {}): Promise<ModelServer> {
  const server = await startModelServer({ api, script: ModelScriptSchema.parse(script), vars });
  servers.push(server);
  return server;
}

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** The SSE events of a response body: `{event?, data}` with data parsed. */
async function sse(res: Response): Promise<Array<{ event?: string; data: any }>> {
  const text = await res.text();
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = JSON.parse(lines.find((l) => l.startsWith("data: "))!.slice(6));
      return event === undefined ? { data } : { event, data };
    });
}

const READ = { name: "read", arguments: { filePath: "{{cwd}}/a.txt" } };

describe("OpenAI Responses dialect", () => {
  it("streams response.* events: a message with text deltas, a function_call and a freeform custom_tool_call, then response.completed", async () => {
    const server = await start("openai-responses", { responses: [{ text: "Patching it.", toolCalls: [READ, { name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n" }] }] }, { cwd: "/ws" });
    const events = await sse(await post(`${server.baseUrl}/responses`, { model: "gpt-5.4-mini", stream: true, tools: [{ type: "function", name: "x" }], input: [] }));
    const types = events.map((e) => e.event);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
    expect(
      events
        .filter((e) => e.event === "response.output_text.delta")
        .map((e) => e.data.delta)
        .join(""),
    ).toBe("Patching it.");
    const done = events.filter((e) => e.event === "response.output_item.done").map((e) => e.data.item);
    expect(done.map((i) => i.type)).toEqual(["message", "function_call", "custom_tool_call"]);
    expect(done[1]).toMatchObject({ call_id: "call_parity_1_1", name: "read", arguments: JSON.stringify({ filePath: "/ws/a.txt" }) });
    expect(done[2]).toMatchObject({ call_id: "call_parity_1_2", name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n" });
    const completed = events.at(-1)!.data.response;
    expect(completed.status).toBe("completed");
    expect(completed.output).toEqual(done);
    expect(completed.usage.total_tokens).toBe(completed.usage.input_tokens + completed.usage.output_tokens);
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  it("reports a function_call_output that says the agent did not know the tool", async () => {
    const server = await start("openai-responses", { responses: [{ toolCalls: [{ name: "shell", arguments: { cmd: "ls" } }] }, { text: "done" }] });
    const tools = [{ type: "function", name: "exec_command" }];
    await (await post(`${server.baseUrl}/responses`, { stream: true, tools, input: [] })).text();
    const input = [{ type: "function_call_output", call_id: "call_parity_1_1", output: "unsupported call: shell" }];
    await (await post(`${server.baseUrl}/responses`, { stream: true, tools, input })).text();
    expect(server.problems).toEqual(["the agent rejected scripted tool call shell (call_parity_1_1): unsupported call: shell"]);
  });
});

describe("Anthropic Messages dialect", () => {
  it("streams message_start, text and tool_use blocks with input_json_delta, message_delta tool_use and message_stop", async () => {
    const server = await start("anthropic-messages", { responses: [{ text: "Reading.", toolCalls: [READ] }] }, { cwd: "/ws" });
    const events = await sse(await post(`${server.origin}/v1/messages?beta=true`, { model: "claude", stream: true, tools: [{ name: "Read" }], messages: [] }));
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[2]!.data.delta).toEqual({ type: "text_delta", text: "Reading." });
    expect(events[4]!.data.content_block).toEqual({ type: "tool_use", id: "call_parity_1_1", name: "read", input: {} });
    expect(JSON.parse(events[5]!.data.delta.partial_json)).toEqual({ filePath: "/ws/a.txt" });
    expect(events[7]!.data.delta.stop_reason).toBe("tool_use");
  });

  it("answers HEAD / and count_tokens without using a response, and a request without tools with the title", async () => {
    const server = await start("anthropic-messages", { title: "A title", responses: [{ text: "x" }] });
    expect((await fetch(`${server.origin}/`, { method: "HEAD" })).status).toBe(200);
    expect(await (await post(`${server.origin}/v1/messages/count_tokens?beta=true`, { messages: [] })).json()).toEqual({ input_tokens: 1000 });
    const title = (await (await post(`${server.origin}/v1/messages`, { model: "haiku", messages: [] })).json()) as any;
    expect(title.content).toEqual([{ type: "text", text: "A title" }]);
    expect(title.stop_reason).toBe("end_turn");
    expect(server.remaining()).toBe(1);
    expect(server.problems).toEqual([]);
  });

  it("reports an unknown route", async () => {
    const server = await start("anthropic-messages", { responses: [] });
    expect((await post(`${server.origin}/v1/complete`, {})).status).toBe(404);
    expect(server.problems).toEqual(["unexpected POST /v1/complete (the anthropic-messages endpoint does not serve it)"]);
  });
});

describe("Gemini dialect", () => {
  const tools = [{ functionDeclarations: [{ name: "read_file" }] }];

  it("streams streamGenerateContent?alt=sse chunks: text, then functionCall parts with ids, finishReason and usage last", async () => {
    const server = await start("gemini", { responses: [{ text: "Reading it.", toolCalls: [READ] }] }, { cwd: "/ws" });
    const chunks = (await sse(await post(`${server.origin}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, { contents: [], tools }))).map((e) => e.data);
    expect(
      chunks
        .flatMap((c) => c.candidates[0].content.parts)
        .filter((p: any) => p.text)
        .map((p: any) => p.text)
        .join(""),
    ).toBe("Reading it.");
    const last = chunks.at(-1);
    expect(last.candidates[0].content.parts).toEqual([{ functionCall: { id: "call_parity_1_1", name: "read", args: { filePath: "/ws/a.txt" } } }]);
    expect(last.candidates[0].finishReason).toBe("STOP");
    expect(last.usageMetadata.totalTokenCount).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
    expect(last.modelVersion).toBe("gemini-2.5-pro");
  });

  it("answers a JSON-mode request without tools with JSON that fits its schema, and countTokens, using no response", async () => {
    const server = await start("gemini", { title: "route", responses: [{ text: "x" }] });
    const schema = { type: "object", properties: { reasoning: { type: "string" }, model_choice: { type: "string", enum: ["flash", "pro"] } }, required: ["reasoning", "model_choice"] };
    const answer = (await (
      await post(`${server.origin}/v1beta/models/flash:generateContent`, { contents: [], generationConfig: { responseMimeType: "application/json", responseJsonSchema: schema } })
    ).json()) as any;
    expect(JSON.parse(answer.candidates[0].content.parts[0].text)).toEqual({ reasoning: "route", model_choice: "flash" });
    expect(await (await post(`${server.origin}/v1beta/models/flash:countTokens`, { contents: [] })).json()).toEqual({ totalTokens: 1000 });
    expect(server.remaining()).toBe(1);
    expect(server.problems).toEqual([]);
  });

  it("reports a functionResponse saying the tool is unknown", async () => {
    const server = await start("gemini", { responses: [{ toolCalls: [{ name: "read", arguments: {} }] }, { text: "ok" }] });
    const url = `${server.origin}/v1beta/models/m:streamGenerateContent?alt=sse`;
    await (await post(url, { contents: [], tools })).text();
    const contents = [{ role: "user", parts: [{ functionResponse: { id: "call_parity_1_1", name: "read", response: { error: 'Tool "read" not found in registry.' } } }] }];
    await (await post(url, { contents, tools })).text();
    expect(server.problems).toHaveLength(1);
    expect(server.problems[0]).toMatch(/^the agent rejected scripted tool call read \(call_parity_1_1\): .*not found in registry/);
  });
});

describe("OpenAI chat tool results", () => {
  it("reports a tool message saying no such tool, but not a user's denial", async () => {
    const server = await start("openai-chat", {
      responses: [
        {
          toolCalls: [
            { name: "a", arguments: {} },
            { name: "b", arguments: {} },
          ],
        },
        { text: "ok" },
      ],
    });
    const tools = [{ type: "function", function: { name: "a" } }];
    await (await post(`${server.baseUrl}/chat/completions`, { stream: true, tools, messages: [] })).text();
    const messages = [
      { role: "tool", tool_call_id: "call_parity_1_1", content: "No such tool available: a" },
      { role: "tool", tool_call_id: "call_parity_1_2", content: "The user rejected permission to use this specific tool call." },
    ];
    await (await post(`${server.baseUrl}/chat/completions`, { stream: true, tools, messages })).text();
    expect(server.problems).toEqual(["the agent rejected scripted tool call a (call_parity_1_1): No such tool available: a"]);
  });
});

describe("jsonAnswer", () => {
  it("fills required properties from the Gemini Schema spelling too", () => {
    expect(jsonAnswer({ type: "OBJECT", properties: { next_speaker: { type: "STRING", enum: ["user", "model"] }, ok: { type: "BOOLEAN" } } }, "t")).toEqual({ next_speaker: "user", ok: false });
  });
});
