import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { laneAddresses, stableSelector } from "../../harness/compare/address.js";
import type { AllowlistEntry } from "../../harness/compare/allowlist.js";
import { parseSelector, selectEvents } from "../../harness/compare/event-selector.js";
import { maskLane } from "../../harness/compare/mask.js";
import { compareParity } from "../../harness/compare/parity.js";
import { normalizeThreadLane } from "../../harness/lanes/normalize.js";
import { suggestedAllowPath } from "../../harness/report/suggest.js";
import { referenceLanes } from "../cli/run-cli.js";

type Event = Record<string, any>;

const entry = (pathText: string): AllowlistEntry => ({ provider: "acp-cursor", cell: "turn-tools", layer: "events", path: pathText, pr: "#7", reason: "intended" });

async function turnTools(): Promise<Event[]> {
  return JSON.parse(await readFile(path.join(referenceLanes, "turn-tools.events.json"), "utf8")) as Event[];
}

/** A reasoning item (two events) inserted at `at`, ids re-interned as a bridge run would number them. */
function insertReasoning(lane: readonly Event[], at: number): Event[] {
  const frame = { threadId: "", providerThreadId: "", scope: structuredClone(lane[at]!.scope) };
  const started = { type: "item/started", ...frame, item: { type: "reasoning", id: "rsn_x", text: "" } };
  const completed = { type: "item/completed", ...frame, item: { type: "reasoning", id: "rsn_x", text: "thinking" } };
  return normalizeThreadLane([...lane.slice(0, at), started, completed, ...lane.slice(at)]) as Event[];
}

describe("stable selectors", () => {
  it("an entry accepted for a changed field still masks it after an unrelated item is inserted before it", async () => {
    const oracle = await turnTools();
    const at = oracle.findIndex((e) => e.type === "item/completed" && e.item?.type === "commandExecution");
    const live = structuredClone(oracle);
    live[at]!.item.aggregatedOutput = "changed output";

    // What the report suggests for the change is a selector, not a position.
    const first = compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live }, oracle: { events: oracle }, allowlist: [] });
    expect(first.diffs).toHaveLength(1);
    const suggested = suggestedAllowPath(first.diffs[0]!)!;
    expect(suggested).toMatch(/^\/\*\[turn=1\]\[item=commandExecution:\d+\]\[type=item\/completed\]\/item\/aggregatedOutput$/);
    const allow = [entry(suggested)];
    expect(compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live }, oracle: { events: oracle }, allowlist: allow }).passed).toBe(true);

    // The lanes gain an unrelated reasoning item before the command (on both sides): every later
    // position and id shifts. The selector still masks exactly the changed field.
    const early = oracle.findIndex((e) => e.type === "item/started");
    const oracle2 = insertReasoning(oracle, early);
    const live2 = insertReasoning(live, early);
    const after = compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live2 }, oracle: { events: oracle2 }, allowlist: allow });
    expect(after.diffs).toEqual([]);
    expect(after.stale).toEqual([]);
    expect(after.masked[0]!.sides).toEqual({ live: 1, oracle: 1 });
    expect(after.passed).toBe(true);

    // The positional path the old report suggested now points at another event: the change is unmasked.
    const positional = compareParity({
      provider: "acp-cursor",
      cell: "turn-tools",
      live: { events: live2 },
      oracle: { events: oracle2 },
      allowlist: [entry(`/${at}/item/aggregatedOutput`)],
    });
    expect(positional.passed).toBe(false);

    // Inserted on the live side only, the item is reported as two added events and nothing else.
    const oneSide = compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live2 }, oracle: { events: oracle }, allowlist: allow });
    expect(oneSide.diffs.map((d) => d.op)).toEqual(["add", "add"]);
    expect(oneSide.masked[0]!.sides).toEqual({ live: 1, oracle: 1 });
  });

  it("picks every event of the lane back by its own selector", async () => {
    const lane = await turnTools();
    const addresses = laneAddresses(lane);
    lane.forEach((_, index) => {
      const selector = stableSelector(lane, addresses, index, ["type"])!;
      expect(selectEvents(lane, parseSelector(selector)!, addresses), selector).toEqual([index]);
      const untyped = stableSelector(lane, addresses, index, ["type"], { untypedItem: true })!;
      expect(selectEvents(lane, parseSelector(untyped)!, addresses), untyped).toEqual([index]);
    });
  });

  it("masks a field in every event the predicates pick, with dotted keys", async () => {
    const lane = await turnTools();
    const commands = lane.filter((e) => e.type === "item/completed" && e.item?.type === "commandExecution").length;
    expect(commands).toBeGreaterThan(0);
    const masked = maskLane(lane, [entry("/*[type=item/completed][item.type=commandExecution]/item/exitCode")]);
    expect(masked.counts).toEqual([commands]);
    const completed = masked.lane.filter((e: any) => e.item?.type === "commandExecution" && e.type === "item/completed") as Event[];
    for (const event of completed) expect(Object.keys(event.item)).not.toContain("exitCode");
  });
});
