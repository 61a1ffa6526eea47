import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LoadedAllowlistEntry } from "../../harness/compare/allowlist.js";
import { compareParity, type ParityLeg } from "../../harness/compare/parity.js";
import { compareParityBySide, compareParityStreamed, type ComparableLeg, type StreamedParityLeg } from "../../harness/compare/stream-compare.js";
import { parityLegFromLane } from "../../harness/compare/leg.js";
import { buildThreadLane } from "../../harness/lanes/index.js";
import { listRecordings, readRecording } from "../../harness/recording/reader.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");

/** A held leg as a streamed one. */
const streamed = (leg: ParityLeg): StreamedParityLeg => ({ events: leg.events, counts: () => leg });
/** The same, with its events yielded asynchronously (as a spill file or a recording stream gives them). */
const asyncStreamed = (leg: ParityLeg): StreamedParityLeg => ({
  events: (async function* () {
    yield* leg.events;
  })(),
  counts: () => leg,
});

async function committedLegs(): Promise<Array<{ name: string; recorded: ParityLeg; oracle: ParityLeg }>> {
  const legs = [];
  for (const location of await listRecordings([path.join(repoRoot, "recordings")])) {
    const oracleFile = path.join(repoRoot, "lanes", location.provider, `${location.cell}.json`);
    const text = await readFile(oracleFile, "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const recording = await readRecording(location.dir);
    if (recording.manifest.scope !== "thread") continue;
    const oracle = JSON.parse(text) as unknown[];
    legs.push({ name: `${location.provider}/${location.cell}`, recorded: parityLegFromLane(buildThreadLane(recording)), oracle: { events: oracle } });
  }
  return legs;
}

const cell = { provider: "p", cell: "c", allowlist: [] as LoadedAllowlistEntry[] };

describe("streamed parity comparison", () => {
  it("gives compareParity's verdict for every committed cell whose lanes align, and no verdict where compareParity finds an event difference", async () => {
    let aligned = 0;
    let differing = 0;
    const legs = await committedLegs();
    // Each cell against its own oracle, and against the next cell's oracle (another cell: lanes that differ).
    const pairs = legs.flatMap((leg, i) => [
      { name: leg.name, recorded: leg.recorded, oracle: leg.oracle },
      { name: `${leg.name} vs ${legs[(i + 1) % legs.length]!.name}`, recorded: leg.recorded, oracle: legs[(i + 1) % legs.length]!.oracle },
    ]);
    for (const { name, recorded, oracle } of pairs) {
      const full = compareParity({ ...cell, live: recorded, oracle, recorded });
      const fast = await compareParityStreamed({ ...cell, live: asyncStreamed(recorded), oracle: streamed(oracle), recorded: asyncStreamed(recorded) });
      if (fast !== undefined) {
        aligned += 1;
        expect(fast, name).toEqual(full);
      } else {
        differing += 1;
        expect(full.diffs.some((d) => d.layer === "events") || oracle.events.length !== recorded.events.length, name).toBe(true);
      }
    }
    expect(aligned).toBeGreaterThan(20);
    expect(differing).toBeGreaterThan(20);
  });

  it("compareParityBySide gives compareParity's whole verdict for every pair, aligned or not, and loads only the sides that differ", async () => {
    const legs = await committedLegs();
    let partly = 0;
    for (const [i, leg] of legs.entries()) {
      const other = legs[(i + 1) % legs.length]!;
      const loaded: string[] = [];
      const comparable = (name: string, whole: ParityLeg): ComparableLeg => ({
        stream: () => asyncStreamed(whole),
        load: () => {
          loaded.push(name);
          return Promise.resolve(whole);
        },
      });
      // The recording aligns (it is the live lane itself); the oracle is another cell's.
      const verdict = await compareParityBySide({ ...cell, live: comparable("live", leg.recorded), oracle: comparable("oracle", other.oracle), recorded: comparable("recording", leg.recorded) });
      const full = compareParity({ ...cell, live: leg.recorded, oracle: other.oracle, recorded: leg.recorded });
      expect(verdict, `${leg.name} vs ${other.name}`).toEqual({ ...full, comparisons: full.comparisons.map((c) => (c.against === "recording" ? { ...c, lines: [] } : c)) });
      expect(loaded).not.toContain("recording");
      if (loaded.includes("oracle")) partly += 1;
    }
    expect(partly).toBeGreaterThan(20);
  });

  it("leaves to compareParity a changed field, a broken id correspondence, a missing event and an applying entry; a consistent renumbering is no difference", async () => {
    const events = [
      { type: "turn/started", scope: { kind: "turn", turnId: "#1" } },
      { type: "item/started", scope: { kind: "turn", turnId: "#1" }, item: { id: "#2", type: "agentMessage", text: "a" } },
      { type: "item/completed", scope: { kind: "turn", turnId: "#1" }, item: { id: "#2", type: "agentMessage", text: "a" } },
    ];
    const expected = { events, unhandled: 0, grammarDrops: ["r:x"] };
    const run = (live: unknown[], allowlist: LoadedAllowlistEntry[] = []) => compareParityStreamed({ ...cell, allowlist, live: streamed({ ...expected, events: live }), oracle: streamed(expected) });
    const renumbered = JSON.parse(JSON.stringify(events).replaceAll("#1", "#9").replaceAll("#2", "#1")) as unknown[];
    const verdict = await run(renumbered);
    expect(verdict).toEqual(compareParity({ ...cell, live: { ...expected, events: renumbered }, oracle: expected }));
    expect(verdict?.passed).toBe(true);

    const changed = structuredClone(events);
    changed[2]!.item!.text = "b";
    expect(await run(changed)).toBeUndefined();
    const broken = structuredClone(events);
    broken[2]!.item!.id = "#3";
    expect(await run(broken)).toBeUndefined();
    expect(await run(events.slice(0, 2))).toBeUndefined();
    const entry = { path: "/*/item/text", reason: "r", pr: "https://example.invalid/pr/1", provider: "p", cell: "c" } as unknown as LoadedAllowlistEntry;
    expect(await run(events, [entry])).toBeUndefined();
  });

  it("counts still differ on an aligned lane: the grammar and unhandled layers are compared as compareParity does", async () => {
    const events = [{ type: "turn/started", scope: { kind: "turn", turnId: "#1" } }];
    const live = { events, unhandled: 1, grammarDrops: ["r:x"] };
    const expected = { events, unhandled: 0, grammarDrops: ["r:y"] };
    const verdict = await compareParityStreamed({ ...cell, live: streamed(live), recorded: streamed(expected) });
    expect(verdict).toEqual(compareParity({ ...cell, live, recorded: expected }));
    expect(verdict?.diffs.map((d) => d.layer)).toEqual(["grammar", "grammar", "unhandled"]);
  });

  it("a 200k-event lane is compared in lockstep: no side is read more than one event ahead of the live lane", async () => {
    const oracle = JSON.parse(await readFile(path.join(repoRoot, "lanes/echo/turn.json"), "utf8")) as unknown[];
    const total = 200_000;
    let live = 0;
    let ahead = 0;
    const sides = { oracle: 0, recording: 0 };
    // Each event is made fresh when pulled (so nothing is shared between the lanes or held by the source).
    async function* liveEvents() {
      for (let i = 0; i < total; i += 1) {
        live += 1;
        yield structuredClone(oracle[i % oracle.length]);
      }
    }
    function* expectedEvents(side: keyof typeof sides) {
      for (let i = 0; i < total; i += 1) {
        sides[side] += 1;
        ahead = Math.max(ahead, sides[side] - live);
        yield structuredClone(oracle[i % oracle.length]);
      }
    }
    const counts = { unhandled: 0, grammarDrops: [] };
    const verdict = await compareParityStreamed({
      ...cell,
      live: { events: liveEvents(), counts: () => counts },
      oracle: { events: expectedEvents("oracle"), counts: () => counts },
      recorded: { events: expectedEvents("recording"), counts: () => counts },
    });
    expect(verdict?.passed).toBe(true);
    expect(verdict?.comparisons.map((c) => [c.against, c.expectedEvents, c.liveEvents, c.lines.length])).toEqual([
      ["oracle", total, total, 0],
      ["recording", total, total, 0],
    ]);
    expect(live).toBe(total);
    expect(ahead).toBeLessThanOrEqual(1);
  });
});
