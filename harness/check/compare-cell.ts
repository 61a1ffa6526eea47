/**
 * One replayed cell compared (docs/design/00-product.md flow 3; spec 10 §6): its live leg with its
 * oracle and with its recording's own leg under the allowlist, the oracle's state and a missing
 * one written as the write policy says, the truth check, and the cell's report line and extras
 * (moved out of check-cells.ts, issue 40).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { unappliedRootEntryGroups, type LoadedAllowlistEntry } from "../compare/allowlist.js";
import { parseJsonFile } from "../compare/json-file.js";
import { oracleLeg, type CellLeg } from "../compare/cell-legs.js";
import { compareParity, isClassWide, type ParityLeg, type ParityVerdict } from "../compare/parity.js";
import { compareParityBySide } from "../compare/stream-compare.js";
import { InputError } from "../errors.js";
import { serializeThreadLane } from "../lanes/index.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { oracleVersionFile, recordingCliVersion, writeOracleVersion } from "../recording/oracle-version.js";
import { fileState } from "../recording/file-state.js";
import { isInside } from "../recording/paths.js";
import type { RecordingLocation } from "../recording/reader.js";
import { cellResultFromVerdict, type CellResult, type Divergence } from "../report/check-report.js";
import { oracleEventLines, oracleFieldLines } from "../report/oracle-lines.js";
import { replayTrouble, type ReplayDivergence, type ReplayNote } from "../replay/walk/divergence.js";
import { cellStatus, type OracleState, type ReplayOutcome } from "./cell-status.js";
import { pendingFile, readOnlyReason, type WritePolicy } from "./write-policy.js";
import type { ReplayResult } from "../replay/replay-recording.js";
import type { LoadedTruthEntry, MaskedTruth } from "../compare/truth/truth-allowlist.js";
import type { CellFactsState } from "./cell-facts.js";
import { crossRunInput, type CrossRunFacts } from "./cross-run.js";
import { agentSideOf, cellTruth } from "./cell-truth.js";
import { matchAlternate, type AlternateOutcome } from "./alternate-match.js";
import { manifestCellOf, recordingsRootOf } from "../recording/alternates.js";

/** What comparing one cell needs of the gate's options (check-cells.ts `CheckCellsOptions`). Paths are absolute. */
export interface CompareCellOptions {
  /** The repository: recordings outside it get no committed oracle (docs/design/00-product.md, Real input). */
  repoRoot: string;
  /**
   * Compare every selected recording with `<lanesDir>/<provider>/<cell>.json`, inside the
   * repository or not (`--lanes` given explicitly, e.g. after `record --out <dir>`).
   */
  oraclesForEveryRecording?: boolean;
  /** Directory of the committed oracles, `lanes/`. */
  lanesDir: string;
  allowlist: readonly LoadedAllowlistEntry[];
  /**
   * May this run write a missing oracle (write-policy.ts)? `never`: it fails its cell (CI);
   * `pending`: the live lane is written as `<oracle>.pending` and the cell fails until it is
   * accepted; `in-place`: the oracle is written and compared.
   */
  write: WritePolicy;
  /** When set, each replayed cell's normalized, unmasked lanes are written there. */
  dumpDir?: string;
  /**
   * The facts of each cell by `provider/cell` (cell-facts.ts), read before the run: each in-project
   * cell's live lane is judged against them beside its oracle (cell-truth.ts). Absent: no truth check.
   */
  facts?: ReadonlyMap<string, CellFactsState>;
  /**
   * The facts of each cell whose oracle comes from another run (`provider/cell`, as `facts`), also
   * for a recording outside the project (a fresh re-record's `--out`): read for the run-to-run rule
   * that holds a terminal's window of a long output against what the command printed
   * (compare/run-to-run.ts rule 5), never judged as truth. A recording made from another definition
   * of the cell only loses that rule: its output is no window of these facts' output.
   */
  runToRunFacts?: CrossRunFacts;
  /** Truth allowlist entries (`allowlists/truth/*.json`). */
  truthAllowlist?: readonly LoadedTruthEntry[];
  /** Does an untruth caused by our bridge fail its cell (default `fail`; the gate passes `BRIDGE_UNTRUTHS` or `--strict-truth`)? */
  bridgeUntruths?: "fail" | "warn";
}

/** Divergences of one cell copied into the report (the first ones; the text names the total). */
export const REPORTED_DIVERGENCES = 10;

