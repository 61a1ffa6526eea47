import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventSpill } from "../../harness/lanes/event-spill.js";
import { buildThreadLane, createLaneNormalizer, normalizeThreadLane, streamThreadLane } from "../../harness/lanes/index.js";
import { listRecordings, readRecording } from "../../harness/recording/reader.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "parity-streaming-test-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe("streamed thread lanes", () => {
  it("streamThreadLane gives buildThreadLane's events and counts for every committed recording, current lanes included", async () => {
    const locations = await listRecordings([path.join(repoRoot, "recordings")]);
    expect(locations.some((l) => l.dir.endsWith(path.join("acp-gemini", "turn-tools")))).toBe(true);
    for (const location of locations) {
      const recording = await readRecording(location.dir);
      const built = buildThreadLane(recording);
      const streamed = streamThreadLane(location.dir, recording.manifest);
      const events = await collect(streamed.events);
      expect(events, location.dir).toEqual(built.events);
      const { events: kept, ...counts } = streamed.result();
      expect(kept).toEqual([]);
      const { events: _events, scope: _scope, ...builtCounts } = built;
      expect(counts, location.dir).toEqual(builtCounts);
    }
  });

  it("createLaneNormalizer fed one event at a time gives normalizeThreadLane's lane", async () => {
    const recording = await readRecording(path.join(repoRoot, "recordings/acp-gemini/turn-tools"));
    const events = buildThreadLane(recording).events;
    expect(events.length).toBeGreaterThan(10);
    const normalize = createLaneNormalizer();
    const streamed = events.map((event) => normalize(event));
    expect(JSON.stringify(streamed)).toBe(JSON.stringify(normalizeThreadLane(events)));
    // What JSON cannot hold reads as null, as inside a whole-lane round trip.
    expect(normalizeThreadLane([undefined, { a: undefined, turnId: "t" }])).toEqual([null, { turnId: "#1" }]);
  });
});

describe("event spill", () => {
  it("gives back what was pushed, in order, as often as read; refuses a push after close and a read before", async () => {
    const spill = createEventSpill(path.join(scratch, "lane.ndjson"));
    const events = [{ type: "a", text: "line\nbreak\u2028" }, { type: "b", n: 2 }, null];
    for (const event of events) spill.push(event);
    await expect(collect(spill.events())).rejects.toThrow(/still being written/);
    spill.close();
    spill.close();
    expect(spill.count).toBe(3);
    expect(await collect(spill.events())).toEqual(events);
    expect(await collect(spill.events())).toEqual(events);
    expect(() => spill.push({})).toThrow(/closed/);
  });
});
