import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildThreadLane } from "../../harness/lanes/index.js";
import { readRecording } from "../../harness/recording/reader.js";
import { buildReplayPlan } from "../../harness/replay/plan/plan.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { CURSOR_THREAD_CELLS, cursorRecordings, isAlive } from "./helpers.js";

const countOf = (events: readonly unknown[], type: string): number => events.filter((e) => (e as { type?: unknown }).type === type).length;

describe("the real acp-cursor recordings replay through our ACP bridge (spec 10 §5; docs/design/00-product.md flow 2)", () => {
  it("cuts the provider lanes into one segment per agent process", async () => {
    const segments: Record<string, number> = {};
    for (const cell of CURSOR_THREAD_CELLS) {
      segments[cell] = buildReplayPlan(await readRecording(path.join(cursorRecordings, cell))).segments;
    }
    // resume and stop-interrupt restart the agent for the resumed session.
    expect(segments).toEqual({ "approval-allow": 1, "approval-deny": 1, fork: 1, resume: 2, "stop-interrupt": 2, subagent: 1, "turn-tools": 1 });
  });

  for (const cell of CURSOR_THREAD_CELLS) {
    it(`${cell}: every recorded output is met, turns match the recording's own lane, no process is left`, async () => {
      const recording = await readRecording(path.join(cursorRecordings, cell));
      const result = await replayRecording(recording);
      expect(result.divergences).toEqual([]);
      expect(result.expectationsMet).toBe(result.expectationsTotal);
      // The only notes are the newer bridge's extra session-option/command extension deltas
      // (spec 30), which the lane comparison judges.
      for (const n of result.notes) expect(n.message).toMatch(/^extra bridge→runtime notification thread\/delta \[extension\.state\]/);
      const own = buildThreadLane(recording);
      for (const type of ["turn/started", "turn/completed", "item/started"]) {
        expect(countOf(result.lane.events, type), type).toBe(countOf(own.events, type));
      }
      expect(result.pids.filter(isAlive)).toEqual([]);
    });
  }

  it("resume replays the same with the Node replay child as the agent process (where no relay can run)", async () => {
    const recording = await readRecording(path.join(cursorRecordings, "resume"));
    const relayed = await replayRecording(recording);
    const node = await replayRecording(recording, { agentProcess: "node" });
    expect(node.divergences).toEqual([]);
    expect(node.expectationsMet).toBe(node.expectationsTotal);
    expect(node.lane.events).toEqual(relayed.lane.events);
    expect(node.pids.filter(isAlive)).toEqual([]);
  });
});
