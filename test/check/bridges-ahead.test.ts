/**
 * `checkCells` asks for each later batch's bridge while the batch before it on its worker runs
 * (`startBridge`, which `parity check` points at its bridge pool): with one worker and three
 * providers' committed cells, the second batch's provider is asked for when the first starts,
 * the third's when the second starts, and nothing for the last. The verdicts are the same with
 * the bridges started ahead (taken from a real pool) as without.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkCells } from "../../harness/check/check-cells.js";
import { selectRecordings } from "../../harness/recording/select.js";
import { createBridgePool } from "../../harness/replay/bridge/bridge-pool.js";
import { repoRoot } from "../replay/helpers.js";

describe("bridges started ahead of their batches", () => {
  it("asks for the next batch's bridge as each batch starts, and the verdicts do not change", async () => {
    const all = await selectRecordings([path.join(repoRoot, "recordings")], {});
    const locations = ["echo", "acp-omp-fixture", "acp-grok"].flatMap((provider) => all.filter((l) => l.provider === provider).slice(0, 2));
    const base = { locations, repoRoot, lanesDir: path.join(repoRoot, "lanes"), allowlist: [], jobs: 1, write: "never" as const };
    const asked: string[] = [];
    const plain = await checkCells({ ...base, startBridge: (provider) => asked.push(provider) });
    // One worker: three batches (one per provider, largest first, report order on ties); the
    // first was the caller's to start.
    expect(asked).toEqual(["acp-omp-fixture", "acp-grok"]);

    const pool = createBridgePool();
    pool.start("echo");
    try {
      const pooled = await checkCells({ ...base, replay: { bridges: pool }, startBridge: (provider) => pool.start(provider) });
      const verdicts = (run: typeof plain) => run.run.cells.map((c) => [c.provider, c.cell, c.status, c.events]);
      expect(verdicts(pooled)).toEqual(verdicts(plain));
      expect(pooled.run.cells.every((c) => c.status === "pass")).toBe(true);
    } finally {
      await pool.close();
    }
  });
});
