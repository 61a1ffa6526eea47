import path from "node:path";
import { describe, expect, it } from "vitest";
import { assembleBridgeLines, buildThreadLane, createThreadLaneBuilder } from "../../harness/lanes/index.js";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import { readRecording } from "../../harness/recording/reader.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const recordingsRoot = path.resolve(repoRoot, "../shared/recordings/acp-cursor");

let seq = 0;
const entry = (dir: LaneEntry["dir"], message: object, ts = 1000): LaneEntry => ({ ts, run: 1, seq: ++seq, dir, line: JSON.stringify(message) });
const deltas = (threadId: string, list: object[], ts?: number) =>
  entry("bridge→runtime", { jsonrpc: "2.0", method: "thread/delta", params: { threadId, deltas: list } }, ts);
const stop = (threadId: string, intent: string) =>
  entry("runtime→bridge", { jsonrpc: "2.0", id: 9, method: "thread/stop", params: { threadId, intent } });

describe("thread lane builder", () => {
  it("feeding the merged entries one by one gives the same lane as buildThreadLane", async () => {
    const recording = await readRecording(path.join(recordingsRoot, "stop-interrupt"));
    const builder = createThreadLaneBuilder({ providerId: recording.manifest.provider });
    let fed = 0;
    for (const laneEntry of recording.merged()) fed += builder.feed(laneEntry).length;
    const lane = buildThreadLane(recording);
    expect(fed).toBe(lane.events.length);
    expect(builder.result().events).toEqual(lane.events);
    expect(lane.events.every((event) => event.threadId === recording.manifest.threadId)).toBe(true);
  });

  it("raw lines fed with feedBridgeLine/feedRuntimeLine give the same lane as the entries", async () => {
    const recording = await readRecording(path.join(recordingsRoot, "resume"));
    const builder = createThreadLaneBuilder({ providerId: recording.manifest.provider });
    for (const laneEntry of recording.merged()) {
      if (laneEntry.dir === "bridge→runtime") builder.feedBridgeLine(laneEntry.line, laneEntry.ts);
      else if (laneEntry.dir === "runtime→bridge") builder.feedRuntimeLine(laneEntry.line);
    }
    const lane = buildThreadLane(recording);
    expect(lane.events).toHaveLength(21);
    expect(builder.result().events).toEqual(lane.events);
  });

  it("useCurrent:false assembles the recorded (grammar v2) bridge lane, whose v2 batches are reported invalid", async () => {
    const recording = await readRecording(path.join(recordingsRoot, "resume"));
    const recorded = buildThreadLane(recording, { useCurrent: false });
    const current = buildThreadLane(recording);
    expect(current.invalidDeltas).toEqual([]);
    expect(recorded.invalidDeltas.length).toBeGreaterThan(0);
    expect(recorded.invalidDeltas[0]!.message).toMatch(/^Invalid thread\/delta notification: deltas\.\d+/);
    expect(recorded.events.length).toBeLessThan(current.events.length);
  });

  it("a release stop clears the grammar's thread state; other stops do not", () => {
    const replayed = (intent: string) =>
      assembleBridgeLines(
        [
          deltas("t", [{ kind: "turn.open", providerTurnId: "p" }]),
          stop("t", intent),
          deltas("t", [{ kind: "turn.open", providerTurnId: "p" }]),
        ],
        { providerId: "x" },
      );
    expect(replayed("release").grammarDrops).toEqual([]);
    expect(replayed("release").events).toHaveLength(2);
    expect(replayed("interrupt").grammarDrops.map((drop) => `${drop.rule}:${drop.eventType}`)).toEqual(["turn/starts-once:turn/started"]);
  });

  it("the clock is each entry's ts: progress inside 500 ms of the open is held, later traffic flushes it", () => {
    const key = { providerItemId: "a" };
    const lane = (gapMs: number) =>
      assembleBridgeLines(
        [
          deltas("t", [{ kind: "turn.open" }, { kind: "item.open", key, item: { type: "tool", tool: "x" } }], 1000),
          deltas("t", [{ kind: "item.progress", key, message: "m" }], 1000 + gapMs),
          deltas("t", [{ kind: "turn.open" }], 1000 + gapMs + 600),
        ],
        { providerId: "x" },
      ).events.map((event) => event.type);
    expect(lane(100)).toEqual(["turn/started", "item/started", "item/toolCall/progress"]);
    expect(lane(600)).toEqual(["turn/started", "item/started", "item/toolCall/progress"]);
    const held = assembleBridgeLines(
      [
        deltas("t", [{ kind: "turn.open" }, { kind: "item.open", key, item: { type: "tool", tool: "x" } }], 1000),
        deltas("t", [{ kind: "item.progress", key, message: "m" }], 1100),
        deltas("t", [{ kind: "item.close", key, status: "completed", item: { type: "tool", tool: "x" } }], 1200),
      ],
      { providerId: "x" },
    );
    expect(held.events.map((event) => event.type)).toEqual(["turn/started", "item/started", "item/completed"]);
  });

  it("an invalid batch is reported and skipped; non-JSON and other lines are ignored", () => {
    const result = assembleBridgeLines(
      [
        { ts: 1, run: 1, seq: 1, dir: "bridge→runtime", line: "not json" },
        entry("provider→bridge", { jsonrpc: "2.0", method: "session/update" }),
        deltas("t", [{ kind: "turn.open" }, { kind: "bogus" }]),
        deltas("t", [{ kind: "unhandled", raw: { jsonrpc: "2.0", method: "m" }, rawType: "m", vouchedTurn: false }]),
      ],
      { providerId: "prov" },
    );
    expect(result.invalidDeltas).toHaveLength(1);
    expect(result.invalidDeltas[0]!.message).toMatch(/^Invalid thread\/delta notification: deltas\.1\.kind/);
    expect(result.events.map((event) => event.type)).toEqual(["provider/unhandled"]);
    expect(result.unhandled).toBe(1);
  });
});
