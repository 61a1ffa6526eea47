/**
 * `--shard i/n`: which cells one of `n` parallel CI jobs checks. Its own light module, since
 * `parity check` parses the flag before it loads the replay engine (harness/cli/check.ts).
 */
import { UsageError } from "../errors.js";

/** Parses `--shard i/n` (1 ≤ i ≤ n). @throws UsageError on anything else. */
export function parseShard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard ${text}: expected i/n with 1 ≤ i ≤ n, e.g. 1/2`);
  }
  return { index, count };
}

/** The cells of shard `index` of `count`: every `count`-th cell of the sorted list, starting at `index − 1`. */
export function shardCells<T>(cells: readonly T[], shard: { index: number; count: number }): T[] {
  return cells.filter((_, i) => i % shard.count === shard.index - 1);
}
