import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllowlist, type AllowlistEntry } from "../../harness/compare/allowlist.js";
import { eventMatches, parseEventSelector, removeSelectedEvents } from "../../harness/compare/event-selector.js";
import { maskLane, maskPath } from "../../harness/compare/mask.js";
import { compareParity } from "../../harness/compare/parity.js";
import { allowlistPathProblem } from "../../harness/compare/pointer.js";
import { buildThreadLane, normalizeThreadLane } from "../../harness/lanes/index.js";
import { readRecording } from "../../harness/recording/reader.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const STATE = "thread/extensionState/updated";

const entry = (pathText: string, cell = "resume"): AllowlistEntry => ({
  provider: "acp-cursor",
  cell,
  layer: "events",
  path: pathText,
  pr: "#5",
  reason: "intended",
});

/** A state event as the spec-30 bridge emits it; the payload holds vendor ids (spec 30 §6.3). */
const stateEvent = (kind: string, optionId: string, name = "Model") => ({
  type: STATE,
  threadId: "thr_x",
  scope: { kind: "thread" },
  kind,
  payload: { configOptions: [{ id: optionId, name, currentValue: "auto" }] },
});

/** The raw (not normalized) thread events of a real recording's own lane. */
async function rawLane(cell: string): Promise<Array<Record<string, any>>> {
  const recording = await readRecording(path.resolve(repoRoot, "../shared/recordings/acp-cursor", cell));
  return buildThreadLane(recording, { useCurrent: true }).events as unknown as Array<Record<string, any>>;
}

describe("event selector paths", () => {
  it.each([
    ["/*[type=thread/extensionState/updated]", { type: STATE }],
    ["/*[type=thread/extensionState/updated][kind=bb/session-options]", { type: STATE, field: { key: "kind", value: "bb/session-options" } }],
    ["/*[type=turn/started]", { type: "turn/started" }],
  ])("parses %s", (text, selector) => {
    expect(parseEventSelector(text)).toEqual(selector);
    expect(allowlistPathProblem(text)).toBeUndefined();
  });

  it.each([
    "/*",
    "/**",
    "/3",
    "/*[type=]",
    "/*[kind=bb/session-options]",
    "/*[type=a][type=b]",
    "/**[type=thread/extensionState/updated]",
    "/3[type=turn/started]",
    "/*[item.type=b]",
    "/*[turn=0]/item/text",
    "/*[item=x]/item/text",
    "/*[n=0]/item/text",
    "/*[type=a]/item/*",
    "/*[type=a]/item/args/0",
    "/*[type=a]//text",
    "/*[type=a]item",
  ])("rejects %s", (text) => {
    expect(parseEventSelector(text)).toBeUndefined();
    expect(allowlistPathProblem(text)).toBeTypeOf("string");
  });

  it("points whole-event paths and malformed selectors at the selector form", () => {
    expect(allowlistPathProblem("/3")).toContain("/*[type=<event type>]");
    expect(allowlistPathProblem("/*")).toContain("/*[type=<event type>]");
    expect(allowlistPathProblem("/*[kind=x]")).toContain("not a valid event selector");
    expect(() => parseAllowlist([entry("/*[type=a]/item/*")], "a.json")).toThrow(/entry 0: path: .*not a valid event selector/);
    expect(parseAllowlist([entry(`/*[type=${STATE}][kind=bb/provider-commands]`)], "a.json")).toHaveLength(1);
  });

  it.each([
    "/*[type=a][kind=b][x=c]",
    "/*[type=item/completed][item.type=commandExecution]/item/exitCode",
    "/*[turn=2][item=commandExecution:1][type=item/completed]/item/exitCode",
    "/*[turn=thread][type=a][kind=b][n=2]/payload/commands",
    "/*[turn=1][item=3]/item/type",
    "/*[type=a]/item/text",
  ])("accepts the general selector %s, which is not a whole-event selector of the first form", (text) => {
    expect(allowlistPathProblem(text)).toBeUndefined();
    expect(parseEventSelector(text)).toBeUndefined();
  });

  it("matches the type, and the second field only as an equal top-level string", () => {
    const selector = parseEventSelector(`/*[type=${STATE}][kind=bb/session-options]`)!;
    expect(eventMatches(stateEvent("bb/session-options", "model"), selector)).toBe(true);
    expect(eventMatches(stateEvent("bb/provider-commands", "model"), selector)).toBe(false);
    expect(eventMatches({ type: "turn/started", kind: "bb/session-options" }, selector)).toBe(false);
    expect(eventMatches({ type: STATE, payload: { kind: "bb/session-options" } }, selector)).toBe(false);
    expect(eventMatches(null, selector)).toBe(false);
    const lane = [stateEvent("bb/session-options", "a"), { type: "turn/started" }, stateEvent("bb/provider-commands", "b")];
    const result = removeSelectedEvents(lane, selector);
    expect(result.removed).toBe(1);
    expect(result.lane.map((e) => (e as { type: string }).type)).toEqual(["turn/started", STATE]);
    expect(lane).toHaveLength(3);
  });

  it("maskPath refuses a selector (it needs maskLane's re-interning)", () => {
    expect(() => maskPath([], `/*[type=${STATE}]`)).toThrow(TypeError);
  });
});

