/**
 * The result of a `parity check` run and its fixed JSON shape (docs/design/00-product.md, `check`;
 * spec 10 §6.5). Reporters (text, json, junit, github) all render a {@link CheckRunResult};
 * `json` prints exactly {@link CheckReport}.
 */
import type { AllowlistEntry, UnappliedRootEntries } from "../compare/allowlist.js";
import { plainEntry } from "../compare/allowlist.js";
import type { JudgedFact, TruthFinding } from "../compare/truth/judge.js";
import { plainTruthEntry, type TruthEntry } from "../compare/truth/truth-allowlist.js";
import type { ParityAgainst, ParityDifference, ParityVerdict } from "../compare/parity.js";
import { rerecordHintTargets, suggestedRecordingsRoot } from "./suggest.js";
import { EXIT_CODES } from "../errors.js";
import type { RunFlags } from "./advice.js";
import { catalogChanges, type CatalogChange } from "./catalog-changes.js";

/**
 * Status of one cell. `timeout` is an infrastructure timeout: the replay hit its wall-clock
 * ceiling (the machine, not the bridge, failed), which is no parity verdict. `error`: one of
 * its inputs (recording, manifest, lane, oracle) could not be read; the other cells still run
 * and the run exits 2. `untrue`: the lane is the same as its oracle, but contradicts its cell's
 * facts (or its expected facts file is missing); it fails the run as `fail` does (exit 1). A
 * cell that also changed or diverged is `fail`, its untruths still listed.
 */
export type CellStatus = "pass" | "fail" | "untrue" | "skip" | "timeout" | "error";

/**
 * What the truth check said of one cell (issue 37): `facts` is `judged` (the lane was held to
 * `file`), `missing` (an expected facts file is not there: the cell is untrue), or `none` (the
 * cell has no facts yet, or the recording lies outside the project: `note` says which).
 * `findings`: the untruths no allowlist entry masks; `masked`: how many entries masked;
 * `table`: every fact judged, in facts order (`allowed` when an entry masked its untruth).
 */
export interface CellTruthReport {
  facts: "judged" | "missing" | "none";
  file?: string;
  note?: string;
  findings: TruthFinding[];
  masked: number;
  /** How many of `findings` are our bridge's and fail nothing under `BRIDGE_UNTRUTHS: "warn"` (harness/defaults.ts; `--strict-truth` fails them). */
  warned?: number;
  table: Array<JudgedFact & { allowed?: true }>;
}

/**
 * One difference as reported: what it is held against, the JSON-patch op and JSON pointer into
 * the live lane (the expected lane for `remove`), and when the verdict has them the stable
 * `address` (`turn 2 / commandExecution 1 / item/completed: item.exitCode`), the `selector` an
 * allowlist entry can use, the `old` (expected) and `new` (live) values, `layer` (`events`,
 * `grammar`, `unhandled`) and `ids` for a broken id correspondence.
 */
export interface ReportDiff {
  against: ParityAgainst;
  op: string;
  path: string;
  layer?: ParityDifference["layer"];
  address?: string;
  selector?: string;
  old?: unknown;
  new?: unknown;
  ids?: ParityDifference["ids"];
}

/**
 * Version of the `--reporter json` document: 2 added `schemaVersion` and the diff fields beyond
 * against/op/path; 3 the truth check (`untrue`, each cell's `truth`, `truthStale`); 4 the CLI
 * versions (`versions`, each cell's `versions`); 5 `catalogChanges`; 6 the alternate path a cell
 * passed on (each cell's `alternate`, harness/check/alternate-match.ts); 7 the allowlist entries
 * tied to a recordings root that did not apply to a failing cell, and why (each cell's
 * `unappliedEntries`, harness/compare/allowlist.ts `unappliedRootEntryGroups`).
 */
export const CHECK_REPORT_SCHEMA_VERSION = 7;

/** The report form of a verdict difference (see {@link ReportDiff}); `undefined` fields are left out. */
export function reportDiff(d: ParityDifference | ReportDiff): ReportDiff {
  const out: ReportDiff = { against: d.against, op: d.op, path: d.path };
  if (d.layer !== undefined) out.layer = d.layer;
  if (d.address !== undefined) out.address = d.address;
  if (d.selector !== undefined) out.selector = d.selector;
  if ("old" in d && d.old !== undefined) out.old = d.old;
  if ("new" in d && d.new !== undefined) out.new = d.new;
  if (d.ids !== undefined) out.ids = d.ids;
  return out;
}

