import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { maskLane } from "../../harness/compare/mask.js";
import { compareParity } from "../../harness/compare/parity.js";
import { repoRoot } from "../helpers/run-cli.js";

// A committed oracle: a real lane of the ACP bridge over the opencode recordings.
const oracle = JSON.parse(readFileSync(path.join(repoRoot, "lanes", "acp-opencode", "turn-tools.json"), "utf8")) as unknown;
const events = (Array.isArray(oracle) ? oracle : (oracle as { events: unknown[] }).events) as unknown[];

describe("maskLane with no applying entry", () => {
  it("hands back the lane itself, unmodified, instead of a deep copy", () => {
    const before = JSON.stringify(events);
    const masked = maskLane(events, []);
    expect(masked.lane).toBe(events);
    expect(masked.counts).toEqual([]);
    expect(JSON.stringify(events)).toBe(before);
  });

  it("compareParity without entries still finds a changed event", () => {
    const changed = structuredClone(events) as Array<Record<string, unknown>>;
    changed[1] = { ...changed[1], type: "changed/type" };
    const verdict = compareParity({ provider: "acp-opencode", cell: "turn-tools", live: { events: changed }, oracle: { events }, allowlist: [] });
    expect(verdict.passed).toBe(false);
    expect(verdict.diffs.some((d) => d.path.startsWith("/1"))).toBe(true);
    expect(compareParity({ provider: "acp-opencode", cell: "turn-tools", live: { events }, oracle: { events: structuredClone(events) }, allowlist: [] }).passed).toBe(true);
  });
});
