import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import { parseJsonFile } from "../compare/json-file.js";
import { createLiveLaneSpills, heldLeg, oracleLeg, recordedLeg, type CellLeg } from "../compare/cell-legs.js";
import { compareParity, grammarDropKeys, isClassWide, type ParityLeg, type ParityVerdict } from "../compare/parity.js";
import { compareParityBySide } from "../compare/stream-compare.js";
import { InputError, UsageError } from "../errors.js";
import { normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { oracleVersionFile, recordingCliVersion, writeOracleVersion } from "../recording/oracle-version.js";
import { fileState } from "../recording/file-state.js";
import { isInside } from "../recording/paths.js";
import { readRecording, validateRecording, type Recording, type RecordingLocation, type ValidatedRecording } from "../recording/reader.js";
import { cellResultFromVerdict, erroredCell, type CellResult, type CheckRunResult, type Divergence } from "../report/check-report.js";
import { oracleEventLines, oracleFieldLines } from "../report/oracle-lines.js";
import { replayTrouble, type ReplayDivergence, type ReplayNote } from "../replay/walk/divergence.js";
import { isRecording, type ReplaySource } from "../replay/live-replay.js";
import { replayProfileFor } from "../replay/bridge/profiles.js";
import { createPlanCounter, type CountedRecordingDir } from "../replay/plan/stream-plan.js";
import { replayBatch } from "./batch.js";
import { cellStatus, type OracleState, type ReplayOutcome } from "./cell-status.js";
import { pendingFile, readOnlyReason, type WritePolicy } from "./write-policy.js";
import { planBatches } from "./batch-plan.js";
import { whyNotAcceptable } from "../rerecord/accept.js";
import { liveThreadLaneOfLeg, type ReplayedCell } from "../rerecord/replayed-cell.js";
import type { ReplayOptions, ReplayResult } from "../replay/replay-recording.js";
import { staleTruthEntries, type LoadedTruthEntry, type MaskedTruth } from "../compare/truth/truth-allowlist.js";
import type { CellFactsState } from "./cell-facts.js";
import { agentSideOf, cellTruth } from "./cell-truth.js";

/** Divergences of one cell copied into the report (the first ones; the text names the total). */
export const REPORTED_DIVERGENCES = 10;

/** Options of {@link checkCells}. Paths are absolute. */
export interface CheckCellsOptions {
  /** The selected cells, in report order. */
  locations: readonly RecordingLocation[];
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
  /** Cells replayed at once (≥ 1). */
  jobs: number;
  /**
   * May this run write a missing oracle (write-policy.ts)? `never`: it fails its cell (CI);
   * `pending`: the live lane is written as `<oracle>.pending` and the cell fails until it is
   * accepted; `in-place`: the oracle is written and compared.
   */
  write: WritePolicy;
  /** When set, each replayed cell's normalized, unmasked lanes are written there. */
  dumpDir?: string;
  /** Passed to every replay. */
  replay?: ReplayOptions;
  /**
   * Replay the cells of one provider in at most `jobs` batches, each through one bridge
   * process (default true; see `replayBatch`); false starts a bridge per cell.
   */
  batch?: boolean;
  /** Monotonic clock in ms (injected; default `performance.now`). */
  now?: () => number;
  /**
   * Each cell's time in earlier runs, in ms by `<provider>/<cell>` (cell-times.ts): the batches
   * expected to take longest start first. Never changes a verdict.
   */
  cellTimes?: ReadonlyMap<string, number>;
  /**
   * Starts ahead the bridge of a batch about to run (`parity check`'s bridge pool, which the
   * replays take from via `replay.bridges`): called with the provider of the batch `jobs` places
   * after each one that starts.
   */
  startBridge?: (provider: string) => void;
  /** Told as cells start replaying and as each cell's result is known, by index into `locations` (progress output). */
  progress?: CheckCellsProgress;
  /**
   * The facts of each cell by `provider/cell` (cell-facts.ts), read before the run: each in-project
   * cell's live lane is judged against them beside its oracle (cell-truth.ts). Absent: no truth check.
   */
  facts?: ReadonlyMap<string, CellFactsState>;
  /** Truth allowlist entries (`allowlists/truth/*.json`). */
  truthAllowlist?: readonly LoadedTruthEntry[];
  /** Does an untruth caused by our bridge fail its cell (default `fail`; the gate passes `BRIDGE_UNTRUTHS` or `--strict-truth`)? */
  bridgeUntruths?: "fail" | "warn";
}

/** Progress events of {@link checkCells}; `finished` comes once per cell, skipped ones included. */
export interface CheckCellsProgress {
  started(index: number): void;
  finished(index: number, cell: CellResult): void;
}

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

/** Result of {@link checkCells}. */
export interface CheckCellsResult {
  run: CheckRunResult;
  extras: CellExtras[];
  /**
   * Under a write policy other than `never`, the replay of each changed cell that can be accepted
   * (`whyNotAcceptable`), by `provider/cell`: what its pending results are made from
   * (pending.ts), so they need no replay of the cell. Empty under `never`: no cell's bridge lines
   * are kept then, and an unchanged cell's are let go once it is compared.
   */
  replayed: Map<string, ReplayedCell>;
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

function skipped(location: RecordingLocation, reason: string): CellResult {
  return {
    provider: location.provider,
    cell: location.cell,
    status: "skip",
    ms: 0,
    events: 0,
    diffs: [],
    stale: [],
    divergences: [],
    detail: { skipReason: reason },
  };
}

/**
 * The parity gate over selected cells (docs/design/00-product.md flows 2–3, CLI `check`; spec 10 §6):
 * each thread-scoped cell is replayed through its bridge, its live thread lane normalized
 * and compared with `compareParity` against (a) the oracle `lanes/<provider>/<cell>.json`
 * and (b) the recording's own lane (`.current` when present) assembled today. Recordings
 * outside the repository have no oracle. A cell fails on any unmasked difference, stale
 * entry or replay divergence; process-scoped cells and providers with no replay profile are
 * skipped. An ACP recording replays with the dialect its recorded agent command implies
 * (the replay's launch-spec rewrite pins it). The cells of one provider replay in at most `jobs` batches, each through one
 * bridge process (`replayBatch`; a batch that diverges is replayed again cell by cell; how
 * many batches: `planBatches`), and the batches run `jobs` at a time; a cell's `ms` is its own
 * part of its batch's wall time (see `replayBatch`) plus its comparison. A recording, lane or
 * oracle that cannot be read makes that cell an `error` (the InputError's one line, file and
 * line) while every other cell is still checked.
 * A missing oracle of an in-repo recording follows `options.write` (write-policy.ts): written
 * from a clean replay (temp file + rename) in place or as `<oracle>.pending`, or, under `never`
 * (CI), not at all; only an oracle written in place lets the cell pass (cell-status.ts).
 * A recording of at most {@link HELD_RECORDING_BYTES} is read and parsed once, at validation,
 * and that parse feeds the replay and the recorded leg. Memory does not grow with a larger
 * cell's length when no allowlist entry applies to it: its recording is validated without
 * being held and (replayed alone) read as the walk goes, its
 * live lane is normalized and spilled to a temporary file as it is assembled, and the lanes are
 * compared event by event (`compareParityBySide`); whole lanes are loaded only for a side with
 * a difference to show, an applying entry, `--dump-dir` or an oracle to write.
 *
 * @throws only what is not an input error (bad inputs become `error` cells)
 */
export async function checkCells(options: CheckCellsOptions): Promise<CheckCellsResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const results: Array<{ cell: CellResult; extras: CellExtras } | undefined> = new Array(options.locations.length);
  const replayed = new Map<string, ReplayedCell>();
  // Every recording is validated before any replay; an unreadable one is that cell's error, and
  // every other cell is still checked. A small recording (every real one) is read, parsed and
  // held once here and handed on to the replay and the recorded leg; a larger one is validated
  // without holding its entries and streamed from its directory as the walk goes.
  const recordings: Array<CheckedRecording | undefined> = await Promise.all(
    options.locations.map(async (location, index) => {
      try {
        return await checkRecording(location);
      } catch (thrown) {
        if (!(thrown instanceof InputError)) throw thrown;
        results[index] = { cell: inputErrorCell(location, thrown, 0), extras: emptyExtras(location) };
        options.progress?.finished(index, results[index].cell);
        return undefined;
      }
    }),
  );

  // Replayable cells, grouped by provider, each group cut into at most `jobs` batches that
  // each replay through one bridge process; the rest are skipped here.
  const groups = new Map<string, number[]>();
  options.locations.forEach((location, index) => {
    if (recordings[index] === undefined) return;
    const reason = skipReason(location, recordings[index]!, options);
    if (reason !== undefined) {
      results[index] = { cell: skipped(location, reason), extras: emptyExtras(location) };
      options.progress?.finished(index, results[index].cell);
      return;
    }
    groups.set(location.provider, [...(groups.get(location.provider) ?? []), index]);
  });
  const jobs = Math.max(1, options.jobs);
  const msOf = (index: number): number | undefined => options.cellTimes?.get(`${options.locations[index]!.provider}/${options.locations[index]!.cell}`);
  const tasks = planBatches([...groups.values()], jobs, options.batch !== false, msOf);
  // Each live lane is normalized as it is assembled and spilled to a file here (cell-legs.ts).
  const spillDir = tasks.length > 0 ? await mkdtemp(path.join(tmpdir(), "parity-lanes-")) : undefined;
  const spills = spillDir === undefined ? undefined : createLiveLaneSpills(spillDir);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const task = tasks[next];
      next += 1;
      if (!task) return;
      // The batch that starts when this one's worker is free again gets its bridge started now,
      // so its start-up overlaps this batch (the caller started the first `jobs` ones).
      const ahead = tasks[next - 1 + jobs];
      if (ahead) options.startBridge?.(options.locations[ahead[0]!]!.provider);
      const taskStarted = now();
      for (const index of task) options.progress?.started(index);
      const sources: ReplaySource[] = task.length === 1 ? [recordings[task[0]!]!.source] : await Promise.all(task.map((i) => heldSource(recordings[i]!.source, options.locations[i]!)));
      // The live bridge lines are kept only when this run may write pending results from them.
      const keepBridgeLane = options.write !== "never";
      const replays: Array<ReplayResult | undefined> = await replayBatch(sources, { ...options.replay, keepBridgeLane, laneEvents: (dir) => spills!.open(dir) }, now);
      const share = (now() - taskStarted) / task.length;
      for (const [k, index] of task.entries()) {
        // The recorded leg is built (or, streamed, opened) and the recording let go before
        // comparing: a large cell never holds its recording and both lanes at once.
        const location = options.locations[index]!;
        const { lane, ...replay } = replays[k]!;
        replays[k] = undefined;
        const compareStarted = now();
        const replayMs = replay.ms ?? share;
        try {
          const live = spills!.leg(location.dir, lane) ?? { ...heldLeg(legOf(lane)), events: lane.events.length };
          const source = sources[k]!;
          const recorded = recordedLeg(isRecording(source) ? source : recordings[index]!);
          const agentSide = agentSideOf(isRecording(source) ? source : undefined, location.dir);
          sources[k] = "";
          recordings[index] = undefined;
          const compared = await compareCell(location, replay, live, recorded, replayMs, options, agentSide);
          compared.cell.ms = replayMs + (now() - compareStarted);
          results[index] = compared;
          if (keepBridgeLane && whyNotAcceptable(compared.cell) === undefined && compared.cell.detail?.missingOracle !== true) {
            replayed.set(`${location.provider}/${location.cell}`, { ...replayedParts(replay), live: liveThreadLaneOfLeg(await live.load()) });
          }
        } catch (thrown) {
          if (!(thrown instanceof InputError)) throw thrown;
          results[index] = { cell: inputErrorCell(location, thrown, replayMs + (now() - compareStarted)), extras: emptyExtras(location) };
        } finally {
          spills!.release(location.dir);
        }
        options.progress?.finished(index, results[index]!.cell);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(jobs, Math.max(1, tasks.length)) }, worker));
  } finally {
    if (spillDir !== undefined) await rm(spillDir, { recursive: true, force: true });
  }
  const done = results.filter((r): r is { cell: CellResult; extras: CellExtras } => r !== undefined);
  const run: CheckRunResult = { ms: now() - started, cells: done.map((r) => r.cell) };
  if (options.facts !== undefined) run.truthStale = staleTruthEntries(done.map((r) => r.extras.truthEntries ?? []));
  return { run, extras: done.map((r) => r.extras), replayed };
}