/**
 * A replay divergence (docs/design/00-product.md, Determinism): the recorded expectation at `seq` and the live
 * line that arrived instead (`null` when nothing arrived before the divergence timeout).
 */
export interface Divergence {
  seq: number;
  expected: string;
  actual: string | null;
}

/** One cell of the fixed JSON report. `ms` is the cell's wall time in milliseconds, `events` the live lane length. */
export interface CellReport {
  provider: string;
  cell: string;
  status: CellStatus;
  ms: number;
  events: number;
  diffs: ReportDiff[];
  stale: AllowlistEntry[];
  divergences: Divergence[];
  /** Only for status `error`: the one-line input error (`file:line: problem`). */
  error?: string;
  /** The truth check of the cell (absent: it was not replayed, or the run judged no truth). */
  truth?: CellTruthReport;
  /** The CLI versions of the cell's recording and oracle (absent: the run did not read them). */
  versions?: CellVersions;
  /**
   * The accepted alternate path of the cell the live lane matched instead of the cell's own oracle
   * (a fresh re-record checked against the committed oracles, harness/check/alternate-match.ts):
   * the cell passed on it. Absent: the cell's own oracle decided.
   */
  alternate?: AlternatePath;
  /**
   * A failing cell's allowlist entries tied to a recordings root that did not apply to its
   * recording, one group per root with why (the root is not there; they identify another
   * recording, or none). Absent: the cell passed, or every such entry applied.
   */
  unappliedEntries?: UnappliedRootEntries[];
}

/** One accepted alternate path of a cell (harness/recording/alternates.ts): its number (≥ 2), the cell, and its oracle file (relative to the project, `/`-separated; absolute outside it). */
export interface AlternatePath {
  path: number;
  of: string;
  oracle: string;
}

/** The words every reporter uses for a cell that matched an alternate: `agent took alternate path 2 of cell resume`. */
export function alternateWords(alternate: AlternatePath): string {
  return `agent took alternate path ${alternate.path} of cell ${alternate.of}`;
}

/**
 * The CLI versions of one cell (issue 41): `recording`, its manifest's `cliVersion`; `oracle`,
 * the version its oracle was accepted from (harness/recording/oracle-version.ts), null when the
 * cell has no oracle here or the oracle no version sidecar; `differ`, true when both are known
 * and are not the same (the oracle was accepted from another version than the one recorded).
 */
export interface CellVersions {
  recording: string | null;
  oracle: string | null;
  differ: boolean;
}

/** One provider's versions over a run's cells: the distinct recording and oracle versions (sorted), cells whose oracle has no known version, and the cells whose two versions differ. */
export interface ProviderVersions {
  provider: string;
  recordings: string[];
  oracles: string[];
  oracleUnknown: number;
  differ: string[];
}

/** The {@link ProviderVersions} of `cells` with versions, by provider in first-seen order. */
export function providerVersions(cells: readonly CellReport[]): ProviderVersions[] {
  const out = new Map<string, { recordings: Set<string>; oracles: Set<string>; oracleUnknown: number; differ: string[] }>();
  for (const cell of cells) {
    if (cell.versions === undefined) continue;
    let entry = out.get(cell.provider);
    if (entry === undefined) out.set(cell.provider, (entry = { recordings: new Set(), oracles: new Set(), oracleUnknown: 0, differ: [] }));
    if (cell.versions.recording !== null) entry.recordings.add(cell.versions.recording);
    if (cell.versions.oracle !== null) entry.oracles.add(cell.versions.oracle);
    else entry.oracleUnknown += 1;
    if (cell.versions.differ) entry.differ.push(cell.cell);
  }
  return [...out].map(([provider, e]) => ({ provider, recordings: [...e.recordings].sort(), oracles: [...e.oracles].sort(), oracleUnknown: e.oracleUnknown, differ: e.differ }));
}

/** The fixed JSON report of a check run (`--reporter json`). `ms` is the whole run in milliseconds. */
export interface CheckReport {
  schemaVersion: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Cells whose inputs could not be read (status `error`). */
  errors: number;
  /** Cells the same as their oracles that contradict their facts (status `untrue`). */
  untrue: number;
  ms: number;
  cells: CellReport[];
  /** Truth allowlist entries that masked nothing over the run's cells (allowlists/truth/). */
  truthStale: TruthEntry[];
  /** The header's CLI versions: per provider, its recordings' and its oracles' (issue 41; each cell's are in `cells[].versions`). */
  versions: ProviderVersions[];
  /** Catalog changes the same in several cells of a provider, once each with those cells (catalog-changes.ts); the cells still list them in `diffs`. */
  catalogChanges: CatalogChange[];
}

