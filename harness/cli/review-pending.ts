/**
 * The pending results an earlier local `parity check` left on disk (harness/check/pending.ts:
 * `lanes/<provider>/<cell>.json.pending` and `<recording>/bridge→runtime.current.ndjson.pending`),
 * made into the cells `parity review` walks without replaying anything — as `cargo insta review`
 * walks the `.snap.new` files a test run left (issue 28 point 2).
 *
 * A pending cell's differences are worked out from files alone, as the gate worked them out from
 * its replay: the live leg is what accepting would make the oracle (the pending oracle, or the
 * oracle itself when only the current bridge lane is pending), compared under today's allowlists
 * with the committed oracle and with the recording's own lane assembled as it stands. A pending
 * oracle holds events only, so a difference in the `provider/unhandled` count or the grammar
 * drops alone shows no difference here (`whyNotAcceptable` says so; `parity check` again
 * refreshes such a cell).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { readOracleOnly } from "../check/compare-cell.js";
import { crossRunInput, loadCrossRunFacts } from "../check/cross-run.js";
import { hasPendingRecording, pendingFile, pendingRecordingDir } from "../check/write-policy.js";
import type { PendingResult } from "../check/pending.js";
import { recordedLeg } from "../compare/cell-legs.js";
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import { compareParity, type ParityLeg } from "../compare/parity.js";
import { InputError } from "../errors.js";
import { fileState } from "../recording/file-state.js";
import { CURRENT_BRIDGE_LANE_FILE } from "../recording/lane-entry.js";
import { oracleVersionFile } from "../recording/oracle-version.js";
import { manifestCellOf } from "../recording/alternates.js";
import { readRecording, type RecordingLocation } from "../recording/reader.js";
import type { Manifest } from "../recording/manifest.js";
import { importedFrom } from "../record/import-record-dir.js";
import { cellResultFromVerdict, erroredCell, type CellResult } from "../report/check-report.js";

/**
 * Which command left a cell's pending results: an earlier `parity check` (a changed cell, or a
 * recording without an oracle), `parity drift --accept` (a new agent version's recording waiting
 * in a cell's place), `parity record` (a new recording the project does not have: an alternate
 * path kept by `--keep-alternates`, or a new cell), `parity import` (an imported session's
 * recording, written in place, with its first oracle pending).
 */
export type PendingSource = "check" | "drift" | "record" | "import";

/** Each source as the review names it, and what accepting a cell of it does. */
export const PENDING_SOURCES: Readonly<Record<PendingSource, { from: string; accept: string }>> = {
  check: { from: "an earlier parity check", accept: "rerecord this cell" },
  drift: { from: "parity drift --accept", accept: "put the new agent version's recording and oracle in place" },
  record: { from: "parity record (new recordings)", accept: "add the new recording and its oracle to the gate" },
  import: { from: "parity import", accept: "give the imported recording its first oracle" },
};

/** One cell with pending results on disk: the cell as the review shows it, its pending files, and where they came from. */
export interface PendingCell {
  cell: CellResult;
  pending: PendingResult;
  from: PendingSource;
}

/** Where the pending files are looked for and what they are compared with (paths absolute). */
export interface PendingCellsOptions {
  /** The oracles directory (`lanes/`). */
  lanesDir: string;
  /** The project: the cell's report names its files relative to it. */
  repoRoot: string;
  allowlist: readonly LoadedAllowlistEntry[];
  /** The cell definitions root: a new alternate path is held to its cell's oracle, another run, with the cell's facts (check/cross-run.ts). Absent: without them. */
  cellsRoot?: string;
}

/** The accepted files of `location` that have a `.pending` beside them (absolute), oracle first. */
async function pendingFilesOf(location: RecordingLocation, lanesDir: string): Promise<string[]> {
  const oracleFile = path.join(lanesDir, location.provider, `${location.cell}.json`);
  // The oracle's version sidecar (recording/oracle-version.ts) is accepted and rejected with it.
  const candidates = [oracleFile, oracleVersionFile(oracleFile), path.join(location.dir, CURRENT_BRIDGE_LANE_FILE)];
  const found: string[] = [];
  for (const file of candidates) if ((await fileState(pendingFile(file))) === "file") found.push(file);
  // A whole new recording waiting to replace this one (`parity drift --accept`): accepted with its oracle.
  if (await hasPendingRecording(location.dir)) found.push(location.dir);
  return found;
}