/**
 * Largest recording, its lane files' bytes together, that `checkCells` reads once and holds
 * from validation to comparison: 1 MiB (real recordings are under 100 KiB). A larger one is
 * validated streamed and read again by the walk, so memory does not grow with it.
 */
export const HELD_RECORDING_BYTES = 1024 * 1024;

/** A recording that passed validation, with what its replay starts from. */
type CheckedRecording = ValidatedRecording & { source: Recording | CountedRecordingDir };

/**
 * Validates one recording (spec 10 §4): read and parsed once and held when its lane files
 * together are at most {@link HELD_RECORDING_BYTES}, else streamed with the replay plan's counts
 * taken on the way (the walk then streams it again).
 *
 * @throws InputError as `readRecording`
 */
async function checkRecording(location: RecordingLocation): Promise<CheckedRecording> {
  const expect = { provider: location.provider, cell: location.cell };
  if ((await laneBytes(location.dir)) <= HELD_RECORDING_BYTES) {
    const recording = await readRecording(location.dir, { expect });
    return { dir: location.dir, manifest: recording.manifest, hasCurrentBridgeLane: recording.currentBridgeLane !== null, source: recording };
  }
  const counter = createPlanCounter();
  const validated = await validateRecording(location.dir, { expect, onEntry: counter.take });
  return { ...validated, source: { dir: location.dir, counts: counter.result() } };
}

