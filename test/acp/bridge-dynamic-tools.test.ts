/**
 * bb dynamic tools through the `bb-bridge` MCP proxy (spec 20 §2.6): the agent (fixture) launches
 * the proxy from `mcpServers`, calls a tool, the bridge forwards it to the runtime as
 * `item/tool/call`, and the runtime's answer reaches the agent as MCP content.
 */
import { afterEach, describe, expect, it } from "vitest";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge } from "./bridge-harness.js";
import { mcpProxyMain } from "./fixture-agent-build.js";

const TOOL = {
  name: "update_environment_directory",
  description: "Move the thread to another directory.",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe("ACP bridge: bb dynamic tools", () => {
  it("sends a bb-bridge MCP server only when the thread has dynamic tools, and forwards its calls as item/tool/call", async () => {
    bridge = startInProcessBridge({ mcpProxy: { command: process.execPath, args: [mcpProxyMain()] }, randomToken: () => "t0ken" });
    const calls: any[] = [];
    bridge.onRuntimeRequest((method, params) => {
      calls.push({ method, params });
      return { success: true, contentItems: [{ type: "inputText", text: "moved to /elsewhere" }] };
    });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          steps: [
            { update: { sessionUpdate: "tool_call", toolCallId: "mcp_1", title: "MCP: update_environment_directory", kind: "other", status: "pending" } },
            { mcpCall: { tool: "update_environment_directory", arguments: { path: "/elsewhere" } } },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "mcp_1", status: "completed" } },
            { end: "end_turn" },
          ],
        },
      ],
    });
    await bridge.request("thread/start", { ...threadStartParams("thr_dt", spec, bridge.dir), dynamicTools: [TOOL] });
    await bridge.request("turn/start", turnStartParams("thr_dt", "move", "creq_dt00000000"));
    await bridge.waitFor(isBoundary);

    const newSession = agentReceived(log).find((m) => m.method === "session/new")!;
    const server = newSession.params.mcpServers[0];
    expect(server.name).toBe("bb-bridge");
    expect(server.env.map((p: any) => p.name)).toEqual(["BB_ACP_DYNAMIC_TOOL_HOST", "BB_ACP_DYNAMIC_TOOL_PORT", "BB_ACP_DYNAMIC_TOOL_TOKEN", "BB_ACP_DYNAMIC_TOOL_THREAD_ID", "BB_ACP_DYNAMIC_TOOLS"]);
    expect(server.env.find((p: any) => p.name === "BB_ACP_DYNAMIC_TOOL_TOKEN").value).toBe("t0ken");

    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe("item/tool/call");
    expect(calls[0].params).toMatchObject({ providerThreadId: "fixture-session-1", threadId: "thr_dt", turnId: null, tool: TOOL.name, arguments: { path: "/elsewhere" } });
    expect(calls[0].params.callId).toMatch(/^acp-mcp-update_environment_directory-\d+-1$/);

    const echoed = bridge.deltas("thr_dt").find((d) => d.kind === "item.textDelta" && d.text.startsWith("{"));
    expect(JSON.parse(echoed.text)).toEqual({ content: [{ type: "text", text: "moved to /elsewhere" }] });
    const open = bridge.deltas("thr_dt").find((d) => d.kind === "item.open" && d.key.providerItemId === "mcp_1");
    expect(open.item).toMatchObject({ type: "tool", tool: TOOL.name, server: "bb" });
  });

  it("sends no MCP server without dynamic tools", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {});
    await bridge.request("thread/start", threadStartParams("thr_nt", spec, bridge.dir));
    expect(agentReceived(log).find((m) => m.method === "session/new")!.params.mcpServers).toEqual([]);
  });

  it("answers the agent with an MCP error result when the runtime fails the call", async () => {
    bridge = startInProcessBridge({ mcpProxy: { command: process.execPath, args: [mcpProxyMain()] } });
    bridge.onRuntimeRequest(() => {
      throw new Error("tool exploded");
    });
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [{ mcpCall: { tool: "update_environment_directory", arguments: { path: "/x" } } }, { end: "end_turn" }] }] });
    await bridge.request("thread/start", { ...threadStartParams("thr_de", spec, bridge.dir), dynamicTools: [TOOL] });
    await bridge.request("turn/start", turnStartParams("thr_de", "move", "creq_de00000000"));
    await bridge.waitFor(isBoundary);
    const echoed = bridge.deltas("thr_de").find((d) => d.kind === "item.textDelta" && d.text.startsWith("{"));
    expect(JSON.parse(echoed.text)).toEqual({ content: [{ type: "text", text: "tool exploded" }], isError: true });
  });
});
