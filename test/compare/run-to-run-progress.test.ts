/**
 * Rule 1 of the run-to-run rules (harness/compare/run-to-run.ts): whether a command's progress was
 * streamed at all before it ended is the clock's when its completed item carries the whole output.
 * The real input is a live run of opencode 1.18.33's long-output, kept whole in
 * test/fixtures/progress-streamed/ (a `record --out` folder: the recording and the oracle record
 * wrote): the session-17 whole re-record (`parity record --provider acp-opencode --all-cells`,
 * 2026-12-07, this 2-core box, Node 20.20, load ~10 with four engineers' work beside it). opencode
 * sent one more in-progress `tool_call_update` for `seq 1 20000`, with the output read so far, than
 * in the committed recording (whose command ended before that update), so the thread lane has one
 * `item/commandExecution/outputDelta` the committed oracle lacks. The oracle it is held to is the one
 * committed then, kept beside it (`committed-lanes/`): acp-opencode's recordings were made again the
 * next day, when the model server began to number an answer among requests of its own kind
 * (harness/model-server/README.md), so today's oracles carry other token counts than this run.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compareParity } from "../../harness/compare/parity.js";
import { foldRunToRun, replaceMadeUpNames } from "../../harness/compare/run-to-run.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

type Event = Record<string, unknown> & { type: string; item?: Record<string, unknown>; itemId?: string };

const read = (file: string): Event[] => JSON.parse(readFileSync(file, "utf8")) as Event[];
const fixture = path.join(repoRoot, "test", "fixtures", "progress-streamed");
const committedLanes = path.join(fixture, "committed-lanes");
const committed = () => read(path.join(committedLanes, "acp-opencode", "long-output.json"));
const streamed = () => read(path.join(fixture, "lanes", "acp-opencode", "long-output.json"));
const isDelta = (e: Event) => e.type === "item/commandExecution/outputDelta";
const verdict = (live: unknown[], oracleFromAnotherRun: boolean) =>
  compareParity({ provider: "acp-opencode", cell: "long-output", allowlist: [], live: { events: live }, oracle: { events: committed() }, ...(oracleFromAnotherRun ? { oracleFromAnotherRun } : {}) });

describe("rule 1 on the real run that streamed progress (opencode 1.18.33 long-output)", () => {
  it("the run differs from the committed oracle by one progress delta; the completed output is the same (but for the name opencode gave its saved output)", () => {
    expect(committed().filter(isDelta)).toEqual([]);
    expect(streamed().filter(isDelta)).toHaveLength(1);
    const completedOutput = (lane: Event[]) => lane.filter((e) => e.type === "item/completed" && e.item?.type === "commandExecution").map((e) => replaceMadeUpNames(e.item?.aggregatedOutput));
    expect(completedOutput(streamed())).toEqual(completedOutput(committed()));
    expect(verdict(streamed(), false).passed).toBe(false);
  });

  it("passes across runs: the deltas are progress of an item whose whole output is compared", () => {
    expect(foldRunToRun(streamed())).toEqual(foldRunToRun(committed()));
    const across = verdict(streamed(), true);
    expect(across.diffs).toEqual([]);
    expect(across.passed).toBe(true);
  });

  it("a changed whole output still fails across runs", () => {
    const live = streamed().map((e) =>
      e.type === "item/completed" && e.item?.type === "commandExecution" ? { ...e, item: { ...e.item, aggregatedOutput: `${String(e.item.aggregatedOutput)}20001\n` } } : e,
    );
    expect(verdict(live, true).passed).toBe(false);
  });

  it("deltas of an item without a whole output still count, byte for byte", () => {
    const live = streamed().map((e) => (e.type === "item/completed" && e.item?.type === "commandExecution" ? { ...e, item: { ...e.item, aggregatedOutput: undefined } } : e));
    expect(foldRunToRun(live).some((e) => isDelta(e as Event))).toBe(true);
  });

  it("parity check of the recording against the committed oracles passes; against its own oracle too", async () => {
    const select = ["--provider", "acp-opencode", "--cell", "long-output", "--reporter", "json"];
    for (const lanes of [committedLanes, path.join(fixture, "lanes")]) {
      const r = await runCli(["check", "--recordings", fixture, "--lanes", lanes, ...select]);
      expect((JSON.parse(r.out) as { cells: Array<{ status: string }> }).cells.map((c) => c.status)).toEqual(["pass"]);
      expect(r.code).toBe(0);
    }
  });
});