/** The bytes of a recording directory's `.ndjson` files together (0 for a directory that cannot be listed: validation names it). */
async function laneBytes(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const sizes = await Promise.all(names.filter((name) => name.endsWith(".ndjson")).map(async (name) => (await stat(path.join(dir, name)).catch(() => undefined))?.size ?? 0));
  return sizes.reduce((a, b) => a + b, 0);
}

/** A batch's cells share one bridge only when each is held: a streamed one is read whole here. */
async function heldSource(source: Recording | CountedRecordingDir, location: RecordingLocation): Promise<Recording> {
  return isRecording(source) ? source : readRecording(location.dir, { expect: { provider: location.provider, cell: location.cell } });
}

/** What a rerecord takes from a cell's replay besides its live thread lane (`ReplayedCell`). */
function replayedParts(replay: Omit<ReplayResult, "lane">): Omit<ReplayedCell, "live"> {
  const { ok, infrastructureTimeout, divergences, divergenceCount, notes, bridgeLane } = replay;
  return { ok, infrastructureTimeout, divergences, divergenceCount, notes, bridgeLane };
}

/** A cell whose recording or oracle could not be read (status `error`, see `erroredCell`). */
function inputErrorCell(location: RecordingLocation, error: InputError, ms: number): CellResult {
  return erroredCell({
    provider: location.provider,
    cell: location.cell,
    message: error.message,
    ms,
    ...(error.file !== undefined ? { file: error.file } : {}),
    ...(error.line !== undefined ? { line: error.line } : {}),
  });
}