/** What one cell's check did besides its report line (for `--explain` and `--verbose`). */
export interface CellExtras {
  provider: string;
  cell: string;
  notes: ReplayNote[];
  /** Allowlist entries that applied, with how many values each masked per side. */
  masked: Array<{ entry: LoadedAllowlistEntry; live: number; oracle?: number; recording?: number; masksDifference: boolean }>;
  /** An oracle this run wrote (write policy `in-place`, or its `.pending` under `pending`), for an in-repo recording that had none. */
  wroteOracle?: string;
  /** Why a missing oracle the write policy would write was not written (its directory is read-only). */
  notWritten?: string;
  /** The bridge's stderr tail. */
  stderr: string;
  /** The truth allowlist entries that applied to the cell, with what each masked (stale entries are judged over the run). */
  truthEntries?: MaskedTruth["entries"];
}

/**
 * Oracle forms accepted: a JSON array of normalized events, or `{events, unhandled?, grammarDrops?}`.
 * @throws InputError `file:line: oracle is not valid JSON (…)` (line where JSON.parse stopped), or
 *   naming only the file for an unreadable file or another shape.
 */
export async function readOracleLeg(file: string): Promise<ParityLeg & { text: string }> {
  let value: unknown;
  let text: string;
  try {
    text = await readFile(file, "utf8");
    // parseJsonFile turns JSON.parse's character position into a line, as `parity diff` reports it.
    value = parseJsonFile(text, file);
  } catch (error) {
    if (!(error instanceof InputError)) throw new InputError(`oracle cannot be read (${(error as Error).message})`, { file });
    const problem = error.problem.startsWith("nested deeper") ? `oracle ${error.problem.replace(/^nested/, "is nested")}` : `oracle is ${error.problem}`;
    throw new InputError(problem, { file, ...(error.line !== undefined ? { line: error.line } : {}), ...(error.column !== undefined ? { column: error.column } : {}) });
  }
  if (Array.isArray(value)) return { events: value, text };
  const record = value as { events?: unknown; unhandled?: unknown; grammarDrops?: unknown } | null;
  if (record && Array.isArray(record.events)) {
    return {
      text,
      events: record.events,
      ...(typeof record.unhandled === "number" ? { unhandled: record.unhandled } : {}),
      ...(Array.isArray(record.grammarDrops) ? { grammarDrops: record.grammarDrops.map(String) } : {}),
    };
  }
  throw new InputError("oracle must be a JSON array of thread events", { file });
}

function toReportDivergence(d: ReplayDivergence): Divergence {
  const where = d.dir ? `${d.dir} ` : "";
  return {
    seq: d.seq ?? 0,
    expected: d.expected === null ? d.message : `${where}${d.expected}`,
    actual: d.got,
  };
}

export function emptyExtras(location: RecordingLocation): CellExtras {
  return { provider: location.provider, cell: location.cell, notes: [], masked: [], stderr: "" };
}

/**
 * The oracle's state before the comparison (see `OracleState`): where it is, and what the write
 * policy does about a missing one. A link loop, a dangling link or a directory in the oracle's
 * place is an error naming it, never a missing oracle (which would be written over it).
 */
async function oracleStateOf(oracleFile: string | undefined, replayClean: boolean, write: WritePolicy, cwd: string): Promise<{ state: OracleState | "absent"; notWritten?: string }> {
  if (oracleFile === undefined) return { state: "none" };
  if ((await fileState(oracleFile)) === "file") return { state: "compared" };
  if (write === "never") return { state: "missing" };
  // A replay that diverged or timed out is no oracle: nothing is written, the replay fails the cell.
  if (!replayClean) return { state: "absent" };
  // A read-only oracles directory is not written (not even by the superuser): the cell fails as missing, saying why.
  const readOnly = await readOnlyReason([path.dirname(oracleFile)], cwd);
  if (readOnly !== undefined) return { state: "missing", notWritten: readOnly };
  return { state: write === "in-place" ? "written" : "pending" };
}

/**
 * True when the oracles root is not the one that pairs with the recording's root, so the oracle
 * was made from another live run of the cell (a fresh re-record checked with `--lanes lanes`,
 * README "An agent upgrade"): `<root>/<provider>/<cell>` pairs with `<root>/lanes` (a record
 * `--out` folder) and, for a root named `recordings`, with the `lanes` beside it (the project's
 * layout; cli/record.ts `defaultLanesRoot` is the same rule). Such an oracle is compared with the
 * run-to-run rules (compare/run-to-run.ts).
 * @param recordingDir `<root>/<provider>/<cell>` (or an alternate's `<root>/<provider>/<cell>/alternates/<k>`), absolute
 * @param lanesDir the oracles root, absolute
 */
