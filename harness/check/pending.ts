/**
 * Pending results of a gate run under the `pending` and `in-place` write policies
 * (write-policy.ts): for each changed cell that can be accepted (`whyNotAcceptable`), what
 * accepting it would write — its oracle, and its `bridge→runtime.current.ndjson` only when the
 * bridge's output changed (`rerecordFromReplay`, as `parity rerecord` writes them) — is written
 * now as `<file>.pending`, made from the gate's own replay of the cell (`checkCells` keeps it),
 * so `parity review` and `check --update` accept it by renaming and reject it by deleting, and
 * nothing replays the cell again. A current lane to be written is replayed once to verify it,
 * as `parity rerecord` does (the recording it would make must replay).
 */
import path from "node:path";
import { InputError } from "../errors.js";
import { CURRENT_BRIDGE_LANE_FILE } from "../recording/lane-entry.js";
import type { RecordingLocation } from "../recording/reader.js";
import type { CellResult } from "../report/check-report.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import { acceptCell, whyNotAcceptable, writtenFiles } from "../rerecord/accept.js";
import { rerecordRedactor } from "../rerecord/redaction.js";
import type { ReplayedCell } from "../rerecord/replayed-cell.js";
import type { Redactor } from "../recording/redact.js";
import type { RerecordCellOutcome } from "../rerecord/rerecord-cell.js";
import { pendingFile, rejectPending } from "./write-policy.js";

/**
 * What the gate wrote as pending for one changed cell: the accepted files (absolute) that now have
 * a `.pending` beside them (none when nothing would change), the rerecord's outcome (absent for a
 * missing oracle, whose live lane the comparison itself wrote), or the input problem that stopped it.
 */
export interface PendingResult {
  files: string[];
  outcome?: RerecordCellOutcome;
  problem?: string;
}

/**
 * Writes the pending results of `cells` (see the module comment) from `replayed` (the gate's
 * replay of each changed cell, by `provider/cell`; `checkCells`) and returns them by
 * `provider/cell`; each such cell's `detail.pending` lists its files. A changed cell with no
 * replay there gets none. A cell that passed has any pending results of an earlier run deleted:
 * nothing is left to accept there.
 * @throws what is not an input error (a recording that cannot be read becomes `problem`)
 */
export async function writePendingResults(
  cells: CellResult[],
  locations: readonly RecordingLocation[],
  replayed: ReadonlyMap<string, ReplayedCell>,
  options: { lanesDir: string; replay: ReplayRecordingOptions },
): Promise<Map<string, PendingResult>> {
  const out = new Map<string, PendingResult>();
  // One redactor per run (redaction.ts), as `parity rerecord` makes it; made once a cell needs it.
  let redactor: Redactor | undefined;
  for (const cell of cells) {
    const name = `${cell.provider}/${cell.cell}`;
    const location = locations.find((l) => l.provider === cell.provider && l.cell === cell.cell);
    if (location === undefined) continue;
    if (cell.status === "pass") {
      await rejectPending([path.join(options.lanesDir, cell.provider, `${cell.cell}.json`), path.join(location.dir, CURRENT_BRIDGE_LANE_FILE)]);
      continue;
    }
    if (cell.detail?.missingOracle === true && cell.detail.pending !== undefined) {
      out.set(name, { files: cell.detail.pending });
      continue;
    }
    const replay = replayed.get(name);
    if (whyNotAcceptable(cell) !== undefined || replay === undefined) continue;
    try {
      const outcome = await acceptCell(location, replay, { lanesDir: options.lanesDir, replay: options.replay, writeTo: pendingFile, redactor: (redactor ??= rerecordRedactor({ patterns: [] })) });
      const files = writtenFiles(outcome);
      out.set(name, { files, outcome });
      cell.detail = { ...cell.detail, pending: files };
    } catch (thrown) {
      if (!(thrown instanceof InputError)) throw thrown;
      out.set(name, { files: [], problem: thrown.message });
    }
  }
  return out;
}
