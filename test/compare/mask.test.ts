import { describe, expect, it } from "vitest";
import { maskLane, maskPath } from "../../harness/compare/mask.js";
import type { AllowlistEntry } from "../../harness/compare/allowlist.js";

const lane = (): Array<Record<string, any> | null> => [
  { type: "item/started", item: { type: "toolCall", id: "#1", title: "read", args: ["a", "b"] } },
  { type: "item/completed", item: { type: "toolCall", id: "#1", title: "read", result: { text: "x", meta: { text: "y" } } } },
  { type: "turn/completed", status: "done" },
];

describe("maskPath (spec 10 §6.4)", () => {
  it("deletes an object key at a literal path and counts it", () => {
    const value = lane();
    expect(maskPath(value, "/1/item/title")).toBe(1);
    expect(value[1]!.item).not.toHaveProperty("title");
    expect(value[0]!.item).toHaveProperty("title", "read");
  });

  it("matches every key or position at one level with *", () => {
    const value = lane();
    expect(maskPath(value, "/*/item/title")).toBe(2);
    expect(value[0]!.item).not.toHaveProperty("title");
    expect(value[1]!.item).not.toHaveProperty("title");
    expect(value[2]).toEqual({ type: "turn/completed", status: "done" });
  });

  it("matches zero or more levels with **", () => {
    const value = lane();
    // text at depth 3 and 4 of event 1; none elsewhere.
    expect(maskPath(value, "/**/text")).toBe(2);
    expect(value[1]!.item).toEqual({ type: "toolCall", id: "#1", title: "read", result: { meta: {} } });
    // ** matching zero levels: /1/**/status does not exist, /2/**/status is the top-level key.
    expect(maskPath(value, "/**/status")).toBe(1);
    expect(value[2]).toEqual({ type: "turn/completed" });
  });

  it("sets array elements to null so positions stay stable", () => {
    const value = lane();
    expect(maskPath(value, "/0/item/args/0")).toBe(1);
    expect(value[0]!.item.args).toEqual([null, "b"]);
    expect(maskPath(value, "/0/item/args/*")).toBe(1); // the already-null one is not counted again
    expect(value[0]!.item.args).toEqual([null, null]);
    expect(maskPath(value, "/1")).toBe(1);
    expect(value).toHaveLength(3);
    expect(value[1]).toBeNull();
  });

  it("masks nothing for an absent path or the root", () => {
    const value = lane();
    expect(maskPath(value, "/")).toBe(0);
    expect(maskPath(value, "/7/item/title")).toBe(0);
    expect(maskPath(value, "/*/nope")).toBe(0);
    expect(value).toEqual(lane());
  });

  it("decodes ~1 and ~0 in segments", () => {
    const value: unknown[] = [{ "a/b": 1, "c~d": 2, e: 3 }];
    expect(maskPath(value, "/0/a~1b")).toBe(1);
    expect(maskPath(value, "/0/c~0d")).toBe(1);
    expect(value).toEqual([{ e: 3 }]);
  });
});

describe("maskLane", () => {
  it("works on a copy and counts each entry", () => {
    const entry = (path: string): AllowlistEntry => ({ provider: "p", cell: "c", layer: "events", path, pr: "#1", reason: "r" });
    const original = lane();
    const result = maskLane(original, [entry("/*/item/title"), entry("/**/text"), entry("/*/missing")]);
    expect(result.counts).toEqual([2, 2, 0]);
    expect(original).toEqual(lane());
    expect(JSON.stringify(result.lane)).not.toContain("title");
  });
});
