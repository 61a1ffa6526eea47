/**
 * `parity rerecord` over selected cells (docs/design/00-product.md flow 4, CLI `rerecord`; spec 10 §6.6):
 * which cells are rerecorded, where each writes, and the run's exit code.
 */
import { EXIT_CODES } from "../errors.js";
import { manifestCellOf } from "../recording/alternates.js";
import { readRecording, type Recording, type RecordingLocation } from "../recording/reader.js";
import type { Redactor } from "../recording/redact.js";
import { replaySkipReason } from "../replay/bridge/profiles.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import { rerecordCell, type RerecordCellOutcome } from "./rerecord-cell.js";
import { rerecordTargets, type RerecordTargets, type TargetOptions } from "./targets.js";

/** Options of {@link rerecordCells} (paths absolute). */
export interface RerecordCellsOptions extends TargetOptions {
  /** The selected cells, in order. */
  locations: readonly RecordingLocation[];
  redactor: Redactor;
  /** Passed to every replay (e.g. `modulePath`, `timeouts`). */
  replay?: ReplayRecordingOptions;
  /** See `RerecordCellOptions.alwaysWriteCurrent` (default false). */
  alwaysWriteCurrent?: boolean;
  /** Called with each outcome as soon as its cell is done (progress output). */
  onOutcome?: (outcome: RerecordOutcome) => void;
}

/** A cell that is not rerecorded: process-scoped, or its provider has no replay profile. */
export interface RerecordSkip {
  status: "skipped";
  provider: string;
  cell: string;
  reason: string;
}

/** One cell's outcome. */
export type RerecordOutcome = RerecordCellOutcome | RerecordSkip;

/**
 * Why a recording is not rerecorded, or null when it is a replayable thread-scoped cell
 * (spec 10 §6.6: "each replayable, thread-scoped cell"). With a `modulePath` override
 * every provider is replayable.
 */
export function skipReason(recording: Recording, replay: ReplayRecordingOptions | undefined): string | null {
  return replaySkipReason(recording.manifest, replay) ?? null;
}

/**
 * Rerecords each selected cell in order (see `rerecordCell`). Every recording is read and
 * every target resolved before the first replay, so a bad recording or a read-only target
 * without `--out` refuses the whole run before anything is written.
 *
 * @throws InputError (exit 2) for a bad recording or a read-only recording directory without `--out`
 */
export async function rerecordCells(options: RerecordCellsOptions): Promise<RerecordOutcome[]> {
  const planned: Array<{ recording: Recording; targets: RerecordTargets } | RerecordSkip> = [];
  for (const location of options.locations) {
    const recording = await readRecording(location.dir, { expect: { provider: location.provider, cell: manifestCellOf(location) } });
    const reason = skipReason(recording, options.replay);
    if (reason !== null) {
      planned.push({ status: "skipped", provider: location.provider, cell: location.cell, reason });
      continue;
    }
    const targets = await rerecordTargets(location.dir, location, options);
    planned.push({ recording, targets });
  }
  const outcomes: RerecordOutcome[] = [];
  for (const item of planned) {
    const outcome =
      "status" in item
        ? item
        : await rerecordCell(item.recording, {
            targets: item.targets,
            redactor: options.redactor,
            ...(options.replay ? { replay: options.replay } : {}),
            ...(options.alwaysWriteCurrent === true ? { alwaysWriteCurrent: true } : {}),
          });
    outcomes.push(outcome);
    options.onOutcome?.(outcome);
  }
  return outcomes;
}

/**
 * The exit code of a rerecord run (docs/design/00-product.md, CLI): 4 when any cell timed out (no verdict,
 * nothing written for it), else 3 when a secret survived redaction (spec 10 §4), else 1 when any
 * cell diverged or was refused, else 0 (skips do not fail).
 */
export function rerecordExitCode(outcomes: readonly RerecordOutcome[]): number {
  let code = 0;
  if (outcomes.some((o) => o.status === "timeout")) return EXIT_CODES.infrastructureTimeout;
  for (const o of outcomes) {
    if (o.status === "diverged") code = Math.max(code, 1);
    if (o.status === "refused") code = Math.max(code, o.exitCode);
  }
  return code;
}