export function oracleFromAnotherRun(recordingDir: string, lanesDir: string): boolean {
  const root = recordingsRootOf(recordingDir);
  const lanes = path.resolve(lanesDir);
  if (lanes === path.join(root, "lanes")) return false;
  return !(path.basename(root) === "recordings" && lanes === path.join(path.dirname(root), "lanes"));
}

/** How the replay ended, for the status table (cell-status.ts). */
function replayOutcomeOf(result: Omit<ReplayResult, "lane">): ReplayOutcome {
  if (result.infrastructureTimeout) return "timeout";
  if (result.divergences.some((d) => d.kind === "bridge-exited")) return "bridge-exited";
  return result.divergences.length > 0 ? "diverged" : "clean";
}

/**
 * Compares one replayed cell's live leg with its oracle and with its recording's own leg
 * (see {@link checkCells}); its status comes from `cellStatus` alone.
 */
export async function compareCell(
  location: RecordingLocation,
  result: Omit<ReplayResult, "lane">,
  live: CellLeg & { events: number },
  recorded: CellLeg,
  ms: number,
  options: CompareCellOptions,
  agentSide: ReturnType<typeof agentSideOf>,
): Promise<{ cell: CellResult; extras: CellExtras }> {
  const extras = emptyExtras(location);
  extras.notes = result.notes;
  extras.stderr = result.stderr;

  const inRepo = options.oraclesForEveryRecording === true || (path.resolve(location.dir) !== path.resolve(options.repoRoot) && isInside(options.repoRoot, location.dir));
  const oracleFile = path.join(options.lanesDir, location.provider, `${location.cell}.json`);
  const { state, notWritten } = await oracleStateOf(inRepo ? oracleFile : undefined, result.ok, options.write, options.repoRoot);
  if (notWritten !== undefined) extras.notWritten = notWritten;
  let oracle: CellLeg | null = null;
  let eventLines: number[] | undefined;
  if (state === "compared") {
    ({ leg: oracle, eventLines } = await oracleLeg(
      oracleFile,
      () => readOracleLeg(oracleFile),
      (text, leg) => oracleEventLines(text, leg.events.length),
    ));
  }
  const writeOracle = state === "written" || state === "pending";

  // A class-wide entry's staleness is judged over the whole run (class-wide-stale.ts), not here.
  const acrossRuns = oracleFromAnotherRun(location.dir, options.lanesDir);
  const input = {
    provider: location.provider,
    cell: location.cell,
    allowlist: options.allowlist,
    recordingDir: location.dir,
    judgedElsewhere: isClassWide,
    // The one builder of a cross-run input (cross-run.ts), as every caller that compares two runs.
    ...(acrossRuns ? crossRunInput(options.runToRunFacts, location.provider, manifestCellOf(location)) : {}),
  };
  // Streamed first (no lane held); whole lanes only for what needs them: a written oracle, a
  // dump, an applying allowlist entry, or a difference to show.
  let verdict: ParityVerdict<LoadedAllowlistEntry> | undefined;
  let liveWhole: ParityLeg | undefined;
  let recordedWhole: ParityLeg | undefined;
  let oracleWhole: ParityLeg | null = null;
  if (!writeOracle && options.dumpDir === undefined) {
    verdict = await compareParityBySide({ ...input, live, oracle, recorded });
  }
  if (verdict === undefined) {
    liveWhole = await live.load();
    recordedWhole = await recorded.load();
    oracleWhole = oracle === null ? null : await oracle.load();
    if (writeOracle) {
      const target = state === "pending" ? pendingFile(oracleFile) : oracleFile;
      await writeFileAtomic(target, serializeThreadLane(liveWhole.events));
      extras.wroteOracle = target;
      // Its version sidecar, the same way (recording/oracle-version.ts): accepted or rejected with it.
      const cliVersion = await recordingCliVersion(location.dir);
      if (cliVersion !== undefined) await writeOracleVersion(oracleFile, cliVersion, state === "pending" ? pendingFile : undefined);
    }
    verdict = compareParity({ ...input, live: liveWhole, oracle: oracleWhole, recorded: recordedWhole });
  }
  // Another path of the agent (alternate-match.ts): only a fresh re-record's clean replay whose
  // lane differs from the cell's oracle alone (the recording's own lane still matches).
  let alternate: AlternateOutcome | undefined;
  if (input.oracleFromAnotherRun === true && location.alternateOf === undefined && state === "compared" && result.ok && missesOracleOnly(verdict)) {
    liveWhole ??= await live.load();
    recordedWhole ??= await recorded.load();
    alternate = await matchAlternate({ ...input, live: liveWhole, recorded: recordedWhole }, options.lanesDir, location.cell, options.repoRoot, readOracleOnly);
    if (alternate.matched !== undefined) verdict = alternate.verdict;
  }
  extras.masked = verdict.masked.map((m) => ({ entry: m.entry, ...m.sides, masksDifference: m.masksDifference }));
  // A timed-out replay's live lane is cut short: nothing is dumped from it (no write without a verdict).
  if (options.dumpDir !== undefined && liveWhole !== undefined && recordedWhole !== undefined && result.infrastructureTimeout === null) {
    await dumpLanes(path.join(options.dumpDir, `${location.provider}-${location.cell}`), { live: liveWhole, recorded: recordedWhole, oracle: oracleWhole }, result);
  }
  const divergences = result.divergences.slice(0, REPORTED_DIVERGENCES).map(toReportDivergence);
  const replay = replayOutcomeOf(result);
  // The truth check: the same live lane against the cell's facts, for an in-project cell with a
  // clean replay (a cut-short lane has no truth to judge).
  // An alternate is held to the facts of its cell: the agent's other path must still be told truly.
  const facts = replay === "clean" ? options.facts?.get(`${location.provider}/${manifestCellOf(location)}`) : undefined;
  const truth =
    facts === undefined
      ? undefined
      : await cellTruth(facts, async () => (liveWhole ?? (await live.load())).events, agentSide, options.truthAllowlist ?? [], {
          provider: location.provider,
          cell: location.cell,
          recordingDir: location.dir,
          cwd: options.repoRoot,
          bridgeUntruths: options.bridgeUntruths ?? "fail",
        });
  if (truth !== undefined) extras.truthEntries = truth.entries;
  const status = cellStatus({ verdictPassed: verdict.passed, replay, oracle: state === "absent" ? "none" : state, ...(truth !== undefined ? { truth: truth.outcome } : {}) });
  const cell = cellResultFromVerdict({
    verdict,
    status,
    ms,
    events: live.events,
    divergences,
    recordingDir: location.dir,
    projectDir: options.repoRoot,
    ...(options.oraclesForEveryRecording === true ? { explicitLanesDir: options.lanesDir } : {}),
    ...(inRepo ? { oracleFile } : {}),
  });
  if (truth !== undefined) cell.truth = truth.report;
  if (alternate !== undefined) sayAlternate(cell, alternate, status);
  // Entries tied to a recordings root that did not apply to this recording: said, or a missing root reads as a regression.
  if (status === "fail") sayUnapplied(cell, unappliedRootEntryGroups(options.allowlist, location.provider, location.cell, location.dir));
  if (truth?.report.facts === "missing" && truth.report.note !== undefined) cell.detail = { ...cell.detail, error: truth.report.note };
  if (eventLines !== undefined) cell.detail = { ...cell.detail, oracleEventLines: eventLines };
  if (eventLines !== undefined && status === "fail" && verdict.diffs.some((d) => d.against === "oracle")) {
    const fieldLines = oracleFieldLines(await readFile(oracleFile, "utf8"), eventLines, verdict.diffs);
    if (fieldLines !== undefined) cell.detail = { ...cell.detail, oracleFieldLines: fieldLines };
  }
  if (result.divergences.length > 0) cell.detail = { ...cell.detail, replayKinds: [...new Set(result.divergences.map((d) => d.kind))] };
  explainOutcome(cell, { replay, state, oracleFile, result, reported: divergences.length, ...(notWritten !== undefined ? { notWritten } : {}) });
  return { cell, extras };
}

