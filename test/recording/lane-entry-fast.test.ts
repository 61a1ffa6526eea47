import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commonLaneEntry, CURRENT_BRIDGE_LANE_FILE, LANE_DIRECTIONS, LaneEntrySchema, laneFileName, type Direction } from "../../harness/recording/lane-entry.js";
import { sharedInputPresent } from "../helpers/shared-input.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const sharedRecordings = path.resolve(repoRoot, "../shared/recordings");

/** Every lane file under `root` with the lane its name says it holds. */
function laneFiles(root: string): Array<{ file: string; direction: Direction }> {
  const byName = new Map<string, Direction>(LANE_DIRECTIONS.map((d) => [laneFileName(d), d]));
  byName.set(CURRENT_BRIDGE_LANE_FILE, "bridge→runtime");
  const out: Array<{ file: string; direction: Direction }> = [];
  for (const name of readdirSync(root, { recursive: true, encoding: "utf8" })) {
    const direction = byName.get(path.basename(name));
    if (direction !== undefined) out.push({ file: path.join(root, name), direction });
  }
  return out;
}

/** What the schema makes of `value` as an entry of `expected`: the entry, or undefined when refused. */
function bySchema(value: unknown, expected: Direction): unknown {
  const parsed = LaneEntrySchema.safeParse(value);
  return parsed.success && parsed.data.dir === expected ? parsed.data : undefined;
}

/** Asserts the hand check and the schema accept the same values with the same bytes. */
function expectSameAsSchema(value: Record<string, unknown>, expected: Direction): void {
  const fast = commonLaneEntry(value, expected);
  const schema = bySchema(value, expected);
  expect(fast === undefined).toBe(schema === undefined);
  if (fast !== undefined) {
    expect(fast).toEqual(schema);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(schema));
  }
}

function realLines(root: string): Array<{ value: Record<string, unknown>; direction: Direction }> {
  return laneFiles(root).flatMap(({ file, direction }) =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter((text) => text !== "")
      .map((text) => ({ value: JSON.parse(text) as Record<string, unknown>, direction })),
  );
}

describe("commonLaneEntry, the hand check parseLaneEntry tries before the schema", () => {
  it("accepts every line of every committed recording, with the schema's entry, key for key", () => {
    const lines = realLines(path.join(repoRoot, "recordings"));
    expect(lines.length).toBeGreaterThan(1000);
    for (const { value, direction } of lines) {
      expect(commonLaneEntry(value, direction)).toBeDefined();
      expectSameAsSchema(value, direction);
      // The same line in another lane is refused by both.
      expectSameAsSchema(value, direction === "runtime→bridge" ? "bridge→runtime" : "runtime→bridge");
    }
  });

  it.runIf(sharedInputPresent(sharedRecordings))("accepts every line of the real recordings under ../shared, as the schema does", () => {
    const lines = realLines(sharedRecordings);
    expect(lines.length).toBeGreaterThan(100);
    for (const { value, direction } of lines) {
      expect(commonLaneEntry(value, direction)).toBeDefined();
      expectSameAsSchema(value, direction);
    }
  });

  const good = { ts: 1764680000000, run: 1764679999000, seq: 7, dir: "runtime→bridge", line: '{"jsonrpc":"2.0"}' };
  const { run: _run, ...withoutRun } = good;
  const { ts: _ts, ...withoutTs } = good;
  const { seq: _seq, ...withoutSeq } = good;
  const { line: _line, ...withoutLine } = good;
  const { dir: _dir, ...withoutDir } = good;
  it.each<[string, Record<string, unknown>]>([
    ["a whole entry", good],
    ["no run (read as 0)", withoutRun],
    ["unknown keys (dropped)", { extra: true, ...good, more: [1] }],
    ["keys in another order", { line: good.line, dir: good.dir, seq: good.seq, run: good.run, ts: good.ts }],
    ["a fractional seq", { ...good, seq: 7.5 }],
    ["negative zero and huge numbers", { ...good, ts: -0, seq: 1e308, run: -1 }],
    ["an own __proto__ key", JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(good).slice(1)}`) as Record<string, unknown>],
    ["no ts", withoutTs],
    ["no seq", withoutSeq],
    ["no line", withoutLine],
    ["no dir", withoutDir],
    ["ts as a string", { ...good, ts: "1" }],
    ["ts null", { ...good, ts: null }],
    ["ts infinite", { ...good, ts: Infinity }],
    ["seq NaN", { ...good, seq: NaN }],
    ["seq as a string", { ...good, seq: "7" }],
    ["run null", { ...good, run: null }],
    ["run as a string", { ...good, run: "1" }],
    ["run infinite", { ...good, run: -Infinity }],
    ["line a number", { ...good, line: 5 }],
    ["line null", { ...good, line: null }],
    ["dir of another lane", { ...good, dir: "bridge→runtime" }],
    ["dir unknown", { ...good, dir: "sideways" }],
    ["dir not a string", { ...good, dir: 1 }],
    ["nothing", {}],
  ])("agrees with the schema on %s", (_name, value) => {
    expectSameAsSchema(value, "runtime→bridge");
  });
});