describe("state-event payload ids and interning", () => {
  it("payload ids are interned like any id (spec 10 §6.3), so committed oracles keep their form", () => {
    const lane = normalizeThreadLane([stateEvent("bb/session-options", "model"), { type: "turn/started", threadId: "thr_x", scope: { kind: "turn", turnId: "turn_a" } }]) as Array<Record<string, any>>;
    expect(lane[0]!.payload.configOptions[0].id).toBe("#1");
    expect(lane[1]!.scope.turnId).toBe("#2");
  });

  it("a selector removing a state event whose payload took #1 renumbers the rest as if it never was", () => {
    const later = { type: "turn/started", threadId: "thr_x", scope: { kind: "turn", turnId: "turn_a" } };
    const live = normalizeThreadLane([stateEvent("bb/session-options", "model"), later]);
    const masked = maskLane(live, [entry(`/*[type=${STATE}]`)]);
    expect(masked.counts).toEqual([1]);
    expect(masked.lane).toEqual(normalizeThreadLane([later]));
    expect((masked.lane[0] as any).scope.turnId).toBe("#1");
  });
});

describe("event selectors in compareParity, on the real acp-cursor/resume lane", () => {
  it("removes the added events from both sides before the diff and counts each one", async () => {
    const raw = await rawLane("resume");
    const withState = [stateEvent("bb/session-options", "model"), ...raw.slice(0, 3), stateEvent("bb/provider-commands", "x"), ...raw.slice(3)];
    // The option ids are interned (#n) by normalization, so the recorded event differs by its name:
    // an entry removing equal events from both sides masks no difference and is stale (issue 26).
    const recorded = { events: normalizeThreadLane([stateEvent("bb/session-options", "mode", "Mode"), ...raw]) };
    const live = { events: normalizeThreadLane(withState) };
    const options = entry(`/*[type=${STATE}][kind=bb/session-options]`);
    const commands = entry(`/*[type=${STATE}][kind=bb/provider-commands]`);

    const without = compareParity({ provider: "acp-cursor", cell: "resume", live, recorded, allowlist: [] });
    expect(without.passed).toBe(false);

    const verdict = compareParity({ provider: "acp-cursor", cell: "resume", live, recorded, allowlist: [options, commands] });
    expect(verdict.diffs).toEqual([]);
    expect(verdict.passed).toBe(true);
    expect(verdict.masked.map((m) => [m.entry.path, m.sides])).toEqual([
      [options.path, { live: 1, recording: 1 }],
      [commands.path, { live: 1, recording: 0 }],
    ]);
  });

  it("acts before interning: a removed event's ids shift no later #n", async () => {
    const raw = await rawLane("resume");
    // An added event type that carries an interned id field, ahead of every other id.
    const added = { type: "provider/notice", scope: { kind: "thread" }, itemId: "notice_1" };
    const live = normalizeThreadLane([added, ...raw]);
    const recorded = normalizeThreadLane(raw);
    // Dropped AFTER interning, every later id would be off by one.
    expect(live.slice(1)).not.toEqual(recorded);
    const masked = maskLane(live, [entry("/*[type=provider/notice]")]);
    expect(masked.counts).toEqual([1]);
    expect(masked.lane).toEqual(recorded);
    // Field paths still apply after the removal, at the renumbered positions.
    const both = maskLane(live, [entry("/*/scope/turnId"), entry("/*[type=provider/notice]")]);
    expect(both.counts[1]).toBe(1);
    expect(both.counts[0]).toBe(recorded.filter((e) => (e as any).scope?.turnId !== undefined).length);
    expect(JSON.stringify(both.lane)).not.toContain("turnId");
  });

  it("an applying selector that matches nothing on any side is stale and fails the cell", async () => {
    const events = normalizeThreadLane(await rawLane("resume"));
    const stale = entry(`/*[type=${STATE}][kind=bb/session-options]`);
    const elsewhere = entry(`/*[type=${STATE}]`, "turn-tools");
    const verdict = compareParity({ provider: "acp-cursor", cell: "resume", live: { events }, recorded: { events }, allowlist: [stale, elsewhere] });
    expect(verdict.diffs).toEqual([]);
    expect(verdict.stale).toEqual([stale]);
    expect(verdict.passed).toBe(false);
  });
});
