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
import { oracleVersionFile } from "../recording/oracle-version.js";
import type { RecordingLocation } from "../recording/reader.js";
import type { CellResult } from "../report/check-report.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import { acceptCell, whyNotAcceptable, writtenFiles } from "../rerecord/accept.js";
import { rerecordRedactor } from "../rerecord/redaction.js";
import type { ReplayedCell } from "../rerecord/replayed-cell.js";
import type { Redactor } from "../recording/redact.js";
import type { RerecordCellOutcome } from "../rerecord/rerecord-cell.js";
import { hasPendingRecording, pendingFile, readOnlyReason, rejectPending } from "./write-policy.js";
import { FileWriteError } from "../recording/atomic-write.js";
import { shownPath } from "../recording/paths.js";

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
 * replay there gets none. A cell that passed, or failed with nothing to accept, has any pending
 * results of an earlier run deleted. A cell whose files cannot be written (a read-only oracles or
 * recording directory, `readOnlyReason`; a write the file system refuses) gets none at all and
 * its `problem` says why: a current lane is never left pending without its oracle. `cwd`: the
 * project, paths in problems are shown relative to it; `notWritten`: why the gate did not write a
 * missing oracle, by `provider/cell` (check-cells.ts `CellExtras.notWritten`).
 * @throws what is not an input error (a recording that cannot be read becomes `problem`)
 */
export async function writePendingResults(
  cells: CellResult[],
  locations: readonly RecordingLocation[],
  replayed: ReadonlyMap<string, ReplayedCell>,
  options: { lanesDir: string; replay: ReplayRecordingOptions; cwd: string; notWritten?: ReadonlyMap<string, string> },
): Promise<Map<string, PendingResult>> {
  const out = new Map<string, PendingResult>();
  // One redactor per run (redaction.ts), as `parity rerecord` makes it; made once a cell needs it.
  let redactor: Redactor | undefined;
  for (const cell of cells) {
    const name = `${cell.provider}/${cell.cell}`;
    const location = locations.find((l) => l.provider === cell.provider && l.cell === cell.cell);
    if (location === undefined) continue;
    const oracleFile = path.join(options.lanesDir, cell.provider, `${cell.cell}.json`);
    const targets = [oracleFile, oracleVersionFile(oracleFile), path.join(location.dir, CURRENT_BRIDGE_LANE_FILE)];
    // A new recording waits beside this one (`parity drift --accept`): its pending oracle is the new
    // recording's, which this run did not replay; only `parity review` accepts or rejects them.
    if (await hasPendingRecording(location.dir)) continue;
    if (cell.status === "pass") {
      await rejectPending(targets);
      continue;
    }
    if (cell.detail?.missingOracle === true) {
      if (cell.detail.pending !== undefined) out.set(name, { files: cell.detail.pending });
      else if (options.notWritten?.has(name) === true) out.set(name, { files: [], problem: options.notWritten.get(name)! });
      continue;
    }
    const replay = replayed.get(name);
    if (whyNotAcceptable(cell) !== undefined || replay === undefined) {
      // A failing cell with nothing to accept this time: what an earlier run left pending for it
      // no longer says what accepting would write (a cell without a verdict keeps it).
      if (cell.status === "fail") await rejectPending(targets);
      continue;
    }
    // Asked before anything is written, so a cell gets all its pending files or none.
    const readOnly = await readOnlyReason([path.dirname(oracleFile), location.dir], options.cwd);
    if (readOnly !== undefined) {
      out.set(name, { files: [], problem: readOnly });
      continue;
    }
    try {
      const outcome = await acceptCell(location, replay, { lanesDir: options.lanesDir, replay: options.replay, writeTo: pendingFile, redactor: (redactor ??= rerecordRedactor({ patterns: [] })) });
      const files = writtenFiles(outcome);
      out.set(name, { files, outcome });
      cell.detail = { ...cell.detail, pending: files };
    } catch (thrown) {
      if (!(thrown instanceof InputError)) throw thrown;
      // A current lane written before a failing oracle write is not left behind on its own.
      await rejectPending(targets);
      out.set(name, { files: [], problem: thrown instanceof FileWriteError ? `${shownPath(thrown.target, options.cwd)}: ${thrown.problem}` : thrown.message });
    }
  }
  return out;
}
