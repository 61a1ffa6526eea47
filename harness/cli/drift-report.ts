/**
 * The drift between two recordings folders of one provider as data (issue 41): the agent's own
 * wire (harness/compare/wire-drift.ts) and the thread lanes (harness/compare/lane-drift.ts) of the
 * cells both hold, each change once with the cells it appears in; and its text lines. Used by
 * `parity drift` (drift.ts) and `parity record --repeat` (record-repeat.ts, run 1 against each
 * other run).
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Chalk } from "chalk";
import { UsageError } from "../errors.js";
import { laneDriftAcrossRuns, type HeldByRule, type LaneChange } from "../compare/lane-drift.js";
import { crossRunInput, loadCrossRunFacts } from "../check/cross-run.js";
import { wireChanges, wireProfile, type WireChange, type WireMessage } from "../compare/wire-drift.js";
import { buildThreadLane, normalizeThreadLane } from "../lanes/index.js";
import { listRecordings } from "../recording/locations.js";
import { readRecording, type Recording } from "../recording/reader.js";
import { readOracleVersion } from "../recording/oracle-version.js";
import { CELLS_ROOT, ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { visibleLine } from "../report/visible.js";

/** One side of a drift: its recordings of the provider, by cell. */
interface DriftSide {
  root: string;
  recordings: Map<string, Recording>;
  versions: string[];
  oracleVersions: string[];
}

async function readSide(flag: string, value: string, cwd: string, provider: string, emptyOk = false): Promise<DriftSide> {
  const root = path.resolve(cwd, value);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new UsageError(`--${flag} ${value}: not a recordings folder (give the recordings root of each side; recording an agent version is \`parity record\`'s)`);
  }
  const recordings = new Map<string, Recording>();
  for (const location of await listRecordings([root])) {
    if (location.provider !== provider) continue;
    recordings.set(location.cell, await readRecording(location.dir, { expect: { provider: location.provider, cell: location.cell } }));
  }
  if (recordings.size === 0 && !emptyOk) throw new UsageError(`--${flag} ${value}: no recording of ${provider} under it`);
  const versions = [...new Set([...recordings.values()].map((r) => r.manifest.cliVersion))].sort();
  return { root, recordings, versions, oracleVersions: await oracleVersionsOf(root, cwd, provider, [...recordings.keys()]) };
}

/**
 * The versions the oracles of a side's cells were accepted from (their sidecars,
 * harness/recording/oracle-version.ts): `<root>/lanes/<provider>/` as `record --out` writes it, or
 * the project's `lanes/` for the project's own `recordings/`; sorted, without the cells that have no oracle or sidecar.
 */
async function oracleVersionsOf(root: string, cwd: string, provider: string, cells: readonly string[]): Promise<string[]> {
  const own = path.join(root, ORACLES_DIR);
  const lanes = (await stat(own).catch(() => undefined))?.isDirectory() ? own : path.resolve(root) === path.resolve(cwd, RECORDINGS_ROOT) ? path.resolve(cwd, ORACLES_DIR) : undefined;
  if (lanes === undefined) return [];
  const versions = new Set<string>();
  for (const cell of cells) {
    const v = await readOracleVersion(path.join(lanes, provider, `${cell}.json`));
    if (v !== null) versions.add(v);
  }
  return [...versions].sort();
}

function agentMessages(side: DriftSide, cells: ReadonlySet<string>): WireMessage[] {
  const messages: WireMessage[] = [];
  for (const [cell, recording] of side.recordings) {
    if (!cells.has(cell)) continue;
    const entries = [...recording.lanes["provider→bridge"], ...recording.lanes["bridge→provider"]].sort((a, b) => a.run - b.run || a.seq - b.seq);
    for (const entry of entries) {
      try {
        messages.push({ cell, dir: entry.dir as WireMessage["dir"], message: JSON.parse(entry.line) });
      } catch {
        // A line that is not JSON (an agent's stray output) has no kind: nothing to compare.
      }
    }
  }
  return messages;
}

function threadLaneOf(recording: Recording): unknown[] {
  const built = buildThreadLane(recording);
  return built.scope === "process" ? [] : normalizeThreadLane(built.events);
}

/** One side of the report: where its recordings are, the CLI versions they name, how many cells; `agentVersion` when this run recorded it. */
export interface DriftSideReport {
  root: string;
  /** The CLI versions its recordings name (their manifests). */
  versions: string[];
  /** The CLI versions its cells' oracles were accepted from (their version sidecars; issue 41). */
  oracleVersions: string[];
  cells: number;
  /** The agent version this run installed and recorded the side with (`--from 0.170.0`). */
  agentVersion?: string;
  /** Cells this run failed to record on this side, with the one-line reason. */
  failed?: Array<{ cell: string; error: string }>;
}