/** The review's cell for one location with pending files (see the module comment), and their source. @throws InputError for a file that cannot be read */
async function pendingCell(location: RecordingLocation, files: string[], options: PendingCellsOptions): Promise<{ cell: CellResult; from: PendingSource }> {
  const oracleFile = path.join(options.lanesDir, location.provider, `${location.cell}.json`);
  const hasOracle = (await fileState(oracleFile)) === "file";
  const pendingOracle = files.includes(oracleFile);
  const oracle = hasOracle ? await readOracleOnly(oracleFile) : null;
  // The live lane's events only: a pending oracle holds no counts, and the oracle's own are no live ones.
  const live: ParityLeg = { events: (await readOracleOnly(pendingOracle ? pendingFile(oracleFile) : oracleFile)).events };
  // The recording accepting would leave: the pending one when a new recording waits.
  const recordingDir = files.includes(location.dir) ? pendingRecordingDir(location.dir) : location.dir;
  const recording = await readRecording(recordingDir, { expect: { provider: location.provider, cell: manifestCellOf(location) } });
  const recorded = await recordedLeg(recording).load();
  const isNew = files.includes(location.dir) && !existsSync(location.dir);
  // A new alternate path is shown as what it does otherwise than the cell's own path (its oracle).
  const alternateOf = isNew ? recording.manifest.alternateOf : undefined;
  const cellOracle = alternateOf === undefined ? undefined : path.join(options.lanesDir, location.provider, `${alternateOf.cell}.json`);
  const against = oracle ?? (cellOracle !== undefined && (await fileState(cellOracle)) === "file" ? await readOracleOnly(cellOracle) : null);
  // The cell's oracle came from another live run than the new path: compared as check compares a
  // fresh re-record (cross-run.ts), so the review shows what the path does otherwise, not a run's noise.
  const across =
    alternateOf === undefined || oracle !== null
      ? {}
      : crossRunInput(
          options.cellsRoot === undefined ? undefined : await loadCrossRunFacts(options.cellsRoot, [{ provider: location.provider, cell: alternateOf.cell }]),
          location.provider,
          alternateOf.cell,
        );
  const verdict = compareParity({ provider: location.provider, cell: location.cell, allowlist: options.allowlist, recordingDir: location.dir, live, oracle: against, recorded, ...across });
  const cell = cellResultFromVerdict({ verdict, status: "fail", ms: 0, events: live.events.length, recordingDir: location.dir, projectDir: options.repoRoot, oracleFile });
  const shown = files.map((f) => path.relative(options.repoRoot, f === location.dir ? pendingRecordingDir(f) : pendingFile(f))).join(", ");
  // A new recording the project does not have yet (pending-recordings.ts) is `record`'s; a new
  // recording waiting in a cell's place is `parity drift --accept`'s (an agent upgrade); a first
  // oracle of a recording `parity import` wrote is the import's; anything else a check's result.
  const from: PendingSource = isNew ? "record" : files.includes(location.dir) ? "drift" : !hasOracle && importedFrom(recording.manifest) !== undefined ? "import" : "check";
  const words: Record<PendingSource, () => string> = {
    record: () => newRecordingWords(recording.manifest, shown),
    drift: () => `pending from parity drift --accept, a new recording of ${recording.manifest.cliVersion} (accepting puts it and its oracle in place): ${shown}`,
    import: () => `pending from parity import of ${importedFrom(recording.manifest)!} (accepting gives the recording its first oracle): ${shown}`,
    check: () => `pending from an earlier parity check (not replayed again): ${shown}`,
  };
  cell.detail = {
    ...cell.detail,
    pending: files,
    error: words[from](),
    // A new recording has no oracle yet by nature: accepting it (not check -u) writes both.
    ...(hasOracle || isNew ? {} : { missingOracle: true }),
    ...(files.includes(location.dir) ? { pendingRecording: true } : {}),
    ...(isNew ? { newRecording: true } : {}),
  };
  return { cell, from };
}

/**
 * What the review says of a new recording the project does not have yet (pending-recordings.ts):
 * an alternate path with why it was kept and the runs that took each path, or a new cell.
 */
function newRecordingWords(manifest: Manifest, shown: string): string {
  const alt = manifest.alternateOf;
  if (alt === undefined) return `new recording of a cell the project does not have yet (${manifest.cliVersion}): ${shown}`;
  const runs = alt.evidence?.paths.map((p) => `path ${p.path}: ${p.runs.length === 1 ? "run" : "runs"} ${p.runs.join(", ")}`).join("; ");
  const evidence = alt.evidence !== undefined ? ` (${alt.evidence.runs} runs; ${runs})` : "";
  return `new alternate path ${alt.path} of cell ${alt.cell} (${manifest.cliVersion}): ${alt.why}${evidence}: ${shown}`;
}

/**
 * The cells among `locations` that have pending results on disk, in their order, each with the
 * differences its pending files make (see the module comment); none when no `.pending` file is
 * there. A file that cannot be read makes that cell an `error` (its one line), never a throw.
 * @throws what is not an input error
 */
export async function pendingCellsOnDisk(locations: readonly RecordingLocation[], options: PendingCellsOptions): Promise<PendingCell[]> {
  const out: PendingCell[] = [];
  for (const location of locations) {
    const files = await pendingFilesOf(location, options.lanesDir);
    if (files.length === 0) continue;
    try {
      out.push({ ...(await pendingCell(location, files, options)), pending: { files } });
    } catch (thrown) {
      if (!(thrown instanceof InputError)) throw thrown;
      const cell = erroredCell({ provider: location.provider, cell: location.cell, message: thrown.message, ms: 0, ...(thrown.file !== undefined ? { file: thrown.file } : {}) });
      out.push({ cell, pending: { files, problem: thrown.message }, from: "check" });
    }
  }
  return out;
}