/** True when a verdict failed on the oracle alone (the recording's own lane matched): the case an alternate path may answer. */
function missesOracleOnly(verdict: ParityVerdict<LoadedAllowlistEntry>): boolean {
  return !verdict.passed && verdict.diffs.length > 0 && verdict.diffs.every((d) => d.against === "oracle");
}

/** An oracle file as a leg, its text let go (alternate-match.ts, review-pending.ts and keep-alternates.ts read oracles with it). */
export async function readOracleOnly(file: string): Promise<ParityLeg> {
  const { text: _text, ...leg } = await readOracleLeg(file);
  return leg;
}

/** A failing cell's root-tied entries that did not apply, in every report: the text's detail line, and the JSON's `unappliedEntries` (schema 7). */
function sayUnapplied(cell: CellResult, groups: NonNullable<CellResult["unappliedEntries"]>): void {
  if (groups.length === 0) return;
  cell.unappliedEntries = groups;
  const said = groups.map((g) => g.note).join("\n  ");
  cell.detail = { ...cell.detail, error: cell.detail?.error !== undefined ? `${cell.detail.error}\n  ${said}` : said };
}

/** What the cell's report says of the alternates it was held to: the one it passed on, or, failing, the closest. */
function sayAlternate(cell: CellResult, alternate: AlternateOutcome, status: CellResult["status"]): void {
  if (alternate.matched !== undefined) {
    cell.alternate = alternate.matched;
    return;
  }
  const { closest, tried } = alternate;
  if (closest === undefined || status !== "fail") return;
  const note = `the lane matches none of the cell's ${tried} accepted alternate ${tried === 1 ? "path" : "paths"} either (closest: alternate path ${closest.path}, ${closest.oracle}, ${closest.differences} ${closest.differences === 1 ? "difference" : "differences"})`;
  cell.detail = { ...cell.detail, error: cell.detail?.error !== undefined ? `${cell.detail.error}\n  ${note}` : note };
}

