import { describe, expect, it } from "vitest";
import { firstBatchProviders, planBatches } from "../../harness/check/batch-plan.js";

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

describe("planBatches", () => {
  it("one provider alone gets jobs batches when its cells are worth them, its cells dealt round-robin", () => {
    expect(planBatches([range(0, 16)], 2)).toEqual([
      [0, 2, 4, 6, 8, 10, 12, 14],
      [1, 3, 5, 7, 9, 11, 13, 15],
    ]);
  });

  it("the seven real cursor cells replay through one bridge, whatever the cores (issue 25: two bridges cost more CPU and wall)", () => {
    expect(planBatches([range(0, 7)], 2)).toEqual([range(0, 7)]);
    expect(planBatches([range(0, 8)], 8)).toEqual([range(0, 8)]);
    expect(planBatches([range(0, 15)], 2)).toHaveLength(1);
  });

  it("the committed matrix (six providers, 29 replayable cells, 2 jobs) starts one bridge per provider, largest batch first", () => {
    const groups = [range(0, 4), range(4, 4), range(8, 4), range(12, 4), range(16, 9), range(25, 4)];
    const tasks = planBatches(groups, 2);
    expect(tasks).toHaveLength(6);
    expect(tasks[0]).toEqual(range(16, 9));
    expect(tasks.slice(1)).toEqual([range(0, 4), range(4, 4), range(8, 4), range(12, 4), range(25, 4)]);
  });

  it("a provider with most of the cells gets more than one batch, never more than its cells or jobs", () => {
    const tasks = planBatches([range(0, 40), [40]], 4);
    expect(tasks.map((t) => t.length)).toEqual([10, 10, 10, 10, 1]);
    expect(planBatches([range(0, 24), [24]], 8).map((t) => t.length)).toEqual([8, 8, 8, 1]);
    expect(planBatches([[0], [1]], 8)).toEqual([[0], [1]]);
  });

  it("--no-batch: one batch per cell; every cell is in exactly one batch", () => {
    expect(planBatches([range(0, 3), [3]], 2, false)).toEqual([[0], [1], [2], [3]]);
    const tasks = planBatches([range(0, 5), range(5, 11), range(16, 2)], 3);
    expect(tasks.flat().sort((a, b) => a - b)).toEqual(range(0, 18));
  });

  it("with earlier times, the batch expected to take longest starts first, even a small one; unknown cells count as the mean", () => {
    // The committed matrix's acp-pi batch waits out a 5 s agent-turn quiet period: started last, it
    // would leave the other worker idle that long.
    const groups = [range(0, 9), range(9, 5), range(14, 4)];
    const ms = new Map<number, number>([...range(0, 9).map((i) => [i, 100] as [number, number]), [9, 5000], [10, 40], ...range(14, 4).map((i) => [i, 10] as [number, number])]);
    expect(planBatches(groups, 2, true, (cell) => ms.get(cell))).toEqual([range(9, 5), range(0, 9), range(14, 4)]);
    // Cells 11-17 unknown: each counts as the mean of the known (5940 / 11 = 540 ms), so the four
    // unknown cells (2160 ms) outrank nine cells known to take 100 ms each.
    for (const cell of range(11, 7)) ms.delete(cell);
    expect(planBatches(groups, 2, true, (cell) => ms.get(cell))).toEqual([range(9, 5), range(14, 4), range(0, 9)]);
    // No history: largest batch first, as before.
    expect(planBatches(groups, 2)).toEqual([range(0, 9), range(9, 5), range(14, 4)]);
  });
});

describe("firstBatchProviders", () => {
  it("names the provider of each batch the workers start with: one provider alone twice when worth it, a matrix its two longest", () => {
    expect(firstBatchProviders(Array(8).fill("acp-cursor"), 2)).toEqual(["acp-cursor"]);
    expect(firstBatchProviders(Array(16).fill("acp-cursor"), 2)).toEqual(["acp-cursor", "acp-cursor"]);
    const providers = [...Array(9).fill("acp-opencode"), ...Array(5).fill("acp-pi"), ...Array(4).fill("echo")];
    expect(firstBatchProviders(providers, 2)).toEqual(["acp-opencode", "acp-pi"]);
    // acp-pi's cells took longest before: it starts first.
    expect(firstBatchProviders(providers, 2, true, (i) => (providers[i] === "acp-pi" ? 2000 : 10))).toEqual(["acp-pi", "acp-opencode"]);
    expect(firstBatchProviders(["echo"], 4)).toEqual(["echo"]);
  });
});
