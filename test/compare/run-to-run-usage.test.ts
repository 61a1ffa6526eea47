/**
 * Rule 6 of the run-to-run rules (harness/compare/run-to-run.ts): a token usage report's place
 * among its answer's tool events is the scheduler's, its values are not. The real input is a live
 * run of codex 0.171.0's turn-tools, kept whole in test/fixtures/token-usage-moved/ (a `record
 * --out` folder: the recording and the oracle record wrote): `parity record --provider codex
 * --cell turn-tools --repeat 4` beside four busy loops, 2026-12-07, this 2-core box, Node 20.20,
 * load 13–16; run 4 of 4 (about one run in 40 that evening) had the command's count after its
 * output and before its completed item. The strict cases are the committed oracle with one report
 * moved where a scheduler cannot put it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compareParity } from "../../harness/compare/parity.js";
import {
  dropStreamedProgress,
  foldRunToRun,
  groupConcurrentToolItems,
  joinOutputChunks,
  keepTerminalWindows,
  placeUsageAmongTools,
  replaceMadeUpNames,
  sortMergedCommandOutput,
  USAGE_REPORTS,
} from "../../harness/compare/run-to-run.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

type Event = Record<string, unknown> & { type: string; item?: Record<string, unknown>; itemId?: string };

const read = (file: string): Event[] => JSON.parse(readFileSync(file, "utf8")) as Event[];
const oracle = (cell: string, provider = "codex") => read(path.join(repoRoot, "lanes", provider, `${cell}.json`));
const fixture = path.join(repoRoot, "test", "fixtures", "token-usage-moved");
const moved = () => read(path.join(fixture, "lanes", "codex", "turn-tools.json"));

const verdict = (cell: string, live: unknown[], oracleFromAnotherRun: boolean, provider = "codex") =>
  compareParity({ provider, cell, allowlist: [], live: { events: live }, oracle: { events: oracle(cell, provider) }, ...(oracleFromAnotherRun ? { oracleFromAnotherRun } : {}) });

/** The other five rules, in foldRunToRun's order, without rule 6. */
const withoutRule6 = (events: readonly unknown[]) =>
  sortMergedCommandOutput(keepTerminalWindows(joinOutputChunks(dropStreamedProgress(groupConcurrentToolItems(events))), new Map())).map(replaceMadeUpNames);

const isUsage = (e: Event) => USAGE_REPORTS.has(e.type);
const idOf = (e: Event) => (e.item?.id as string | undefined) ?? e.itemId;
/** Index of the `n`th (0-based) event of `type` (optionally of item type `itemType`). */
const nth = (lane: Event[], n: number, match: (e: Event) => boolean) => lane.map((e, i) => (match(e) ? i : -1)).filter((i) => i >= 0)[n]!;
/** The lane with the event at `from` taken out and put back before the event now at `to` (indices of the original lane). */
const move = (lane: Event[], from: number, to: number): Event[] => {
  const out = [...lane];
  const [event] = out.splice(from, 1);
  out.splice(to > from ? to - 1 : to, 0, event!);
  return out;
};
const started = (type: string) => (e: Event) => e.type === "item/started" && e.item?.type === type;
const completed = (type: string) => (e: Event) => e.type === "item/completed" && e.item?.type === type;

describe("rule 6 on the real run whose count moved (codex 0.171.0 turn-tools)", () => {
  it("the run differs from the committed oracle in where a count is, not in any count", () => {
    const live = moved();
    const committed = oracle("turn-tools");
    // Same events, same counts in the same order: only places differ.
    expect(live.filter(isUsage)).toEqual(committed.filter(isUsage));
    const shape = (lane: Event[]) => lane.filter((e) => !e.type.endsWith("Delta") && !e.type.endsWith("/delta")).map((e) => (isUsage(e) ? "usage" : `${e.type} ${idOf(e) ?? ""}`));
    expect(shape(live)).not.toEqual(shape(committed));
    expect(verdict("turn-tools", live, false).passed).toBe(false);
  });

  it("fails with the other rules alone, passes with rule 6", () => {
    expect(withoutRule6(moved())).not.toEqual(withoutRule6(oracle("turn-tools")));
    expect(foldRunToRun(moved())).toEqual(foldRunToRun(oracle("turn-tools")));
    const across = verdict("turn-tools", moved(), true);
    expect(across.diffs).toEqual([]);
    expect(across.passed).toBe(true);
  });

  it("parity check of the recording against the committed oracles passes; against its own oracle too", async () => {
    const select = ["--provider", "codex", "--cell", "turn-tools", "--reporter", "json"];
    for (const lanes of [path.join(repoRoot, "lanes"), path.join(fixture, "lanes")]) {
      const r = await runCli(["check", "--recordings", fixture, "--lanes", lanes, ...select]);
      expect((JSON.parse(r.out) as { cells: Array<{ status: string }> }).cells.map((c) => c.status)).toEqual(["pass"]);
      expect(r.code).toBe(0);
    }
  });

  it("a count of another value at the moved place still fails", () => {
    const live = moved();
    const last = nth(live, 2, isUsage);
    const usage = live[last]!.tokenUsage as { total: Record<string, number> };
    live[last] = { ...live[last]!, tokenUsage: { ...usage, total: { ...usage.total, outputTokens: usage.total.outputTokens! + 1 } } };
    const result = verdict("turn-tools", live, true);
    expect(result.passed).toBe(false);
    expect(result.diffs.some((d) => d.path.includes("/tokenUsage/total/outputTokens"))).toBe(true);
  });
});

