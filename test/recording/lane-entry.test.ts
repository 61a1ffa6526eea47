import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../harness/errors.js";
import { CURRENT_BRIDGE_LANE_FILE, excerpt, MAX_ERROR_EXCERPT_CHARS, parseLaneEntry } from "../../harness/recording/lane-entry.js";
import { readRecording } from "../../harness/recording/reader.js";
import { validEntries, writeRecording } from "./fixture.js";

const where = { file: "runtime→bridge.ndjson", line: 3 };

describe("parseLaneEntry", () => {
  it("reads an entry without run as run 0 and drops unknown keys", () => {
    const entry = parseLaneEntry('{"ts":5,"seq":2,"dir":"runtime→bridge","line":"{}","extra":true}', "runtime→bridge", where);
    expect(entry).toEqual({ ts: 5, run: 0, seq: 2, dir: "runtime→bridge", line: "{}" });
  });

  it("accepts a fractional seq (current lanes anchor between recorded seqs)", () => {
    expect(parseLaneEntry('{"ts":5,"run":1,"seq":2.5,"dir":"bridge→runtime","line":""}', "bridge→runtime", where).seq).toBe(2.5);
  });

  it.each([
    ['{"ts":5,"seq":2,"dir":"runtime→bridge"}', /field `line`/],
    ['{"ts":"5","seq":2,"dir":"runtime→bridge","line":""}', /field `ts`/],
    ['{"ts":5,"seq":2,"dir":"sideways","line":""}', /field `dir`/],
    ["[1,2]", /must be a JSON object/],
    ["null", /must be a JSON object/],
  ])("refuses %s", (text, problem) => {
    const error = (() => {
      try {
        parseLaneEntry(text, "runtime→bridge", where);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(new RegExp(`^runtime→bridge\\.ndjson:3: .*${problem.source}`));
  });
});

describe("excerpt", () => {
  it("quotes short text whole and caps long text, on one line", () => {
    expect(excerpt('a\nb"')).toBe('"a\\nb\\""');
    const long = excerpt("y".repeat(5000));
    expect(long).toBe(`"${"y".repeat(MAX_ERROR_EXCERPT_CHARS)}…" (5000 chars)`);
  });
});

describe("current bridge lane seq checks", () => {
  it("may reuse the recorded bridge lane's seqs, but not an input lane's", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "parity-current-"));
    try {
      const dir = await writeRecording(work, "fixture", "cell");
      const bridge = validEntries()["bridge→runtime"][0]!;
      // Same seq as the recorded bridge line it replaces: fine.
      await writeFile(path.join(dir, CURRENT_BRIDGE_LANE_FILE), `${JSON.stringify(bridge)}\n`);
      const recording = await readRecording(dir);
      expect(recording.currentBridgeLane).toEqual([bridge]);
      expect(recording.merged().map((e) => e.seq)).toEqual([1, 2, 3, 4]);

      // seq 1 belongs to the runtime→bridge lane: a duplicate.
      await writeFile(path.join(dir, CURRENT_BRIDGE_LANE_FILE), `${JSON.stringify({ ...bridge, seq: 1 })}\n`);
      await expect(readRecording(dir)).rejects.toThrow(new RegExp(`${CURRENT_BRIDGE_LANE_FILE}:1: duplicate seq 1 in run 1: already used at .*runtime→bridge\\.ndjson:1$`));

      // Same seq in another run is a different process: fine.
      await writeFile(path.join(dir, CURRENT_BRIDGE_LANE_FILE), `${JSON.stringify({ ...bridge, seq: 1, run: 2 })}\n`);
      expect((await readRecording(dir)).merged().map((e) => `${e.run}:${e.seq}`)).toEqual(["1:1", "1:2", "1:3", "2:1"]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

describe("readRecording size bound", () => {
  it("refuses a lane file over maxLaneFileBytes before reading it", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "parity-size-"));
    try {
      const dir = await writeRecording(work, "fixture", "cell");
      // Lanes are read in LANE_DIRECTIONS order, so the first one named is runtime→bridge.
      const file = path.join(dir, "runtime→bridge.ndjson");
      const error = await readRecording(dir, { maxLaneFileBytes: 20 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).file).toBe(file);
      expect((error as InputError).problem).toMatch(/^lane file is \d+ bytes; more than the 20-byte limit/);
      expect((await readRecording(dir, { maxLaneFileBytes: 4096 })).merged()).toHaveLength(4);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
