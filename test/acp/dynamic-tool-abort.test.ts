/**
 * Dynamic tool calls are aborted when their turn ends (spec 30 §6.2): the bridge tells the
 * runtime with `notifications/cancelled {requestId}` for the `item/tool/call` it is still waiting
 * on, and the stop still settles the turn before its reply.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge } from "./bridge-harness.js";
import { mcpProxyMain } from "./fixture-agent-build.js";

const TOOL = { name: "slow_tool", description: "Never answers in this test.", inputSchema: { type: "object", properties: {} } };

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe("dynamic tool call abort (spec 30 §6.2)", () => {
  it("a turn interrupted while the runtime still owes a tool answer: notifications/cancelled for that request, boundary before the stop reply", async () => {
    bridge = startInProcessBridge({ mcpProxy: { command: process.execPath, args: [mcpProxyMain()] }, randomToken: () => "t0ken" });
    bridge.onRuntimeRequest(() => new Promise(() => undefined));
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          steps: [
            { update: { sessionUpdate: "tool_call", toolCallId: "mcp_slow", title: "MCP: slow_tool", kind: "other", status: "pending" } },
            { mcpCall: { tool: "slow_tool", arguments: {} } },
            { end: "end_turn" },
          ],
        },
      ],
    });
    await bridge.request("thread/start", { ...threadStartParams("thr_abort", spec, bridge.dir), dynamicTools: [TOOL] });
    await bridge.request("turn/start", turnStartParams("thr_abort", "go", "creq_abort00000"));
    const call = await bridge.waitFor((m) => m.method === "item/tool/call");
    expect(call.params).toMatchObject({ threadId: "thr_abort", tool: "slow_tool" });
    const stop = await bridge.request("thread/stop", { threadId: "thr_abort", intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
    const cancelled = await bridge.waitFor((m) => m.method === "notifications/cancelled");
    expect(cancelled.params).toEqual({ requestId: call.id });
    expect(bridge.out.findIndex(isBoundary)).toBeLessThan(bridge.out.indexOf(stop));
    expect(
      bridge
        .deltas("thr_abort")
        .filter((d) => d.kind === "turn.boundary")
        .map((d) => d.status),
    ).toEqual(["interrupted"]);
  });
});
