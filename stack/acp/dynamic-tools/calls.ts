/**
 * bb dynamic tools on the bridge side (spec 20 §2.6, spec 30 §6.2): the `mcpServers` entry a session
 * sends, the lazily started tool host, and the forwarding of a proxied call to the runtime as
 * `item/tool/call`. A call is aborted when its session stops, errors or is removed: the runtime
 * then gets `notifications/cancelled {requestId}` and the proxy an error.
 */
import type { McpServerStdio } from "@agentclientprotocol/sdk";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import type { AcpSession } from "../state/session.js";
import { DYNAMIC_TOOL_ENV, DYNAMIC_TOOL_SERVER_NAME, toolResultToMcp, type ToolCallMessage, type ToolCallReply } from "./protocol.js";
import { startDynamicToolHost, type DynamicToolHost } from "./host.js";

/** The reply when no live session owns the call's thread. */
export const NO_SESSION_FOR_TOOL_CALL = "No active ACP session for dynamic tool call.";

/** Forwards one proxied call to the runtime (never rejects). */
async function forwardToolCall(rt: AcpBridgeRuntime, call: ToolCallMessage): Promise<ToolCallReply> {
  const session = rt.sessions.get(call.threadId);
  if (!session || session.phase === "stopping" || session.phase === "exited") return { ok: false, error: NO_SESSION_FOR_TOOL_CALL };
  session.translator.bindInjectedToolCall(call.tool);
  const abort = new AbortController();
  const pending = { cancel: () => abort.abort(new Error("the dynamic tool call was aborted: the session stopped")) };
  session.pending.add(pending);
  try {
    const result = await rt.ctx.io.request(
      "item/tool/call",
      { providerThreadId: session.providerThreadId, threadId: session.threadId, turnId: null, callId: call.callId, tool: call.tool, arguments: call.arguments },
      { signal: abort.signal },
    );
    return { ok: true, ...toolResultToMcp(result) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    session.pending.delete(pending);
  }
}

/** The bridge's tool host, started on first use. */
export function toolHostOf(rt: AcpBridgeRuntime): Promise<DynamicToolHost> {
  if (!rt.toolHost) rt.toolHost = startDynamicToolHost(rt.options.randomToken(), (call) => forwardToolCall(rt, call));
  return rt.toolHost;
}

/**
 * The `mcpServers` list of a session (spec 20 §2.3 step 5): `[bb-bridge]` when the thread has
 * dynamic tools, else `[]`. The entry runs the proxy with the host facts as ACP `{name, value}` env
 * pairs (plus `ELECTRON_RUN_AS_NODE` when the bridge has it).
 */
export async function mcpServersFor(rt: AcpBridgeRuntime, session: Pick<AcpSession, "threadId">, dynamicTools: unknown[] | undefined): Promise<McpServerStdio[]> {
  const tools = (dynamicTools ?? []).filter((t) => t && typeof t === "object" && typeof (t as { name?: unknown }).name === "string");
  if (tools.length === 0) return [];
  const host = await toolHostOf(rt);
  const env = [
    ...(rt.ctx.env.ELECTRON_RUN_AS_NODE !== undefined ? [{ name: "ELECTRON_RUN_AS_NODE", value: rt.ctx.env.ELECTRON_RUN_AS_NODE }] : []),
    { name: DYNAMIC_TOOL_ENV.host, value: host.host },
    { name: DYNAMIC_TOOL_ENV.port, value: String(host.port) },
    { name: DYNAMIC_TOOL_ENV.token, value: host.token },
    { name: DYNAMIC_TOOL_ENV.threadId, value: session.threadId },
    { name: DYNAMIC_TOOL_ENV.tools, value: JSON.stringify(tools) },
  ];
  return [{ name: DYNAMIC_TOOL_SERVER_NAME, command: rt.options.mcpProxy.command, args: rt.options.mcpProxy.args, env }];
}
