import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compareParity, grammarDropKeys, type ParityLeg } from "../../harness/compare/parity.js";
import type { AllowlistEntry } from "../../harness/compare/allowlist.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const referenceLane = async (cell: string): Promise<Array<Record<string, any>>> =>
  JSON.parse(await readFile(path.resolve(repoRoot, "../shared/reference-lanes/acp-cursor", `${cell}.events.json`), "utf8"));

const entry = (overrides: Partial<AllowlistEntry>): AllowlistEntry => ({
  provider: "acp-cursor",
  cell: "turn-tools",
  layer: "events",
  path: "/*/item/exitCode",
  pr: "#7",
  reason: "exit code now reported",
  ...overrides,
});

async function fixture() {
  const expected = await referenceLane("turn-tools");
  const live = structuredClone(expected);
  const commandIndex = live.findIndex((e) => e.type === "item/completed" && e.item?.type === "commandExecution");
  expect(commandIndex).toBeGreaterThan(0);
  live[commandIndex]!.item.exitCode = 99;
  return { expected, live, commandIndex };
}

describe("compareParity on the real acp-cursor/turn-tools lane", () => {
  it("passes an unchanged lane against oracle and recording", async () => {
    const lane = await referenceLane("turn-tools");
    const leg: ParityLeg = { events: lane, unhandled: 0, grammarDrops: ["r:turn/completed"] };
    const verdict = compareParity({ provider: "acp-cursor", cell: "turn-tools", live: leg, oracle: leg, recorded: leg, allowlist: [] });
    expect(verdict.passed).toBe(true);
    expect(verdict.diffs).toEqual([]);
    expect(verdict.comparisons.map((c) => [c.against, c.expectedEvents, c.liveEvents])).toEqual([
      ["oracle", 98, 98],
      ["recording", 98, 98],
    ]);
  });

  it("names the exact field path of a changed field on both comparisons", async () => {
    const { expected, live, commandIndex } = await fixture();
    const verdict = compareParity({
      provider: "acp-cursor",
      cell: "turn-tools",
      live: { events: live },
      oracle: { events: expected },
      recorded: { events: expected },
      allowlist: [],
    });
    expect(verdict.passed).toBe(false);
    expect(verdict.diffs.map((d) => [d.against, d.layer, d.op, d.path])).toEqual([
      ["oracle", "events", "replace", `/${commandIndex}/item/exitCode`],
      ["recording", "events", "replace", `/${commandIndex}/item/exitCode`],
    ]);
    expect(verdict.diffs[0]!.new).toBe(99);
    expect(verdict.diffs[0]!.old).toBe(expected[commandIndex]!.item.exitCode);
  });

  it("reports a dropped event as a whole-event removal at its old position", async () => {
    const expected = await referenceLane("turn-tools");
    const live = structuredClone(expected);
    const deltaIndex = live.findIndex((e) => e.type === "item/agentMessage/delta");
    live.splice(deltaIndex, 1);
    const verdict = compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live }, oracle: { events: expected }, allowlist: [] });
    expect(verdict.diffs.map((d) => [d.op, d.path])).toEqual([["remove", `/${deltaIndex}`]]);
    expect(verdict.comparisons[0]!.lines.filter((l) => l.kind === "removed")).toHaveLength(1);
  });

  it("masks an allowlisted field on every side and counts per side", async () => {
    const { expected, live } = await fixture();
    const withExitCode = expected.filter((e) => e.item && "exitCode" in e.item).length;
    const verdict = compareParity({
      provider: "acp-cursor",
      cell: "turn-tools",
      live: { events: live },
      oracle: { events: expected },
      recorded: { events: expected },
      allowlist: [entry({}), entry({ cell: "resume", path: "/*/item/nothing" })],
    });
    expect(verdict.passed).toBe(true);
    expect(verdict.stale).toEqual([]);
    expect(verdict.masked).toHaveLength(1); // the resume entry does not apply
    expect(verdict.masked[0]!.sides).toEqual({ live: withExitCode, oracle: withExitCode, recording: withExitCode });
    expect(verdict.masked[0]!.count).toBe(3 * withExitCode);
    expect(live.find((e) => e.item?.exitCode === 99)).toBeDefined(); // inputs are not modified
  });

  it("fails a cell on a stale entry that masks nothing, even when the lanes are equal", async () => {
    const lane = await referenceLane("turn-tools");
    const stale = entry({ provider: "*", path: "/**/noSuchField" });
    const verdict = compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: lane }, oracle: { events: lane }, allowlist: [stale] });
    expect(verdict.diffs).toEqual([]);
    expect(verdict.stale).toEqual([stale]);
    expect(verdict.passed).toBe(false);
  });

  it("compares grammar drops as a sequence and unhandled counts", async () => {
    const lane = await referenceLane("resume");
    const drops = grammarDropKeys([{ rule: "dual-settle", eventType: "item/completed" }]);
    expect(drops).toEqual(["dual-settle:item/completed"]);
    const verdict = compareParity({
      provider: "acp-cursor",
      cell: "resume",
      live: { events: lane, unhandled: 2, grammarDrops: [] },
      recorded: { events: lane, unhandled: 0, grammarDrops: drops },
      allowlist: [],
    });
    expect(verdict.diffs.map((d) => [d.against, d.layer, d.op, d.path, d.old, d.new])).toEqual([
      ["recording", "grammar", "remove", "/grammarDrops/0", "dual-settle:item/completed", undefined],
      ["recording", "unhandled", "replace", "/unhandled", 0, 2],
    ]);
    // An oracle without counters is compared on events only.
    const oracleOnly = compareParity({
      provider: "acp-cursor",
      cell: "resume",
      live: { events: lane, unhandled: 2, grammarDrops: [] },
      oracle: { events: lane },
      allowlist: [],
    });
    expect(oracleOnly.passed).toBe(true);
  });

  it("ignores a key-order-only change (events are compared as values)", async () => {
    const expected = await referenceLane("resume");
    const live = structuredClone(expected);
    const { type, ...rest } = live[0]!;
    live[0] = { ...rest, type };
    const verdict = compareParity({ provider: "acp-cursor", cell: "resume", live: { events: live }, oracle: { events: expected }, allowlist: [] });
    expect(verdict.diffs).toEqual([]);
    expect(verdict.passed).toBe(true);
  });
});
