import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parityLegFromLane } from "../../harness/compare/leg.js";
import { compareParity, type ParityLeg } from "../../harness/compare/parity.js";
import { buildThreadLane, normalizeThreadLane, type ThreadLaneResult } from "../../harness/lanes/index.js";
import { readRecording } from "../../harness/recording/reader.js";
import { cellResultFromVerdict } from "../../harness/report/check-report.js";
import { renderTextReport } from "../../harness/report/text.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const THREAD_CELLS = ["approval-allow", "approval-deny", "fork", "resume", "stop-interrupt", "subagent", "turn-tools"];

const leg = (lane: ThreadLaneResult): ParityLeg => parityLegFromLane(lane);

async function load(cell: string) {
  const recording = await readRecording(path.resolve(repoRoot, "../shared/recordings/acp-cursor", cell));
  const oracle = JSON.parse(await readFile(path.resolve(repoRoot, "../shared/reference-lanes/acp-cursor", `${cell}.events.json`), "utf8"));
  return { recording, oracle: oracle as unknown[] };
}

describe("compareParity on lanes built from the real acp-cursor recordings", () => {
  it.each(THREAD_CELLS)("%s: the current lane matches the reference lane and itself", async (cell) => {
    const { recording, oracle } = await load(cell);
    const lane = buildThreadLane(recording, { useCurrent: true });
    const live = leg(lane);
    expect(live.events).toEqual(normalizeThreadLane(lane.events));
    expect(live.grammarDrops).toEqual(lane.grammarDrops.map((d) => `${d.rule}:${d.eventType}`));
    const verdict = compareParity({ provider: "acp-cursor", cell, live, oracle: { events: oracle }, recorded: live, allowlist: [] });
    expect(verdict.diffs).toEqual([]);
    expect(verdict.passed).toBe(true);
  });

  it("the original bridge lane of turn-tools differs from the current one, and the report says where", async () => {
    const { recording } = await load("turn-tools");
    const live = leg(buildThreadLane(recording, { useCurrent: true }));
    const original = leg(buildThreadLane(recording, { useCurrent: false }));
    const verdict = compareParity({ provider: "acp-cursor", cell: "turn-tools", live, recorded: original, allowlist: [] });
    expect(verdict.passed).toBe(false);
    // Every event-layer path is a JSON pointer into the live (add/replace) or recorded (remove) lane.
    for (const diff of verdict.diffs.filter((d) => d.layer === "events")) {
      const index = Number(diff.path.split("/")[1]);
      if (diff.op === "remove") expect(index).toBeLessThan(original.events.length);
      else expect(index).toBeLessThan(live.events.length);
    }
    // The current lane's grammar drop is not in the original lane's, and is reported as such.
    const onlyLive = live.grammarDrops!.filter((d) => !original.grammarDrops!.includes(d));
    expect(verdict.diffs.filter((d) => d.layer === "grammar" && d.op === "add").map((d) => d.new)).toEqual(onlyLive);
    const text = renderTextReport({ ms: 5, cells: [cellResultFromVerdict({ verdict, ms: 5, events: live.events.length })] }, { color: false });
    expect(text).toContain(`FAIL acp-cursor/turn-tools  live ${live.events.length} events; recording ${original.events.length} events`);
    expect(text).toContain("refresh it: parity rerecord --provider acp-cursor --cell turn-tools");
  });

  it("an allowlist entry masking a real difference in a real field is not stale; one masking equal values, or a mistyped one, is", async () => {
    const { recording, oracle } = await load("resume");
    const live = leg(buildThreadLane(recording, { useCurrent: true }));
    // Stale means "masks no difference" (issue 26): the live lane equals the reference lane, so
    // the entry masks a difference only where the live lane's field really differs from it.
    const equal = compareParity({
      provider: "acp-cursor",
      cell: "resume",
      live,
      oracle: { events: oracle },
      allowlist: [{ provider: "acp-cursor", cell: "resume", layer: "events" as const, path: "/*/clientRequestId", pr: "#1", reason: "r" }],
    });
    expect(equal.stale.map((e) => e.path)).toEqual(["/*/clientRequestId"]);
    const withId = (live.events as Record<string, unknown>[]).find((e) => typeof e.clientRequestId === "string")!;
    withId.clientRequestId = "creq_regressed";
    const entries = [
      { provider: "acp-cursor", cell: "resume", layer: "events" as const, path: "/*/clientRequestId", pr: "#1", reason: "r" },
      { provider: "acp-cursor", cell: "*", layer: "events" as const, path: "/*/clientRequestID", pr: "#2", reason: "typo" },
    ];
    const verdict = compareParity({ provider: "acp-cursor", cell: "resume", live, oracle: { events: oracle }, allowlist: entries });
    expect(verdict.diffs).toEqual([]);
    expect(verdict.masked[0]!.sides.live).toBeGreaterThan(0);
    expect(verdict.masked[0]!.sides.live).toBe(verdict.masked[0]!.sides.oracle);
    expect(verdict.stale).toEqual([entries[1]]);
    expect(verdict.passed).toBe(false);
  });
});
