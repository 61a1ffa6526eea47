import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import { listRecordings, readRecording } from "../../harness/recording/reader.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { isAlive, repoRoot } from "./helpers.js";

const echoCells = (await listRecordings([path.join(repoRoot, "recordings")])).filter((l) => l.provider === "echo");

describe("replaying the committed echo recordings (spec 10 §5; docs/design/00-product.md flow 2)", () => {
  it("finds the echo recordings this project committed", () => {
    expect(echoCells.map((c) => c.cell).sort()).toEqual(expect.arrayContaining(["resume", "stop-interrupt", "turn", "zero-work"]));
  });

  for (const location of echoCells) {
    it(`${location.cell}: meets every recorded output, reproduces the recording's own thread lane, leaves no process`, async () => {
      const recording = await readRecording(location.dir);
      const result = await replayRecording(recording);
      expect(result.divergences).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.expectationsMet).toBe(result.expectationsTotal);
      expect(result.expectationsTotal).toBe(recording.manifest.lines["bridge→runtime"]);
      expect(result.exit).toEqual({ code: 0, signal: null });

      const own = buildThreadLane(recording);
      const live = serializeThreadLane(normalizeThreadLane(result.lane.events));
      expect(live).toBe(serializeThreadLane(normalizeThreadLane(own.events)));
      expect(result.lane.unhandled).toBe(own.unhandled);
      expect(result.lane.grammarDrops).toEqual(own.grammarDrops);

      const oracle = path.join(repoRoot, "lanes", "echo", `${location.cell}.json`);
      if (existsSync(oracle)) expect(JSON.parse(live)).toEqual(JSON.parse(await readFile(oracle, "utf8")));
      expect(result.pids.length).toBeGreaterThan(0);
      expect(result.pids.filter(isAlive)).toEqual([]);
    });
  }
});

describe("streamed replay of a recording directory", () => {
  it("gives the same lane, bridge lane and outcome as the in-memory plan", async () => {
    const dir = path.join(repoRoot, "recordings", "echo", "stop-interrupt");
    const streamed = await replayRecording(dir);
    const loaded = await replayRecording(await readRecording(dir));
    expect(streamed.divergences).toEqual([]);
    expect(streamed.expectationsTotal).toBe(loaded.expectationsTotal);
    expect(streamed.expectationsMet).toBe(loaded.expectationsMet);
    expect(serializeThreadLane(normalizeThreadLane(streamed.lane.events))).toBe(serializeThreadLane(normalizeThreadLane(loaded.lane.events)));
    expect(streamed.bridgeLane.map((e) => [e.ts, e.run, e.seq])).toEqual(loaded.bridgeLane.map((e) => [e.ts, e.run, e.seq]));
  });
});

describe("a replay's live lane streamed to a sink (laneEvents)", () => {
  it("hands every event to the cell's sink as it is assembled, keeps none in the result, and keeps the counts", async () => {
    const dir = path.join(repoRoot, "recordings", "echo", "turn");
    const kept = await replayRecording(dir);
    const opened: string[] = [];
    const sunk: unknown[] = [];
    const streamed = await replayRecording(dir, {
      laneEvents: (recordingDir) => {
        opened.push(recordingDir);
        return (event) => sunk.push(event);
      },
    });
    expect(opened).toEqual([dir]);
    expect(streamed.lane.events).toEqual([]);
    expect(kept.lane.events.length).toBeGreaterThan(5);
    expect(sunk).toEqual(kept.lane.events);
    expect(streamed.lane.unhandled).toBe(kept.lane.unhandled);
    expect(streamed.lane.grammarDrops).toEqual(kept.lane.grammarDrops);
  });
});