/**
 * What reporters receive for one cell: the report fields plus optional detail for people
 * (the verdict with values and the diff script, why it was skipped, an error sentence, the
 * oracle file, and the recordings root to scope a suggested allowlist entry to). The detail
 * never reaches the JSON report.
 */
export interface CellResult extends CellReport {
  detail?: {
    verdict?: ParityVerdict<AllowlistEntry>;
    skipReason?: string;
    error?: string;
    oracleFile?: string;
    /**
     * 1-based line of each event's first line in `oracleFile` (index = event position), so a
     * reporter can point at the first differing event; absent when the oracle's layout is not
     * the one `serializeThreadLane` writes.
     */
    oracleEventLines?: readonly number[];
    /** For status `error`: the unreadable file and line, when known (annotations attach there). */
    errorAt?: { file: string; line?: number };
    /**
     * The cell's recordings root as an entry's `recordings` field spells it (relative to the
     * project directory, e.g. `../shared/recordings`), when it is not the project's own
     * `recordings/`: the text reporter then suggests `parity allow --recordings <root>`.
     */
    recordingsRoot?: string;
    /**
     * `--recordings`/`--lanes` for the `parity rerecord` hint (see `rerecordHintTargets`), when
     * the cell's recording or oracle is not the project's own.
     */
    rerecord?: { recordings?: string; lanes?: string };
    /** The kinds of the replay's divergences (`bridge-exited`, `no-handshake`, …), for advice (advice.ts). */
    replayKinds?: string[];
    /** The cell had no committed oracle (under CI; or outside it, with the live lane pending). */
    missingOracle?: boolean;
    /** A whole new recording waits to replace the cell's (`parity drift --accept`): acceptable even when its lanes did not change. */
    pendingRecording?: boolean;
    /** The pending recording is one the project does not have yet (a new cell or alternate path, harness/check/pending-recordings.ts): rejecting it deletes it and leaves the gate as it was. */
    newRecording?: boolean;
    /**
     * Accepted files (absolute) whose pending result (`<file>.pending`, harness/check/write-policy.ts)
     * this run wrote: `parity review` and `check --update` accept them by renaming.
     */
    pending?: string[];
    /**
     * 1-based line in `oracleFile` of the changed field of each oracle difference, keyed by the
     * difference's position in `verdict.diffs` (GitHub annotations' `line=`).
     */
    oracleFieldLines?: Record<number, number>;
  };
}

/** A whole run as reporters receive it. */
export interface CheckRunResult {
  ms: number;
  cells: CellResult[];
  /** The run's flags that suggested commands repeat (advice.ts). */
  flags?: RunFlags;
  /** Truth allowlist entries stale over the whole selection (`staleTruthEntries`): they fail the run. */
  truthStale?: TruthEntry[];
  /** For a sharded run (`--shard i/n`): which shard, the unsharded selection's size, and each cell's position in it (blob.ts). */
  shard?: { index: number; count: number };
  total?: number;
  positions?: number[];
}

/**
 * Builds a cell result from a parity verdict: `fail` when the verdict failed or any divergence
 * happened, else `pass`. `events` is the live lane length. Given both `recordingDir` (the cell's
 * `<root>/<provider>/<cell>`) and `projectDir` (where `parity check` runs), a root other than
 * the project's `recordings/` becomes `detail.recordingsRoot`.
 */
