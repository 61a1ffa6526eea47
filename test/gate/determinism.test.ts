/**
 * Determinism (00-product.md, Determinism): verdicts are a function of the recording and the
 * bridge's output alone, never of the clock or the load. The harness (test/gate/soak.ts)
 * runs `parity check --reporter json` RUNS times with BUSY spinning processes pinned to the
 * cores and counts per cell how often it passed; a failure prints those counts.
 *
 * - Every committed cell (`recordings/`) and every shared acp-cursor cell (read by path,
 *   never copied) passes every run, with a byte-identical report apart from times.
 * - A bursty agent (test/gate/fixtures/burst: two turns of 100 updates in ONE write each, an
 *   fs/read_text_file between, an out-of-turn chunk right before the second turn/start)
 *   replayed through a deliberately slowed ACP bridge (slow-translation-bridge.mjs) passes
 *   every run; the same recording with the agent's second fs/read_text_file request removed
 *   from its agent lane fails every run, naming the seq of the answer that never came.
 *
 * Quick CI setting: RUNS=3, BUSY=2. Thorough: `npm run soak` (PARITY_SOAK_RUNS=20,
 * PARITY_SOAK_BUSY=8). Needs a fresh `dist/`. Nothing here is timed: the per-test budget
 * only bounds a hang.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import { editLane, messageOf, readLane } from "../replay/helpers.js";
import { repoRoot } from "./gate-run.js";
import { envCount, formatCounts, soak, type SoakResult } from "./soak.js";

const RUNS = envCount("PARITY_SOAK_RUNS", 3);
const BUSY = envCount("PARITY_SOAK_BUSY", 2);
/** Bounds a hang only: a generous 4 minutes per run of the whole matrix on a loaded 2-core machine. */
const BUDGET_MS = RUNS * 240_000;

const burstRoot = path.join(repoRoot, "test", "gate", "fixtures", "burst");
const slowBridge = path.join(repoRoot, "test", "gate", "fixtures", "slow-translation-bridge.mjs");
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

/** Every counted cell passed every run and every report equalled the first. */
function expectAllPassed(result: SoakResult): void {
  const counts = formatCounts(result);
  for (const [key, statuses] of result.statuses) {
    expect(statuses.get("pass") ?? 0, `${key} did not pass every run:\n${counts}`).toBe(result.runs);
  }
  expect(result.differingRuns.size, counts).toBe(0);
}

describe(`determinism: ${RUNS} runs with ${BUSY} busy processes on the cores`, () => {
  it(
    "every committed and shared cell passes every run with a byte-identical report apart from times",
    async () => {
      const result = await soak({
        runs: RUNS,
        busy: BUSY,
        gates: [
          { name: "committed", argv: [] },
          { name: "shared", argv: ["--recordings", "../shared/recordings", "--provider", "acp-cursor"] },
        ],
      });
      const committed = [...result.statuses.keys()].filter((k) => k.startsWith("committed: "));
      const shared = [...result.statuses.keys()].filter((k) => k.startsWith("shared: "));
      // Both sources must be there, or the test would prove less than it says.
      expect(committed.some((k) => k.startsWith("committed: echo/"))).toBe(true);
      expect(shared.length).toBe(8);
      // Process-scoped cells are skipped by the gate, the same way every run.
      for (const [key, statuses] of [...result.statuses]) {
        if (statuses.has("skip")) {
          expect(key).toMatch(/\/model-list$/);
          expect(statuses.get("skip")).toBe(RUNS);
          result.statuses.delete(key);
        }
      }
      expectAllPassed(result);
    },
    BUDGET_MS,
  );

  it(
    "a bursty agent through a slowed bridge passes every run; with one agent line removed it fails every run at the same seq",
    async () => {
      const gate = ["--recordings", path.join(burstRoot, "recordings"), "--lanes", path.join(burstRoot, "lanes"), "--module", slowBridge];
      // The doctored copy: the agent's last fs/read_text_file request taken out of its lane.
      const base = await mkdtemp(path.join(tmpdir(), "parity-soak-"));
      temps.push(base);
      await cp(path.join(burstRoot, "recordings"), path.join(base, "recordings"), { recursive: true });
      await cp(path.join(burstRoot, "lanes"), path.join(base, "lanes"), { recursive: true });
      const dir = path.join(base, "recordings", "acp-cursor", "burst");
      const reads = (await readLane(dir, "provider→bridge")).filter((e) => messageOf(e).method === "fs/read_text_file");
      expect(reads.length).toBe(2);
      const removed = reads[1]!;
      const answer = (await readLane(dir, "bridge→provider")).find((e: LaneEntry) => e.seq > removed.seq && messageOf(e).id === messageOf(removed).id);
      expect(answer).toBeDefined();
      await editLane(dir, "provider→bridge", (entries) => entries.filter((e) => e.seq !== removed.seq));

      const result = await soak({
        runs: RUNS,
        busy: BUSY,
        gates: [
          { name: "burst", argv: gate },
          { name: "broken", argv: ["--recordings", path.join(base, "recordings"), "--lanes", path.join(base, "lanes"), "--module", slowBridge] },
        ],
      });
      const counts = formatCounts(result);
      expect(result.statuses.get("burst: acp-cursor/burst")?.get("pass"), counts).toBe(RUNS);
      expect(result.statuses.get("broken: acp-cursor/burst")?.get("fail"), counts).toBe(RUNS);
      expect(result.firstDivergences.get("broken: acp-cursor/burst"), counts).toEqual(new Array(RUNS).fill(String(answer!.seq)));
      expect(result.codes.get("broken")).toEqual(new Array(RUNS).fill(1));
      expect(result.differingRuns.size, counts).toBe(0);
    },
    BUDGET_MS,
  );
});