/** Writes a cell's normalized, unmasked lanes (and its divergences) for `--dump-dir`, each atomically. */
async function dumpLanes(base: string, lanes: { live: ParityLeg; recorded: ParityLeg; oracle: ParityLeg | null }, result: Omit<ReplayResult, "lane">): Promise<void> {
  const pretty = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  await writeFileAtomic(`${base}.live.events.json`, pretty(lanes.live.events));
  await writeFileAtomic(`${base}.recording.events.json`, pretty(lanes.recorded.events));
  if (lanes.oracle) await writeFileAtomic(`${base}.oracle.events.json`, pretty(lanes.oracle.events));
  if (result.divergenceCount > 0) await writeFileAtomic(`${base}.divergences.json`, pretty(result.divergences));
}

/**
 * What the report says besides the verdict, by the outcome the status came from: a timed-out
 * replay has no verdict (its lane is incomplete: neither diffs nor allowlist advice mean
 * anything); a bridge that died has no lane worth diffing (its exit and stderr are the report);
 * a missing oracle says where it is (or waits); otherwise the replay's trouble is added.
 */
function explainOutcome(
  cell: CellResult,
  at: { replay: ReplayOutcome; state: OracleState | "absent"; oracleFile: string; result: Omit<ReplayResult, "lane">; reported: number; notWritten?: string },
): void {
  const trouble = replayTrouble(at.result).trimEnd();
  if (at.replay === "timeout") {
    cell.diffs = [];
    cell.stale = [];
    cell.divergences = [];
    cell.detail = { error: trouble };
    return;
  }
  if (at.state === "missing") {
    const why = at.notWritten !== undefined ? `${at.notWritten}: nothing written` : "CI: oracles are never written";
    cell.detail = { ...cell.detail, missingOracle: true, error: `missing oracle ${at.oracleFile} (${why})` };
  } else if (at.state === "pending") {
    cell.detail = {
      ...cell.detail,
      missingOracle: true,
      pending: [at.oracleFile, oracleVersionFile(at.oracleFile)],
      error: `missing oracle ${at.oracleFile}: the live lane waits in ${path.basename(pendingFile(at.oracleFile))}; accept it with parity review or parity check -u`,
    };
  } else if (at.result.divergenceCount > at.reported) {
    cell.detail = { ...cell.detail, error: `${at.result.divergenceCount} divergences in all (first ${at.reported} listed)` };
  }
  if (at.replay === "bridge-exited") {
    cell.diffs = [];
    cell.stale = [];
    cell.detail = { error: trouble, replayKinds: cell.detail?.replayKinds ?? ["bridge-exited"] };
  } else if (trouble !== "") {
    cell.detail = { ...cell.detail, error: `${cell.detail?.error ? `${cell.detail.error}\n  ` : ""}${trouble}` };
  }
}
