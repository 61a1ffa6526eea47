/**
 * Fewest cells worth a bridge of their own: a provider gets a second batch (a second bridge
 * start, a Node process and the bridge's modules) only from twice this many cells. Measured on
 * the seven real cursor cells at load 2 (issue 25): one bridge took 0.72× the CPU and 0.66× the
 * wall of two, each cell's replay costing well under a bridge's start-up.
 */
export const MIN_CELLS_PER_BATCH = 8;

/**
 * How `parity check` cuts the replayable cells into batches, each replayed through one bridge
 * process (`replayBatch`). A bridge start costs a Node process and the bridge's modules, so the
 * run uses as few as keep `jobs` workers busy and as the work is worth: each provider gets
 * batches in proportion to its share of all cells (`round(jobs × cells of provider ÷ all
 * cells)`, at least 1, at most `min(jobs, its cells ÷ MIN_CELLS_PER_BATCH)`), its cells dealt
 * round-robin over them. One provider alone gets `jobs` batches when it has cells enough; a
 * matrix of many providers gets about one bridge per provider, its parallelism coming from the
 * providers. Batches are returned longest first, so the workers
 * finish close together: by the times their cells took in earlier runs when `msOf` knows some
 * (a cell it does not know counts as the mean of those it does), else by their number of cells.
 * The order never changes a verdict.
 *
 * @param groups cell indexes per provider, in report order
 * @param jobs workers (≥ 1)
 * @param batch false: one batch (one bridge) per cell
 * @param msOf a cell's time in earlier runs, in ms (cell-times.ts), or undefined
 * @returns batches of cell indexes
 */
export function planBatches(groups: readonly (readonly number[])[], jobs: number, batch = true, msOf: (cell: number) => number | undefined = () => undefined): number[][] {
  const total = groups.reduce((sum, cells) => sum + cells.length, 0);
  const tasks: number[][] = [];
  for (const cells of groups) {
    if (cells.length === 0) continue;
    const worth = Math.max(1, Math.floor(cells.length / MIN_CELLS_PER_BATCH));
    const count = batch ? Math.min(Math.max(1, Math.round((jobs * cells.length) / total)), jobs, worth) : cells.length;
    for (let b = 0; b < count; b += 1) tasks.push(cells.filter((_, k) => k % count === b));
  }
  const known = tasks
    .flat()
    .map(msOf)
    .filter((ms): ms is number => ms !== undefined);
  const mean = known.length === 0 ? 0 : known.reduce((sum, ms) => sum + ms, 0) / known.length;
  const estimate = (task: number[]): number => task.reduce((sum, cell) => sum + (msOf(cell) ?? mean), 0);
  // Stable: equal estimates and sizes keep report order.
  return tasks
    .map((task, order) => ({ task, order, ms: estimate(task) }))
    .sort((a, b) => b.ms - a.ms || b.task.length - a.task.length || a.order - b.order)
    .map((t) => t.task);
}

/**
 * The providers of the batches the workers start with (the first `jobs` of {@link planBatches},
 * one entry per batch), planned from the cells' providers alone, before their recordings are read
 * (every cell taken as replayable): the bridges worth starting while the recordings are read.
 *
 * @param providers the provider of each cell, in report order
 */
export function firstBatchProviders(providers: readonly string[], jobs: number, batch = true, msOf: (cell: number) => number | undefined = () => undefined): string[] {
  const groups = new Map<string, number[]>();
  providers.forEach((provider, index) => groups.set(provider, [...(groups.get(provider) ?? []), index]));
  return planBatches([...groups.values()], jobs, batch, msOf)
    .slice(0, Math.max(1, jobs))
    .map((task) => providers[task[0]!]!);
}