/** The drift report as data (`--json`). */
export interface DriftReport {
  provider: string;
  from: DriftSideReport;
  to: DriftSideReport;
  common: string[];
  onlyFrom: string[];
  onlyTo: string[];
  wire: WireChange[];
  lanes: LaneChange[];
  /**
   * The run-to-run rules (harness/compare/run-to-run.ts) that held a difference between the sides,
   * each once with its cells: two live runs' lanes are compared folded with them (check/cross-run.ts),
   * so what a run's scheduling decides (a qwen-code long-output window) is named here, not in `lanes`.
   */
  runToRun: HeldByRule[];
  /** Cells recorded on one side and failed on the other (a recorded side only): their lanes changed. */
  brokenCells: Array<{ cell: string; failedOn: "from" | "to"; error: string }>;
  /** With `--repeat`: the changes that also varied between one side's own runs, set aside (not in `wire`/`lanes`, not counted). */
  varies?: { wire: WireChange[]; lanes: LaneChange[] };
}

/**
 * Compares two sides (see the module comment). The thread lanes are two live runs of each cell:
 * compared with the run-to-run rules, their input built by check/cross-run.ts (the cells' facts
 * under `cellsRoot`, default `<cwd>/cells`), as `parity check` compares a fresh re-record.
 * @throws UsageError (exit 2) for a folder that is not there or holds no recording of `provider`
 */
export async function driftReport(
  provider: string,
  fromValue: string,
  toValue: string,
  cwd: string,
  emptyOk: { from?: boolean; to?: boolean } = {},
  cellsRoot: string = path.resolve(cwd, CELLS_ROOT),
): Promise<DriftReport> {
  const from = await readSide("from", fromValue, cwd, provider, emptyOk.from);
  const to = await readSide("to", toValue, cwd, provider, emptyOk.to);
  const common = [...from.recordings.keys()].filter((cell) => to.recordings.has(cell)).sort();
  const commonSet = new Set(common);
  const wire = wireChanges(wireProfile(agentMessages(from, commonSet)), wireProfile(agentMessages(to, commonSet)), commonSet);
  const facts = await loadCrossRunFacts(
    cellsRoot,
    common.map((cell) => ({ provider, cell })),
  );
  const { changes: lanes, held } = laneDriftAcrossRuns(
    common.map((cell) => ({ cell, from: threadLaneOf(from.recordings.get(cell)!), to: threadLaneOf(to.recordings.get(cell)!), ...crossRunInput(facts, provider, cell) })),
  );
  return {
    provider,
    from: { root: fromValue, versions: from.versions, oracleVersions: from.oracleVersions, cells: from.recordings.size },
    to: { root: toValue, versions: to.versions, oracleVersions: to.oracleVersions, cells: to.recordings.size },
    common,
    onlyFrom: [...from.recordings.keys()].filter((c) => !commonSet.has(c)).sort(),
    onlyTo: [...to.recordings.keys()].filter((c) => !commonSet.has(c)).sort(),
    wire,
    lanes,
    runToRun: held,
    brokenCells: [],
  };
}

function value(v: unknown): string {
  const text = v === undefined ? "(absent)" : (JSON.stringify(v) ?? "null");
  return visibleLine(text.length > 70 ? `${text.slice(0, 69)}…` : text);
}

/** One wire change as a text line (two spaces in), its cells as `cells` names them. */
export function wireChangeLine(w: WireChange, cells: (list: readonly string[]) => string, c: InstanceType<typeof Chalk>): string {
  return `  ${c.yellow(w.change.padEnd(14))} ${visibleLine(w.kind)}${w.path !== undefined ? ` ${c.bold(visibleLine(w.path))}` : ""}${w.detail !== undefined ? `  ${visibleLine(w.detail)}` : ""}  (${cells(w.cells)})`;
}

/** One thread-lane change as a text line (two spaces in), its values cut to one line. */
export function laneChangeLine(l: LaneChange, cells: (list: readonly string[]) => string, c: InstanceType<typeof Chalk>): string {
  const values = l.op === "add" ? value(l.new) : l.op === "remove" ? value(l.old) : `${value(l.old)} → ${value(l.new)}`;
  return `  ${c.yellow(l.op.padEnd(7))} ${visibleLine(l.where)}  ${values}  (${cells(l.cells)})`;
}
