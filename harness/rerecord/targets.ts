/**
 * Where a rerecord writes, and whether it may (00-product.md flow 4 and CLI `rerecord`;
 * spec 40 §8: recordings are never rewritten, a change is written beside, CI writes nothing).
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { CURRENT_BRIDGE_LANE_FILE } from "../recording/lane-entry.js";
import { InputError, UsageError } from "../errors.js";

/** The two files one cell's rerecord writes (absolute paths). */
export interface RerecordTargets {
  /** `bridge→runtime.current.ndjson`, beside the recording or under `--out`. */
  currentLaneFile: string;
  /** The oracle `<lanes>/<provider>/<cell>.json`. */
  oracleFile: string;
}

/** How {@link rerecordTargets} decides (paths absolute). */
export interface TargetOptions {
  /** `--out <dir>`: write `<out>/<provider>/<cell>/…` and `<out>/lanes/…` instead. */
  outDir?: string | undefined;
  /** `--lanes <dir>`: the oracles directory (default `<out>/lanes` with `--out`, else `lanes`). */
  lanesDir: string;
}

/**
 * Refuses any write under CI (00-product.md, CLI: "In CI (`CI=true`) nothing writes oracles
 * or recordings").
 *
 * @throws UsageError (exit 2) when `ci` is true, saying why and what to run instead
 */
export function refuseInCi(ci: boolean): void {
  if (!ci) return;
  throw new UsageError(
    "rerecord writes bridge→runtime.current.ndjson and oracles, and under CI=true nothing writes; run it locally and commit the result (`parity check` is the CI gate)",
  );
}

/**
 * True when `dir` must be treated as read-only: the process may not write it, or no write
 * permission bit is set at all (a directory made read-only on purpose, e.g. shared
 * recordings, even when the superuser could still write it).
 */
export async function isReadOnlyDir(dir: string): Promise<boolean> {
  try {
    await access(dir, constants.W_OK);
  } catch {
    return true;
  }
  const mode = (await stat(dir)).mode;
  return (mode & 0o222) === 0;
}

/**
 * The files one cell's rerecord writes: beside the recording (`<recording>/bridge→runtime.current.ndjson`)
 * and `<lanesDir>/<provider>/<cell>.json`, or with `--out` under `<out>/<provider>/<cell>/`.
 *
 * @throws InputError (exit 2) naming the recording directory when it is read-only and no `--out` was given
 */
export async function rerecordTargets(
  recordingDir: string,
  cell: { provider: string; cell: string },
  options: TargetOptions,
): Promise<RerecordTargets> {
  const oracleFile = path.join(options.lanesDir, cell.provider, `${cell.cell}.json`);
  if (options.outDir !== undefined) {
    return { currentLaneFile: path.join(options.outDir, cell.provider, cell.cell, CURRENT_BRIDGE_LANE_FILE), oracleFile };
  }
  if (await isReadOnlyDir(recordingDir)) {
    throw new InputError(
      `recording directory is read-only; pass --out <dir> to write ${CURRENT_BRIDGE_LANE_FILE} and the oracle there instead`,
      { file: recordingDir },
    );
  }
  return { currentLaneFile: path.join(recordingDir, CURRENT_BRIDGE_LANE_FILE), oracleFile };
}
