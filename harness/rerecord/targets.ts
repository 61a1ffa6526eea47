/**
 * Where a rerecord writes, and whether it may (docs/design/00-product.md flow 4 and CLI `rerecord`;
 * spec 40 §8: recordings are never rewritten, a change is written beside, CI writes nothing).
 */
import path from "node:path";
import { CURRENT_BRIDGE_LANE_FILE } from "../recording/lane-entry.js";
import { isInside, realPathOf } from "../recording/paths.js";
import { InputError, UsageError } from "../errors.js";
import { isReadOnlyDir } from "../recording/file-state.js";

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

/** Where a rerecord would write, as {@link refuseInCi} checks it (absolute paths). */
export interface CiWriteCheck {
  /** The working directory: the project whose `recordings/` and `lanes/` CI must not write. */
  cwd: string;
  /** `--out <dir>`, when given; without it the current lanes go beside the recordings. */
  outDir?: string | undefined;
  /** The oracles directory in effect (`--lanes`, or `<out>/lanes`, or `lanes`). */
  lanesDir: string;
}

/**
 * Refuses a rerecord under CI that would write the project's own recordings or oracles
 * (docs/design/00-product.md, CLI: "In CI (`CI=true`) nothing writes oracles or recordings"): without
 * `--out` (current lanes go beside the recordings), or with `--out`/`--lanes` inside the working
 * directory (symbolic links resolved). An `--out` and oracles directory outside it are scratch
 * output, allowed in CI as `parity record --out` is.
 *
 * @throws UsageError (exit 2) when `ci` is true and a write would land in the project, saying why and what to run instead
 */
export async function refuseInCi(ci: boolean, where: CiWriteCheck): Promise<void> {
  if (!ci) return;
  if (where.outDir === undefined) {
    throw new UsageError(
      "rerecord writes bridge→runtime.current.ndjson beside each recording and oracles, and under CI=true nothing writes the project's recordings or oracles; " +
        "pass --out <dir> outside the working directory, or run it locally and commit the result (`parity check` is the CI gate)",
    );
  }
  const cwd = await realPathOf(where.cwd);
  for (const [flag, dir] of [
    ["--out", where.outDir],
    ["--lanes", where.lanesDir],
  ] as const) {
    if (isInside(cwd, await realPathOf(dir))) {
      throw new UsageError(
        `${flag} ${dir} is inside the working directory ${where.cwd}, and under CI=true nothing writes the project's recordings or oracles; point --out (and --lanes) outside it, e.g. a temp dir`,
      );
    }
  }
}

// `isReadOnlyDir` lives with the other file states (the gate's write policy asks it too, on a light import path).
export { isReadOnlyDir } from "../recording/file-state.js";

/**
 * The files one cell's rerecord writes: beside the recording (`<recording>/bridge→runtime.current.ndjson`)
 * and `<lanesDir>/<provider>/<cell>.json`, or with `--out` under `<out>/<provider>/<cell>/`.
 *
 * @throws InputError (exit 2) naming the recording directory when it is read-only and no `--out` was given
 */
export async function rerecordTargets(recordingDir: string, cell: { provider: string; cell: string }, options: TargetOptions): Promise<RerecordTargets> {
  const oracleFile = path.join(options.lanesDir, cell.provider, `${cell.cell}.json`);
  if (options.outDir !== undefined) {
    return { currentLaneFile: path.join(options.outDir, cell.provider, cell.cell, CURRENT_BRIDGE_LANE_FILE), oracleFile };
  }
  if (await isReadOnlyDir(recordingDir)) {
    throw new InputError(`recording directory is read-only; pass --out <dir> to write ${CURRENT_BRIDGE_LANE_FILE} and the oracle there instead`, { file: recordingDir });
  }
  return { currentLaneFile: path.join(recordingDir, CURRENT_BRIDGE_LANE_FILE), oracleFile };
}
