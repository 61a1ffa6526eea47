/**
 * The loopback wire between the bridge and its MCP stdio proxy (spec 20 §2.6): one JSON line each
 * way per TCP connection, authenticated by a per-bridge token, plus the env names that carry the
 * connection facts to the proxy.
 */
import * as z from "zod";

/** Env names the proxy reads (ACP `{name, value}` pairs in the `mcpServers` entry). */
export const DYNAMIC_TOOL_ENV = {
  host: "BB_ACP_DYNAMIC_TOOL_HOST",
  port: "BB_ACP_DYNAMIC_TOOL_PORT",
  token: "BB_ACP_DYNAMIC_TOOL_TOKEN",
  threadId: "BB_ACP_DYNAMIC_TOOL_THREAD_ID",
  tools: "BB_ACP_DYNAMIC_TOOLS",
} as const;

/** The MCP server name agents see (spec 20 §2.6). */
export const DYNAMIC_TOOL_SERVER_NAME = "bb-bridge";
/** Loopback address of the tool host. */
export const DYNAMIC_TOOL_HOST = "127.0.0.1";
/** Progress heartbeat period while a proxied call waits, in ms (agents' MCP clients time out at 60 s). */
export const DYNAMIC_TOOL_HEARTBEAT_MS = 15_000;
/** Cap on one socket line, in bytes. */
export const DYNAMIC_TOOL_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** One bb dynamic tool as the runtime declares it: `{name, description?, inputSchema?}`. */
export const DynamicToolSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
});
/** One bb dynamic tool. */
export type DynamicTool = z.infer<typeof DynamicToolSchema>;

/** Proxy → bridge: `{kind:"toolCall", token, threadId, tool, callId, arguments}`. */
export const ToolCallMessageSchema = z.strictObject({
  kind: z.literal("toolCall"),
  token: z.string(),
  threadId: z.string().min(1),
  tool: z.string().min(1),
  callId: z.string().min(1),
  arguments: z.unknown(),
});
/** A proxied tool call. */
export type ToolCallMessage = z.infer<typeof ToolCallMessageSchema>;

/** One MCP content block the proxy returns (text or image). */
export type McpContentBlock = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** Bridge → proxy: `{ok:true, content, isError}` or `{ok:false, error}`. */
export type ToolCallReply = { ok: true; content: McpContentBlock[]; isError: boolean } | { ok: false; error: string };

/**
 * Maps an `item/tool/call` result `{success, contentItems:[{type:"inputText",text}|{type:"inputImage",imageUrl}]}`
 * to MCP content (spec 20 §2.6): data-URL images become image blocks, other image URLs text; empty →
 * `OK` / `Tool call failed`.
 */
export function toolResultToMcp(result: unknown): { content: McpContentBlock[]; isError: boolean } {
  const r = (result && typeof result === "object" ? result : {}) as { success?: unknown; contentItems?: unknown };
  const isError = r.success === false;
  const content: McpContentBlock[] = [];
  for (const item of Array.isArray(r.contentItems) ? r.contentItems : []) {
    if (!item || typeof item !== "object") continue;
    const i = item as { type?: unknown; text?: unknown; imageUrl?: unknown };
    if (i.type === "inputText" && typeof i.text === "string") content.push({ type: "text", text: i.text });
    else if (i.type === "inputImage" && typeof i.imageUrl === "string") {
      const match = /^data:([^;]+);base64,(.*)$/s.exec(i.imageUrl);
      content.push(match ? { type: "image", mimeType: match[1]!, data: match[2]! } : { type: "text", text: `[image: ${i.imageUrl}]` });
    }
  }
  if (content.length === 0) content.push({ type: "text", text: isError ? "Tool call failed" : "OK" });
  return { content, isError };
}
