/**
 * Determinism over the whole matrix (docs/design/00-product.md, Determinism), the thorough part of
 * test/gate/determinism.test.ts: every committed cell (`recordings/`) and every shared
 * acp-cursor cell (read by path, never copied) passes every one of RUNS runs of
 * `parity check --reporter json` with BUSY spinning processes pinned to the cores, with a
 * byte-identical report apart from times; a failure prints per-cell pass counts.
 *
 * Not in `npm test`: it replays the whole matrix RUNS times, and `.ci/run` runs it after the
 * suite (`npm run test:ci`, RUNS=3, BUSY=2); `npm run soak` runs RUNS=20, BUSY=8. Needs a fresh
 * `dist/`. Nothing here is timed: the per-test budget only bounds a hang.
 */
import { describe, expect, it } from "vitest";
import { envCount, formatCounts, soak } from "./soak.js";

const RUNS = envCount("PARITY_SOAK_RUNS", 3);
const BUSY = envCount("PARITY_SOAK_BUSY", 2);
/** Bounds a hang only: a generous 4 minutes per run of the whole matrix on a loaded 2-core machine. */
const BUDGET_MS = RUNS * 240_000;

describe(`determinism of the whole matrix: ${RUNS} runs with ${BUSY} busy processes on the cores`, () => {
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
      const counts = formatCounts(result);
      for (const [key, statuses] of result.statuses) {
        // Process-scoped cells are skipped by the gate, the same way every run.
        if (statuses.has("skip")) {
          expect(key).toMatch(/\/model-list$/);
          expect(statuses.get("skip")).toBe(RUNS);
          continue;
        }
        expect(statuses.get("pass") ?? 0, `${key} did not pass every run:\n${counts}`).toBe(RUNS);
      }
      expect(result.differingRuns.size, counts).toBe(0);
    },
    BUDGET_MS,
  );
});
