import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildThreadLane, createLaneNormalizer, EVENT_ID_FIELDS, normalizeThreadLane, ROW_ID_FIELDS, serializeThreadLane, TIME_FIELDS } from "../../harness/lanes/index.js";
import { isPlainJson } from "../../harness/lanes/normalize.js";
import { readRecording } from "../../harness/recording/reader.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");

/**
 * The normalizer as it was before plain data skipped the JSON round trip (spec 10 §6.3 steps
 * 1–5, round trip first for every element): the reference the faster one must equal byte for byte.
 */
function roundTripNormalizer(idFieldList: readonly string[] = EVENT_ID_FIELDS): (input: unknown) => unknown {
  const idFields = new Set(idFieldList);
  const timeFields = new Set(TIME_FIELDS);
  const interned = new Map<string, string>();
  const intern = (value: string | number): string => {
    const key = `${typeof value}:${value}`;
    let id = interned.get(key);
    if (id === undefined) {
      id = `#${interned.size + 1}`;
      interned.set(key, id);
    }
    return id;
  };
  const walk = (value: unknown, parentKey: string | undefined): unknown => {
    if (Array.isArray(value)) return value.map((element) => walk(element, undefined));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === "providerCheckpointId") continue;
      if (idFields.has(key) && typeof child === "string") out[key] = intern(child);
      else if (key === "id" && parentKey === "rawEvent" && typeof child === "number") out[key] = intern(child);
      else if (timeFields.has(key) && (typeof child === "number" || typeof child === "string")) out[key] = 0;
      else out[key] = walk(child, key);
    }
    return out;
  };
  return (input) => {
    const text = JSON.stringify(input) as string | undefined;
    const element = (text === undefined ? null : JSON.parse(text)) as unknown;
    if (element !== null && typeof element === "object" && !Array.isArray(element)) {
      const record = element as Record<string, unknown>;
      for (const key of ["threadId", "providerThreadId"]) {
        if (key in record && record[key] !== null) record[key] = "";
      }
    }
    return walk(element, undefined);
  };
}

/** Both normalizers over `list`, serialized as a lane is written. */
function bothWays(list: readonly unknown[], idFields?: readonly string[]): [string, string] {
  const reference = roundTripNormalizer(idFields);
  const fast = createLaneNormalizer(idFields === undefined ? {} : { idFields });
  return [serializeThreadLane(list.map((e) => fast(e))), serializeThreadLane(list.map((e) => reference(e)))];
}

/** `[first, <hole>, last]`: an array JSON writes with a null where the hole is. */
function withHole(first: unknown, last: unknown): unknown[] {
  const array: unknown[] = [first];
  array[2] = last;
  return array;
}

class Stamped {
  constructor(readonly at: number) {}
  toJSON(): string {
    return `stamp ${this.at}`;
  }
}

describe("isPlainJson: data a JSON round trip returns unchanged", () => {
  it.each<[string, unknown]>([
    ["null", null],
    ["a string", "x"],
    ["a number", 1.5],
    ["a boolean", false],
    ["nested plain data", { a: [1, { b: null, c: "d" }], e: { f: true } }],
    ["an object without prototype", Object.assign(Object.create(null) as object, { a: 1 })],
  ])("accepts %s", (_name, value) => {
    expect(isPlainJson(value)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["undefined", undefined],
    ["an undefined field", { a: undefined }],
    ["a hole in an array", withHole(1, 3)],
    ["undefined in an array", [1, undefined]],
    ["negative zero", { a: -0 }],
    ["NaN", { a: NaN }],
    ["Infinity", [Infinity]],
    ["a Date", { at: new Date(0) }],
    ["an object with toJSON", { a: { toJSON: () => 1 } }],
    ["a class instance", { a: new Stamped(1) }],
    ["a Map", new Map()],
    ["a function", { f: () => 1 }],
    ["a symbol", { s: Symbol("s") }],
    ["a bigint", { n: 1n }],
  ])("refuses %s", (_name, value) => {
    expect(isPlainJson(value)).toBe(false);
  });
});

describe("the lane normalizer without the round trip for plain data", () => {
  it("gives the round trip's bytes for every committed recording's thread lane, which is plain data", async () => {
    const root = path.join(repoRoot, "recordings");
    let lanes = 0;
    for (const provider of readdirSync(root)) {
      for (const cell of readdirSync(path.join(root, provider))) {
        const lane = buildThreadLane(await readRecording(path.join(root, provider, cell)));
        if (lane.events.length === 0) continue;
        lanes += 1;
        expect(lane.events.every((event) => isPlainJson(event))).toBe(true);
        const [fast, reference] = bothWays(lane.events);
        expect(fast).toBe(reference);
        expect(serializeThreadLane(normalizeThreadLane(lane.events))).toBe(reference);
      }
    }
    expect(lanes).toBeGreaterThan(50);
  });

  it("gives the round trip's result for what is not plain data, interning in the same order", () => {
    const list: unknown[] = [
      { type: "a", threadId: undefined, providerThreadId: "p", itemId: "i1", skipped: undefined, at: new Date(0) },
      { type: "b", threadId: "t", scope: { turnId: "t1", ids: withHole(undefined, "x") }, n: -0, stamp: new Stamped(2) },
      { type: "c", threadId: null, providerThreadId: undefined, turnId: "t1", rawEvent: { id: 7 }, createdAt: "now" },
      { type: "d", threadId: { turnId: "nested" }, providerCheckpointId: "ck", itemId: "i2" },
      "a bare string",
      undefined,
      [{ itemId: "i1" }, -0, NaN],
    ];
    const [fast, reference] = bothWays(list);
    expect(fast).toBe(reference);
    // Mixed with plain elements, one interner across both paths.
    const mixed = [{ itemId: "i9", threadId: "t" }, ...list, { itemId: "i2", parentToolCallId: "i9" }];
    const [fastMixed, referenceMixed] = bothWays(mixed);
    expect(fastMixed).toBe(referenceMixed);
    const rows = [{ toolCallId: "c1", threadId: "t", rowId: "r1", updatedAt: 5 }, { toolCallId: "c1", rowId: "r2", skipped: undefined }];
    const [fastRows, referenceRows] = bothWays(rows, ROW_ID_FIELDS);
    expect(fastRows).toBe(referenceRows);
  });

  it("blanks a top-level thread id that is an object, and interns it when it is an id field", () => {
    const list = [{ threadId: { itemId: "x" }, itemId: "y" }, { threadId: "t", itemId: "y", child: { threadId: "inner", providerThreadId: "p" } }];
    const [fast, reference] = bothWays(list, ["itemId", "threadId"]);
    expect(fast).toBe(reference);
    // Only the element's own thread ids are blanked; deeper ones are kept (interned when id fields).
    expect(JSON.parse(fast)).toEqual([
      { threadId: "#1", itemId: "#2" },
      { threadId: "#1", itemId: "#2", child: { threadId: "#3", providerThreadId: "p" } },
    ]);
  });
});