describe("rule 6 is strict: a count a scheduler cannot move still fails (the committed turn-tools oracle, one count moved)", () => {
  // turn-tools: message #2, fileRead #3, count 1, fileChange #4, turn diff, count 2, command #5, count 3, message #6, count 4, turn diff, turn end.
  const lane = oracle("turn-tools");
  const count = (n: number) => nth(lane, n, isUsage);

  for (const [what, live] of [
    [
      "count 3 before the command's output",
      move(
        lane,
        count(2),
        nth(lane, 0, (e) => e.type === "item/commandExecution/outputDelta" && idOf(e) === "#5"),
      ),
    ],
    ["count 3 before the command's started item", move(lane, count(2), nth(lane, 0, started("commandExecution")))],
    [
      "count 2 before the turn diff",
      move(
        lane,
        count(1),
        nth(lane, 0, (e) => e.type === "turn/diff/updated"),
      ),
    ],
    ["count 2 before the file change completed", move(lane, count(1), nth(lane, 0, completed("fileChange")))],
  ] as const) {
    it(`moved among its answer's tool events (${what}): passes`, () => {
      expect(verdict("turn-tools", live, false).passed).toBe(false);
      expect(verdict("turn-tools", live, true).diffs).toEqual([]);
    });
  }

  for (const [what, live] of [
    ["count 3 after the final message started", move(lane, count(2), lane.findIndex((e) => started("agentMessage")(e) && idOf(e) === "#6") + 1)],
    ["count 1 before the first message completed", move(lane, count(0), nth(lane, 0, completed("agentMessage")))],
    ["count 4 after the turn's end", move(lane, count(3), lane.length)],
    ["count 1 after the file change (the model's next answer)", move(lane, count(0), nth(lane, 0, completed("fileChange")) + 1)],
    ["count 2 after the command (the model's next answer)", move(lane, count(1), nth(lane, 0, completed("commandExecution")) + 1)],
    ["count 2 before the read (the answer before)", move(lane, count(1), nth(lane, 0, started("fileRead")))],
  ] as const) {
    it(`moved across what the scheduler does not reorder (${what}): fails`, () => {
      expect(live).not.toEqual(lane);
      expect(verdict("turn-tools", live, true).passed).toBe(false);
    });
  }
});

describe("rule 6's blind spot, on the strict side", () => {
  it("a count before its answer's first tool started, with the answer's next count after its tools, is taken for the next answer's: it differs", () => {
    // turn-tools' first count before the read started: the second count, after the file change,
    // then walks back over the read too (nothing tells the lane the read was the answer before).
    const lane = oracle("turn-tools");
    const live = move(lane, nth(lane, 0, isUsage), nth(lane, 0, started("fileRead")));
    expect(verdict("turn-tools", live, true).passed).toBe(false);
  });
});

describe("rule 6 on the other usage report, and where nothing runs", () => {
  it("claude-agent-acp's usage_update among two running tools (acp-claude two-tool-calls): any place while they run is one; after them, or across the message, is not", () => {
    // 10 read started, 11 command started, 12 usage 1040, 13 read completed, 14 command completed, 15 usage 1031 (the next answer's), 16 message started.
    const lane = oracle("two-tool-calls", "acp-claude");
    const window = nth(lane, 0, (e) => e.type === "thread/contextWindowUsage/updated" && lane.indexOf(e) > nth(lane, 0, started("fileRead")));
    expect(window).toBeLessThan(nth(lane, 0, completed("commandExecution")));
    const among = [move(lane, window, nth(lane, 0, started("commandExecution"))), move(lane, window, nth(lane, 0, completed("commandExecution")))];
    for (const live of among) {
      expect(verdict("two-tool-calls", live, false, "acp-claude").passed).toBe(false);
      expect(verdict("two-tool-calls", live, true, "acp-claude").diffs).toEqual([]);
    }
    const strict = [
      move(lane, window, nth(lane, 0, completed("agentMessage"))),
      move(lane, window, nth(lane, 0, completed("commandExecution")) + 1),
      move(lane, window + 3, nth(lane, 0, completed("commandExecution"))),
    ];
    for (const live of strict) expect(verdict("two-tool-calls", live, true, "acp-claude").passed).toBe(false);
  });

  it("a count after a message or a turn event stays where it is; every committed lane keeps its events", () => {
    expect(placeUsageAmongTools(oracle("approval-allow", "claude-code"))).toEqual(oracle("approval-allow", "claude-code"));
    for (const [provider, cell] of [
      ["claude-code", "two-tool-calls"],
      ["pi", "two-tool-calls"],
      ["acp-opencode", "two-tool-calls"],
      ["codex", "turn-tools"],
    ] as const) {
      const lane = oracle(cell, provider);
      const placed = placeUsageAmongTools(lane);
      expect(placed).toHaveLength(lane.length);
      expect([...placed].map((e) => JSON.stringify(e)).sort()).toEqual(lane.map((e) => JSON.stringify(e)).sort());
      expect(placed.filter((e) => !isUsage(e as Event))).toEqual(lane.filter((e) => !isUsage(e)));
    }
  });
});