function emptyExtras(location: RecordingLocation): CellExtras {
  return { provider: location.provider, cell: location.cell, notes: [], masked: [], stderr: "" };
}

/** Why a cell is not replayed (process-scoped, or no replay profile), or undefined. */
function skipReason(location: RecordingLocation, recording: Pick<ValidatedRecording, "manifest">, options: CheckCellsOptions): string | undefined {
  if (recording.manifest.scope === "process") return "process-scoped: no thread lane";
  if (options.replay?.modulePath !== undefined) return undefined;
  try {
    replayProfileFor(location.provider, options.replay?.adapters);
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}

/** A thread lane as a comparison leg: its events normalized, its unhandled count and grammar drops. */
function legOf(lane: Pick<ReplayResult["lane"], "events" | "unhandled" | "grammarDrops">): ParityLeg {
  return { events: normalizeThreadLane(lane.events), unhandled: lane.unhandled, grammarDrops: grammarDropKeys(lane.grammarDrops) };
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
async function compareCell(
  location: RecordingLocation,
  result: Omit<ReplayResult, "lane">,
  live: CellLeg & { events: number },
  recorded: CellLeg,
  ms: number,
  options: CheckCellsOptions,
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
  const input = { provider: location.provider, cell: location.cell, allowlist: options.allowlist, recordingDir: location.dir, judgedElsewhere: isClassWide };
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
  extras.masked = verdict.masked.map((m) => ({ entry: m.entry, ...m.sides, masksDifference: m.masksDifference }));
  // A timed-out replay's live lane is cut short: nothing is dumped from it (no write without a verdict).
  if (options.dumpDir !== undefined && liveWhole !== undefined && recordedWhole !== undefined && result.infrastructureTimeout === null) {
    await dumpLanes(path.join(options.dumpDir, `${location.provider}-${location.cell}`), { live: liveWhole, recorded: recordedWhole, oracle: oracleWhole }, result);
  }
  const divergences = result.divergences.slice(0, REPORTED_DIVERGENCES).map(toReportDivergence);
  const replay = replayOutcomeOf(result);
  // The truth check: the same live lane against the cell's facts, for an in-project cell with a
  // clean replay (a cut-short lane has no truth to judge).
  const facts = replay === "clean" ? options.facts?.get(`${location.provider}/${location.cell}`) : undefined;
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
