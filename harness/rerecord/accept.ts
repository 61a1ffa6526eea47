/**
 * Accepting a changed cell after a failing `parity check` (`check --update`, `parity review`):
 * rerecord just that cell beside its recording, from the check's own replay of it — its oracle, and its
 * `bridge→runtime.current.ndjson` only when the bridge's output changed (see `rerecordCell`) —
 * and say which files to commit.
 */
import { manifestCellOf } from "../recording/alternates.js";
import { readRecording, type RecordingLocation } from "../recording/reader.js";
import type { CellResult } from "../report/check-report.js";
import { shellQuote } from "../../stack/protocol/text.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import { rerecordRedactor } from "./redaction.js";
import { rerecordFromReplay, type RerecordCellOutcome } from "./rerecord-cell.js";
import type { ReplayedCell } from "./replayed-cell.js";
import type { Redactor } from "../recording/redact.js";
import { rerecordTargets } from "./targets.js";
import { shownPath } from "../recording/paths.js";

/**
 * Why a checked cell cannot be accepted by rerecording it, or undefined when it can: it failed
 * on lane differences only (a divergence means the replay itself is wrong, and a cell without
 * an oracle in this project has nothing here to refresh).
 */
export function whyNotAcceptable(cell: CellResult): string | undefined {
  // A missing oracle whose live lane the gate wrote as pending is accepted by renaming it.
  if (cell.status === "fail" && cell.detail?.missingOracle === true && (cell.detail.pending?.length ?? 0) > 0 && cell.divergences.length === 0) return undefined;
  // A new recording of another agent version (`parity drift --accept`) is accepted by renaming, its lanes changed or not.
  if (cell.detail?.pendingRecording === true && cell.divergences.length === 0) return undefined;
  if (cell.status !== "fail") return `it is ${cell.status === "pass" ? "passing" : cell.status === "skip" ? "skipped" : "unreadable"}`;
  if (cell.divergences.length > 0) return "its replay diverged: fix the bridge or the recording; rerecording would write nothing";
  if (cell.diffs.length === 0) return cell.stale.length > 0 ? "only stale allowlist entries fail it: delete them" : "it has no lane difference to accept";
  if (cell.detail?.oracleFile === undefined) return "its recording is outside this project: refresh it with `parity rerecord --out <dir>`";
  return undefined;
}

/** Options of {@link acceptCell}. */
export interface AcceptOptions {
  /** The oracles directory (`lanes/`), absolute. */
  lanesDir: string;
  /** Passed to the replay that verifies a current lane before it is written (the check's own `--timeout`, `--module`). */
  replay?: ReplayRecordingOptions;
  /** Where each changed file goes (see `RerecordCellOptions.writeTo`); default the file itself. */
  writeTo?: (target: string) => string;
  /** Redaction of the current lane (default `rerecordRedactor` with no user pattern; made once per run by the caller). */
  redactor?: Redactor;
}

/**
 * Rerecords one cell beside its recording from the gate's own replay of it (`replayed`, see
 * `rerecordFromReplay`: the cell is not replayed again): its oracle, and its current bridge lane
 * only when the bridge's output changed (that lane replayed once to verify it). Never touches
 * the recorded lanes or the manifest.
 * @throws InputError for a bad or read-only recording.
 */
export async function acceptCell(location: RecordingLocation, replayed: ReplayedCell, options: AcceptOptions): Promise<RerecordCellOutcome> {
  const recording = await readRecording(location.dir, { expect: { provider: location.provider, cell: manifestCellOf(location) } });
  const targets = await rerecordTargets(location.dir, location, { lanesDir: options.lanesDir });
  return rerecordFromReplay(recording, replayed, {
    targets,
    redactor: options.redactor ?? rerecordRedactor({ patterns: [] }),
    ...(options.replay !== undefined ? { replay: options.replay } : {}),
    ...(options.writeTo !== undefined ? { writeTo: options.writeTo } : {}),
  });
}

/** The files an accepted cell's rerecord wrote (created or changed), absolute. */
export function writtenFiles(outcome: RerecordCellOutcome): string[] {
  if (outcome.status !== "rerecorded") return [];
  const files: string[] = [];
  if (outcome.oracle === "new" || outcome.oracle === "updated") files.push(outcome.oracleFile);
  if (outcome.currentLane === "new" || outcome.currentLane === "updated") files.push(outcome.currentLaneFile);
  if (outcome.version === "new" || outcome.version === "updated") files.push(outcome.versionFile);
  return files;
}

/** One line per accepted cell's files and the `git add` that commits them, relative to `cwd`; "" for none. */
export function commitHint(files: readonly string[], cwd: string): string {
  if (files.length === 0) return "";
  const rel = files.map((f) => shownPath(f, cwd));
  return `to commit:\n  git add ${rel.map(shellQuote).join(" ")}\n`;
}
