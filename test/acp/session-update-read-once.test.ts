/**
 * Each `session/update` is read once where it enters the bridge (`readSessionNotification`,
 * stack/acp/translate/acp-update.ts): the session's handling, the native-settings tracker and the
 * translator share that read, so the lenient schemas parse each update once, not once per reader
 * (issue 28: it was up to three times). The common shape is read by hand in front of the schemas
 * (acp-update-shape.ts): an update is read by one of them, once.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { AcpChunkUpdateSchema, AcpSessionUpdateSchema, AcpToolCallFieldsSchema } from "../../stack/acp/translate/acp-update-schemas.js";
import { acpUpdateShape } from "../../stack/acp/translate/acp-update-shape.js";
import { chunk, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await bridge?.close();
  bridge = undefined;
});

/** The arguments `schema.safeParse` was called with that are `session/update` updates (they carry `sessionUpdate`). */
function updatesParsedBy(spy: { mock: { calls: unknown[][] } }): unknown[] {
  return spy.mock.calls.map((call) => call[0]).filter((value) => value !== null && typeof value === "object" && "sessionUpdate" in value);
}

describe("a session/update is read once", () => {
  it("reads each update once (by hand, the schema never), each tool update's fields once, each chunk's content once, and translates them all", async () => {
    const sessionSpy = vi.spyOn(AcpSessionUpdateSchema, "safeParse");
    const toolSpy = vi.spyOn(AcpToolCallFieldsSchema, "safeParse");
    const chunkSpy = vi.spyOn(AcpChunkUpdateSchema, "safeParse");
    const shapeSpy = vi.spyOn(acpUpdateShape, "update");
    const blockSpy = vi.spyOn(acpUpdateShape, "contentBlock");
    bridge = startInProcessBridge();
    const updates = [
      { update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } } },
      { update: { sessionUpdate: "tool_call", toolCallId: "call_1", title: "List files", kind: "execute", status: "pending", rawInput: { command: "ls" } } },
      { update: { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed", rawOutput: { output: "a.txt\n", exitCode: 0 } } },
      chunk("Hello"),
      chunk(" world"),
      { update: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review" }] } },
    ];
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [...updates, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_a", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_a", "Go", "creq_aaaaaaaaaa"));
    await bridge.waitFor(isBoundary);

    const kinds = updates.map((step) => step.update.sessionUpdate);
    // Every update here is the common shape: read by hand once each, never by the schemas it replaces.
    expect(updatesParsedBy(shapeSpy).map((u) => (u as { sessionUpdate: string }).sessionUpdate)).toEqual(kinds);
    expect(updatesParsedBy(sessionSpy)).toEqual([]);
    expect(updatesParsedBy(toolSpy).map((u) => (u as { sessionUpdate: string }).sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
    expect(blockSpy.mock.calls.map((call) => (call[0] as { text?: string }).text)).toEqual(["thinking", "Hello", " world"]);
    expect(updatesParsedBy(chunkSpy)).toEqual([]);

    // The one read carries everything the translator needs: the turn has its text and its command.
    const deltas = bridge.deltas("thr_a");
    const text = deltas.filter((d) => d.kind === "item.textDelta" && d.channel === "agentMessage").map((d) => d.text);
    expect(text.join("")).toBe("Hello world");
    const command = deltas.find((d) => d.kind === "item.close" && d.item?.type === "command");
    expect(command).toMatchObject({ status: "completed", item: { type: "command" } });
  });
});
