/**
 * Agent-initiated turns (spec 30 §6.2): turn output while idle opens a turn that ends after a quiet
 * period; a steer prompts inside it; a runtime turn finishes it first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, chunk } from "./bridge-harness.js";

const note = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "background note" } };
const boundaries = (b: InProcessBridge, threadId: string) => b.deltas(threadId).filter((d) => d.kind === "turn.boundary");
const isNthBoundary = (b: InProcessBridge, threadId: string, n: number) => () => boundaries(b, threadId).length >= n;

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

async function until(b: InProcessBridge, condition: () => boolean): Promise<void> {
  if (condition()) return;
  await b.waitFor(() => condition());
}

describe("ACP bridge: agent-initiated turns", () => {
  it("output after the turn ended opens an agent turn that ends end_turn when the agent goes quiet", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ agentTurnQuietMs: 50, scheduler: clock });
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [chunk("done"), { end: "end_turn", after: [note] }] }] });
    await bridge.request("thread/start", threadStartParams("thr_ag", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_ag", "go", "creq_ag00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.text === "background note"));
    // Not quiet long enough yet: the agent turn is open until the quiet period passes on the clock.
    expect(boundaries(bridge, "thr_ag")).toHaveLength(1);
    await clock.whenPending((t) => t.delayMs === 50);
    clock.advance(49);
    expect(boundaries(bridge, "thr_ag")).toHaveLength(1);
    clock.advance(1);
    await until(bridge, isNthBoundary(bridge, "thr_ag", 2));
    const kinds = bridge.deltas("thr_ag").map((d) => d.kind);
    const firstBoundary = kinds.indexOf("turn.boundary");
    expect(kinds.slice(firstBoundary + 1)).toContain("turn.open");
    const agentOpen = kinds.indexOf("turn.open", firstBoundary);
    const agentText = bridge
      .deltas("thr_ag")
      .slice(agentOpen)
      .find((d) => d.kind === "item.textDelta");
    expect(agentText.text).toBe("background note");
    expect(boundaries(bridge, "thr_ag").map((d) => d.status)).toEqual(["completed", "completed"]);
  });

  it("a steer during an agent turn prompts inside it: no second turn.open, the steer is accepted", async () => {
    bridge = startInProcessBridge({ agentTurnQuietMs: 60_000 });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "first", steps: [chunk("done"), { end: "end_turn", after: [note] }] },
        { when: "follow", steps: [chunk("following up"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_as", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_as", "first", "creq_as00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.text === "background note"));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_as", "follow up", "creq_as00000001"));
    expect(steer.result).toEqual({ threadId: "thr_as" });
    await until(bridge, isNthBoundary(bridge, "thr_as", 2));
    const deltas = bridge.deltas("thr_as");
    expect(deltas.filter((d) => d.kind === "turn.open")).toHaveLength(2);
    expect(deltas.filter((d) => d.kind === "input.accepted").map((d) => d.clientRequestId)).toEqual(["creq_as00000000", "creq_as00000001"]);
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(2);
  });

  it("turn/start finishes an open agent turn before its own turn.open", async () => {
    bridge = startInProcessBridge({ agentTurnQuietMs: 60_000 });
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "first", steps: [chunk("done"), { end: "end_turn", after: [note] }] },
        { when: "second", steps: [chunk("two"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_at", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_at", "first", "creq_at00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.text === "background note"));
    const started = await bridge.request("turn/start", turnStartParams("thr_at", "second", "creq_at00000001"));
    expect(started.result).toEqual({ threadId: "thr_at" });
    await until(bridge, isNthBoundary(bridge, "thr_at", 3));
    const kinds = bridge
      .deltas("thr_at")
      .map((d) => d.kind)
      .filter((k) => k === "turn.open" || k === "turn.boundary");
    expect(kinds).toEqual(["turn.open", "turn.boundary", "turn.open", "turn.boundary", "turn.open", "turn.boundary"]);
  });
});
