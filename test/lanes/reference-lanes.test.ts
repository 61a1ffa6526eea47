import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import { readRecording } from "../../harness/recording/reader.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const recordingsRoot = path.resolve(repoRoot, "../shared/recordings/acp-cursor");
const referenceRoot = path.resolve(repoRoot, "../shared/reference-lanes/acp-cursor");

/** The reference's counts after the host grammar (docs/design/00-product.md, Real input): events/unhandled/grammarDrops. */
const PINS: Record<string, [number, number, number]> = {
  "approval-allow": [31, 0, 0],
  "approval-deny": [29, 0, 0],
  fork: [0, 0, 0],
  resume: [21, 0, 0],
  "stop-interrupt": [39, 0, 0],
  subagent: [50, 0, 0],
  "turn-tools": [98, 0, 1],
};

describe("thread lanes of the real acp-cursor recordings (current lane)", () => {
  for (const [cell, [events, unhandled, drops]] of Object.entries(PINS)) {
    it(`${cell}: counts ${events}/${unhandled}/${drops} and equals the reference lane`, async () => {
      const recording = await readRecording(path.join(recordingsRoot, cell));
      const lane = buildThreadLane(recording);
      expect(lane.scope).toBe("thread");
      expect(lane.invalidDeltas).toEqual([]);
      expect([lane.events.length, lane.unhandled, lane.grammarDrops.length]).toEqual([events, unhandled, drops]);
      const reference = JSON.parse(await readFile(path.join(referenceRoot, `${cell}.events.json`), "utf8")) as unknown;
      expect(normalizeThreadLane(lane.events)).toEqual(reference);
    });
  }

  it("turn-tools: the one drop is the dual-settle second completion (item/settles-once)", async () => {
    const lane = buildThreadLane(await readRecording(path.join(recordingsRoot, "turn-tools")));
    expect(lane.grammarDrops.map((drop) => `${drop.rule}:${drop.eventType}`)).toEqual(["item/settles-once:item/completed"]);
  });

  it("model-list is process-scoped and has no lane", async () => {
    const lane = buildThreadLane(await readRecording(path.join(recordingsRoot, "model-list")));
    expect(lane.scope).toBe("process");
    expect(lane.events).toEqual([]);
  });

  it("assembling the same recording twice gives byte-identical serialized lanes", async () => {
    for (const cell of ["turn-tools", "stop-interrupt"]) {
      const dir = path.join(recordingsRoot, cell);
      const first = serializeThreadLane(normalizeThreadLane(buildThreadLane(await readRecording(dir)).events));
      const second = serializeThreadLane(normalizeThreadLane(buildThreadLane(await readRecording(dir)).events));
      expect(second).toBe(first);
      expect(first.endsWith("]\n")).toBe(true);
      // Raw (unnormalized) events are deterministic too: the clock is each entry's ts and the id prefix is fixed.
      expect(JSON.stringify(buildThreadLane(await readRecording(dir)).events)).toBe(
        JSON.stringify(buildThreadLane(await readRecording(dir)).events),
      );
    }
  });
});
