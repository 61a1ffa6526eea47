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

describe("selector predicates", () => {
  const lane = normalizeThreadLane([
    { type: "thread/extensionState/updated", threadId: "t", scope: { kind: "thread" }, kind: "bb/session-options", payload: { v: 1 } },
    { type: "turn/started", threadId: "t", scope: { kind: "turn", turnId: "u1" } },
    { type: "item/started", threadId: "t", scope: { kind: "turn", turnId: "u1" }, item: { type: "agentMessage", id: "m1", text: "" } },
    { type: "item/agentMessage/delta", threadId: "t", scope: { kind: "turn", turnId: "u1" }, itemId: "m1", delta: "a" },
    { type: "item/agentMessage/delta", threadId: "t", scope: { kind: "turn", turnId: "u1" }, itemId: "m1", delta: "b" },
    { type: "item/started", threadId: "t", scope: { kind: "turn", turnId: "u2" }, item: { type: "agentMessage", id: "m2", text: "" } },
  ]) as Event[];
  const addresses = laneAddresses(lane);
  const pick = (selector: string) => selectEvents(lane, parseSelector(selector)!, addresses);

  it("numbers turns and items by first appearance, per turn and per item type", () => {
    expect(addresses.map((a) => [a.turn, a.item?.type, a.item?.ordinal, a.n, a.of])).toEqual([
      ["thread", undefined, undefined, 1, 1],
      [1, undefined, undefined, 1, 1],
      [1, "agentMessage", 1, 1, 1],
      [1, "agentMessage", 1, 1, 2],
      [1, "agentMessage", 1, 2, 2],
      [2, "agentMessage", 1, 1, 1],
    ]);
  });

  it("picks by turn, item, n and dotted fields", () => {
    expect(pick("/*[turn=thread][type=thread/extensionState/updated]/payload")).toEqual([0]);
    expect(pick("/*[turn=1][item=agentMessage:1]/itemId")).toEqual([2, 3, 4]);
    expect(pick("/*[turn=1][item=agentMessage:1][type=item/agentMessage/delta][n=2]/delta")).toEqual([4]);
    expect(pick("/*[turn=2][item=1]/item/text")).toEqual([5]);
    expect(pick("/*[type=item/started][item.type=agentMessage]/item/text")).toEqual([2, 5]);
    expect(pick("/*[scope.kind=thread][type=thread/extensionState/updated]/payload")).toEqual([0]);
    expect(pick("/*[turn=3][type=turn/started]/scope")).toEqual([]);
    expect(pick("/*[turn=1][item=agentMessage:1][type=item/agentMessage/delta][n=3]/delta")).toEqual([]);
  });

  it("writes each event's own selector, with n only when needed", () => {
    expect(lane.map((_, index) => stableSelector(lane, addresses, index, ["x"]))).toEqual([
      "/*[turn=thread][type=thread/extensionState/updated][kind=bb/session-options]/x",
      "/*[turn=1][type=turn/started]/x",
      "/*[turn=1][item=agentMessage:1][type=item/started]/x",
      "/*[turn=1][item=agentMessage:1][type=item/agentMessage/delta][n=1]/x",
      "/*[turn=1][item=agentMessage:1][type=item/agentMessage/delta][n=2]/x",
      "/*[turn=2][item=agentMessage:1][type=item/started]/x",
    ]);
    // A whole-event selector starts with its type, as the loader requires.
    expect(stableSelector(lane, addresses, 2)).toBe("/*[type=item/started][turn=1][item=agentMessage:1]");
  });

  it("a whole-event selector with ordinal predicates removes just that event, then ids are re-interned", () => {
    const masked = maskLane(lane, [entry("/*[type=item/started][turn=2][item=agentMessage:1]")]);
    expect(masked.counts).toEqual([1]);
    expect(masked.lane).toEqual(normalizeThreadLane(lane.slice(0, 5)));
  });
});

describe("laneAddresses on the real cursor turn-tools lane", () => {
  // What each address is, built the way it was before (issue 25 memory: each address is now built
  // once, and one item's events share one `item` part): the same values, field for field.
  it("gives each event its turn, item, type, kind, n and of; one item's events share one item part", async () => {
    const lane = await turnTools();
    const addresses = laneAddresses(lane);
    expect(addresses).toHaveLength(lane.length);
    const groups = new Map<string, number[]>();
    addresses.forEach((address, at) => {
      const key = JSON.stringify([address.turn ?? null, address.item?.type ?? null, address.item?.ordinal ?? null, address.type, address.kind ?? null]);
      groups.set(key, [...(groups.get(key) ?? []), at]);
      expect(address.type).toBe(lane[at]!.type);
    });
    for (const members of groups.values()) {
      expect(members.map((at) => addresses[at]!.n)).toEqual(members.map((_, k) => k + 1));
      for (const at of members) expect(addresses[at]!.of).toBe(members.length);
    }
    const byItem = new Map<string, Set<unknown>>();
    addresses.forEach((address, at) => {
      const id = lane[at]!.item?.id ?? lane[at]!.itemId;
      if (address.item === undefined || id === undefined) return;
      const key = JSON.stringify([address.turn, address.item.type, id]);
      byItem.set(key, (byItem.get(key) ?? new Set()).add(address.item));
    });
    expect(byItem.size).toBeGreaterThan(1);
    for (const parts of byItem.values()) expect(parts.size).toBe(1);
  });
});
