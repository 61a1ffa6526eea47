/**
 * Where a live bridge line is anchored (harness/replay/walk/bridge-lane.ts; issue 38): after what
 * caused it, never after the last input written when it arrived. The arrival order is the one a
 * slowed bridge gave a rerecord of acp-cursor/stop-interrupt, made up here: the runtime lines
 * caused by the agent's lines 376 and 378 arrive after the harness wrote the agent's permission
 * request (380), behind a line nothing recorded expects. Anchored by the last input written, or
 * read back assuming arrival order is anchor order, they all land after 380, and a replay of the
 * lane takes them as proof that the bridge consumed 380.
 */
import { describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import { runtimeAnchors } from "../../harness/rerecord/index.js";
import { anchorBridgeLines, narrowedAnchors } from "../../harness/replay/walk/bridge-lane.js";
import type { LiveBridgeLine } from "../../harness/replay/walk/schedule-types.js";

const RUN = 7;
const at = (seq: number) => ({ run: RUN, seq });
const input = (seq: number, dir: LaneEntry["dir"] = "provider→bridge"): LaneEntry => ({ ts: seq, run: RUN, seq, dir, line: "{}" });
const live = (line: string, anchor: number | null, met: boolean): LiveBridgeLine => ({ line, clock: 0, anchor: anchor === null ? null : at(anchor), met });

// Arrival order; `anchor` as the walk gives it: the recorded one for a met line, the last input written for another.
const arrived = [
  live("turn.open", 329, true),
  live("extension.state (new)", 380, false),
  live("textClose of 376", 376, true),
  live("unhandled of 378", 378, true),
  live("item.close after the stop", 382, true),
];

describe("live bridge lines anchored after their cause", () => {
  it("a line nothing recorded expects goes no later than the next line that met an expectation; a met line keeps the recorded anchor", () => {
    expect(narrowedAnchors(arrived).map((a) => a?.seq)).toEqual([329, 376, 376, 378, 382]);
  });

  it("no line goes before the line that arrived before it (a loose fit of an expectation left open long before)", () => {
    const lines = [live("a", 24, true), live("b (stale expectation)", 17, true), live("c", 34, true)];
    expect(narrowedAnchors(lines).map((a) => a?.seq)).toEqual([24, 24, 34]);
  });

  it("the lane keeps 378's outputs before 380, and the current lane reads each anchor back per entry", () => {
    const lane = anchorBridgeLines(input(300), arrived);
    const seqs = lane.map((e) => e.seq);
    expect(seqs.filter((s) => s > 380 && s < 382)).toEqual([]);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const inputs = [input(300, "runtime→bridge"), input(329, "runtime→bridge"), input(376), input(378), input(380), input(382, "runtime→bridge")];
    expect(runtimeAnchors(lane, inputs).map((e) => e?.seq)).toEqual([329, 376, 376, 378, 382]);
  });

  it("runtimeAnchors finds each entry's anchor on its own: the live lane need not be sorted", () => {
    const inputs = [input(3), input(9), input(12)];
    const unsorted = [9.5, 3.5, 12.5, 9.2].map((seq) => ({ ...input(seq), dir: "bridge→runtime" as const }));
    expect(runtimeAnchors(unsorted, inputs).map((e) => e?.seq)).toEqual([9, 3, 12, 9]);
  });
});
