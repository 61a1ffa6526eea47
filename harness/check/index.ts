/**
 * The gate (docs/design/00-product.md flows 2–3): the selected cells replayed (several cells of one
 * provider through one bridge process), compared with their committed oracles under the
 * allowlist, and turned into cell results for the reporters. `parity check`, `parity review`
 * and `bridge-parity/vitest` drive it.
 */
export { parseShard, shardCells } from "./shard.js";
export { checkCells, type CheckCellsOptions, type CheckCellsResult } from "./check-cells.js";
export type { CellExtras } from "./compare-cell.js";
export { replayBatch } from "./batch.js";
export { planBatches } from "./batch-plan.js";