export function cellResultFromVerdict(input: {
  verdict: ParityVerdict<AllowlistEntry>;
  /** The status when the caller decides it (the gate's table, harness/check/cell-status.ts); else from the verdict and divergences. */
  status?: CellStatus;
  ms: number;
  events: number;
  divergences?: Divergence[];
  oracleFile?: string;
  recordingDir?: string;
  projectDir?: string;
  /** The oracles directory when `--lanes` was given explicitly (absolute). */
  explicitLanesDir?: string;
}): CellResult {
  const divergences = input.divergences ?? [];
  const { verdict } = input;
  const recordingsRoot = input.recordingDir !== undefined && input.projectDir !== undefined ? suggestedRecordingsRoot(input.recordingDir, input.projectDir) : undefined;
  const rerecord =
    input.recordingDir !== undefined && input.projectDir !== undefined
      ? rerecordHintTargets({
          recordingDir: input.recordingDir,
          projectDir: input.projectDir,
          ...(input.explicitLanesDir !== undefined ? { explicitLanesDir: input.explicitLanesDir } : {}),
        })
      : undefined;
  return {
    provider: verdict.provider,
    cell: verdict.cell,
    status: input.status ?? (verdict.passed && divergences.length === 0 ? "pass" : "fail"),
    ms: input.ms,
    events: input.events,
    diffs: verdict.diffs.map(reportDiff),
    stale: verdict.stale,
    divergences,
    detail: {
      verdict,
      ...(input.oracleFile !== undefined ? { oracleFile: input.oracleFile } : {}),
      ...(recordingsRoot !== undefined ? { recordingsRoot } : {}),
      ...(rerecord !== undefined && Object.keys(rerecord).length > 0 ? { rerecord } : {}),
    },
  };
}

/** Projects a run onto the fixed JSON shape: counts per status, entries without their source. */
export function toCheckReport(run: CheckRunResult): CheckReport {
  const count = (status: CellStatus) => run.cells.filter((cell) => cell.status === status).length;
  return {
    schemaVersion: CHECK_REPORT_SCHEMA_VERSION,
    passed: count("pass"),
    failed: count("fail"),
    skipped: count("skip"),
    errors: count("error"),
    untrue: count("untrue"),
    ms: run.ms,
    cells: run.cells.map((cell) => ({
      provider: cell.provider,
      cell: cell.cell,
      status: cell.status,
      ms: cell.ms,
      events: cell.events,
      diffs: cell.diffs.map(reportDiff),
      stale: cell.stale.map(plainEntry),
      divergences: cell.divergences.map((d) => ({ seq: d.seq, expected: d.expected, actual: d.actual })),
      ...(cell.status === "error" ? { error: cell.detail?.error ?? "unreadable input" } : {}),
      ...(cell.truth !== undefined ? { truth: cell.truth } : {}),
      ...(cell.versions !== undefined ? { versions: cell.versions } : {}),
      ...(cell.alternate !== undefined ? { alternate: cell.alternate } : {}),
      ...(cell.unappliedEntries !== undefined ? { unappliedEntries: cell.unappliedEntries } : {}),
    })),
    truthStale: (run.truthStale ?? []).map(plainTruthEntry),
    versions: providerVersions(run.cells),
    catalogChanges: catalogChanges(run.cells),
  };
}

/** Cells of a run that hit the wall-clock ceiling (status `timeout`; the fixed JSON shows them in `cells`). */
export function timedOutCount(run: CheckRunResult): number {
  return run.cells.filter((cell) => cell.status === "timeout").length;
}

/** Exit code of a run for an infrastructure timeout and no parity failure. */
export const INFRASTRUCTURE_TIMEOUT_EXIT = EXIT_CODES.infrastructureTimeout;

/**
 * Exit code of a run (docs/design/00-product.md, CLI): 2 when any cell's input could not be read (status
 * `error`; every other cell was still checked and reported), else 1 when any cell failed or is
 * untrue or a truth allowlist entry is stale, else 4 ({@link INFRASTRUCTURE_TIMEOUT_EXIT}) when
 * any cell hit the wall-clock ceiling, else 0.
 */
export function checkExitCode(run: CheckRunResult): 0 | 1 | 2 | typeof INFRASTRUCTURE_TIMEOUT_EXIT {
  if (run.cells.some((cell) => cell.status === "error")) return 2;
  if (run.cells.some((cell) => cell.status === "fail" || cell.status === "untrue")) return 1;
  if ((run.truthStale ?? []).length > 0) return 1;
  return run.cells.some((cell) => cell.status === "timeout") ? INFRASTRUCTURE_TIMEOUT_EXIT : 0;
}

/**
 * A cell whose input could not be read: status `error` with the one-line message, and where
 * it points (`file`, `line`) for annotations.
 */
export function erroredCell(input: { provider: string; cell: string; message: string; ms: number; file?: string; line?: number }): CellResult {
  return {
    provider: input.provider,
    cell: input.cell,
    status: "error",
    ms: input.ms,
    events: 0,
    diffs: [],
    stale: [],
    divergences: [],
    detail: {
      error: input.message,
      ...(input.file !== undefined ? { errorAt: { file: input.file, ...(input.line !== undefined ? { line: input.line } : {}) } } : {}),
    },
  };
}
