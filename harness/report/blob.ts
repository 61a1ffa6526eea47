/**
 * Shard blobs and their merge (as Playwright's blob reporter and `merge-reports`): a sharded
 * `parity check --shard i/n --reporter blob` writes the whole run result of its shard — every
 * cell with its detail (verdict, diff script, oracle lines) and its position in the unsharded
 * selection — as one JSON document; `parity merge-reports` reads the n blobs and rebuilds one run
 * in the unsharded order, which any reporter renders (JSON, JUnit, HTML, text, GitHub).
 */
import { InputError } from "../errors.js";
import type { CellResult, CheckRunResult } from "./check-report.js";

/** Version of the blob document. */
export const BLOB_VERSION = 1;

/** One shard's blob. `positions[k]` is `cells[k]`'s index in the unsharded selection of `total` cells. */
export interface ShardBlob {
  parityBlob: typeof BLOB_VERSION;
  shard: { index: number; count: number };
  total: number;
  ms: number;
  positions: number[];
  cells: CellResult[];
  flags?: CheckRunResult["flags"];
}

/** Renders a run as its blob (newline-terminated JSON). A run without shard data is shard 1/1. */
export function renderBlob(run: CheckRunResult): string {
  const blob: ShardBlob = {
    parityBlob: BLOB_VERSION,
    shard: run.shard ?? { index: 1, count: 1 },
    total: run.total ?? run.cells.length,
    ms: run.ms,
    positions: run.positions ?? run.cells.map((_, k) => k),
    cells: run.cells,
    ...(run.flags !== undefined ? { flags: run.flags } : {}),
  };
  return `${JSON.stringify(blob)}\n`;
}

/**
 * Reads one blob's text.
 * @throws InputError `<file>: not a parity shard blob (…)` naming what is wrong.
 */
export function parseBlob(text: string, file: string): ShardBlob {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (thrown) {
    throw new InputError(`${file}: not a parity shard blob (not JSON: ${(thrown as Error).message})`);
  }
  const blob = value as Partial<ShardBlob> | null;
  if (blob === null || typeof blob !== "object" || blob.parityBlob === undefined) throw new InputError(`${file}: not a parity shard blob (write one with check --reporter blob)`);
  if (blob.parityBlob !== BLOB_VERSION) throw new InputError(`${file}: blob version ${String(blob.parityBlob)}, this parity reads version ${BLOB_VERSION}`);
  const ok =
    typeof blob.shard?.index === "number" &&
    typeof blob.shard.count === "number" &&
    typeof blob.total === "number" &&
    typeof blob.ms === "number" &&
    Array.isArray(blob.cells) &&
    Array.isArray(blob.positions) &&
    blob.positions.length === blob.cells.length;
  if (!ok) throw new InputError(`${file}: not a parity shard blob (missing shard, total, ms, cells or positions)`);
  return blob as ShardBlob;
}

/**
 * Merges the blobs of one sharded run into the run the unsharded check would have given: cells
 * in the unsharded order; `ms` the longest shard's (the shards ran side by side).
 * @throws InputError when the blobs are of different runs (shard counts or totals disagree), a
 *   shard is given twice or missing, or the cells do not add up to the total.
 */
export function mergeBlobs(blobs: ReadonlyArray<{ file: string; blob: ShardBlob }>): CheckRunResult {
  if (blobs.length === 0) throw new InputError("no shard blobs to merge");
  const { count, index } = blobs[0]!.blob.shard;
  const total = blobs[0]!.blob.total;
  const seen = new Map<number, string>();
  for (const { file, blob } of blobs) {
    if (blob.shard.count !== count || blob.total !== total) {
      throw new InputError(`${file}: shard ${blob.shard.index}/${blob.shard.count} of ${blob.total} cells, but ${blobs[0]!.file} is ${index}/${count} of ${total}: blobs of different runs`);
    }
    const twice = seen.get(blob.shard.index);
    if (twice !== undefined) throw new InputError(`${file}: shard ${blob.shard.index}/${count} given twice (also ${twice})`);
    seen.set(blob.shard.index, file);
  }
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !seen.has(k));
  if (missing.length > 0) throw new InputError(`shard ${missing.map((k) => `${k}/${count}`).join(", ")} missing: merge every shard's blob`);
  const placed: Array<CellResult | undefined> = new Array(total).fill(undefined);
  for (const { file, blob } of blobs) {
    blob.cells.forEach((cell, k) => {
      const at = blob.positions[k]!;
      if (at < 0 || at >= total || placed[at] !== undefined) throw new InputError(`${file}: cell ${cell.provider}/${cell.cell} at position ${at} clashes with another shard's`);
      placed[at] = cell;
    });
  }
  if (placed.some((cell) => cell === undefined)) throw new InputError(`the blobs hold ${placed.filter(Boolean).length} of ${total} cells`);
  const flags = blobs[0]!.blob.flags;
  return { ms: Math.max(...blobs.map((b) => b.blob.ms)), cells: placed as CellResult[], ...(flags !== undefined ? { flags } : {}) };
}
