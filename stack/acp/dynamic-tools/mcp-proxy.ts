/**
 * The MCP stdio server an ACP agent launches as `bb-bridge` (spec 20 §2.6): it lists the bb
 * dynamic tools and forwards each `tools/call` to the bridge's loopback tool host, sending
 * `notifications/progress` every 15 s while it waits when the caller gave a progress token.
 * Unknown tool → -32602. Uses `@modelcontextprotocol/sdk`.
 */
import { connect } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import type { ScheduledHandle, Scheduler } from "../../bridge-kit/scheduler.js";
import { DYNAMIC_TOOL_ENV, DYNAMIC_TOOL_HEARTBEAT_MS, DYNAMIC_TOOL_SERVER_NAME, DynamicToolSchema, type DynamicTool, type ToolCallReply } from "./protocol.js";

/** What the proxy needs, read from its env (see {@link DYNAMIC_TOOL_ENV}). */
export interface McpProxyConfig {
  host: string;
  port: number;
  token: string;
  threadId: string;
  tools: DynamicTool[];
}

/**
 * Reads the proxy config from an environment.
 * @throws Error naming the missing or bad variable.
 */
export function readMcpProxyConfig(env: Readonly<Record<string, string | undefined>>): McpProxyConfig {
  const need = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  const port = Number(need(DYNAMIC_TOOL_ENV.port));
  if (!Number.isInteger(port) || port <= 0) throw new Error(`${DYNAMIC_TOOL_ENV.port} is not a port number`);
  let tools: unknown;
  try {
    tools = JSON.parse(need(DYNAMIC_TOOL_ENV.tools));
  } catch (error) {
    throw new Error(`${DYNAMIC_TOOL_ENV.tools} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return {
    host: need(DYNAMIC_TOOL_ENV.host),
    port,
    token: need(DYNAMIC_TOOL_ENV.token),
    threadId: need(DYNAMIC_TOOL_ENV.threadId),
    tools: z.array(DynamicToolSchema).parse(tools),
  };
}

/** Sends one call to the tool host and resolves with its one-line reply (never rejects). */
function callHost(config: McpProxyConfig, message: object): Promise<ToolCallReply> {
  return new Promise((resolve) => {
    const socket = connect(config.port, config.host);
    let buffered = "";
    let settled = false;
    const settle = (reply: ToolCallReply) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(reply);
    };
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify(message)}\n`));
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf("\n");
      if (newline === -1) return;
      try {
        settle(JSON.parse(buffered.slice(0, newline)) as ToolCallReply);
      } catch {
        settle({ ok: false, error: "the bridge answered with something that is not JSON" });
      }
    });
    socket.on("error", (error) => settle({ ok: false, error: `cannot reach the bridge: ${error.message}` }));
    socket.on("close", () => settle({ ok: false, error: "the bridge closed the connection without answering" }));
  });
}

/**
 * Runs the proxy on stdio until stdin closes. `nextCallId(tool)` mints call ids
 * (`acp-mcp-<tool>-<epochMs>-<n>` in the entry point); progress heartbeats of a call with a
 * progress token run every `DYNAMIC_TOOL_HEARTBEAT_MS` on `scheduler`.
 */
export async function runMcpProxy(config: McpProxyConfig, nextCallId: (tool: string) => string, scheduler: Scheduler): Promise<void> {
  const server = new Server({ name: DYNAMIC_TOOL_SERVER_NAME, version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: config.tools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: (tool.inputSchema ?? { type: "object" }) as { type: "object"; [key: string]: unknown },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = config.tools.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}"`);
    const progressToken = request.params._meta?.progressToken;
    let beats = 0;
    let heartbeat: ScheduledHandle | undefined;
    const beat = (): void => {
      beats += 1;
      void extra.sendNotification({ method: "notifications/progress", params: { progressToken: progressToken!, progress: beats } });
      heartbeat = scheduler.schedule(DYNAMIC_TOOL_HEARTBEAT_MS, beat);
    };
    if (progressToken !== undefined) heartbeat = scheduler.schedule(DYNAMIC_TOOL_HEARTBEAT_MS, beat);
    try {
      const reply = await callHost(config, {
        kind: "toolCall",
        token: config.token,
        threadId: config.threadId,
        tool: tool.name,
        callId: nextCallId(tool.name),
        arguments: request.params.arguments ?? {},
      });
      if (!reply.ok) return { content: [{ type: "text" as const, text: reply.error }], isError: true };
      return { content: reply.content, ...(reply.isError ? { isError: true } : {}) };
    } finally {
      scheduler.cancel(heartbeat);
    }
  });
  await server.connect(new StdioServerTransport());
}
