/**
 * `runGate`: the gate as every caller runs it — `parity check`, `parity review`, `allow --migrate`
 * and `--prune`, `bridge-parity/vitest`, the benchmarks (00-product.md flows 2–3; spec 10 §6):
 * the cells selected (`--recordings`, `--provider`, `--cell`, `--shard`), the bridges started
 * ahead, the allowlists loaded, the cells checked (`checkCells`), the cell times kept, and under a
 * write policy other than `never` the pending results of changed cells written (pending.ts).
 */
import path from "node:path";
import { loadAllowlists, type LoadedAllowlistEntry } from "../compare/allowlist.js";
import { UsageError } from "../errors.js";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { ensureDir } from "../recording/atomic-write.js";
import type { RecordingLocation } from "../recording/reader.js";
import { selectRecordings, type CellFilter } from "../recording/select.js";
import type { RunFlags } from "../report/advice.js";
import type { CellStatus } from "../report/check-report.js";
import { createBridgePool } from "../replay/bridge/bridge-pool.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import { firstBatchProviders } from "./batch-plan.js";
import { cellTimesFile, readCellTimes, writeCellTimes } from "./cell-times.js";
import { checkCells, shardCells, type CheckCellsResult } from "./check-cells.js";
import { writePendingResults, type PendingResult } from "./pending.js";
import type { WritePolicy } from "./write-policy.js";
import { isInside } from "../recording/paths.js";

/** Everything a gate run takes, resolved (paths absolute). */
export interface GateOptions {
  /** Batches replayed at once (≥ 1). */
  jobs: number;
  /** Passed to every replay: `--timeout`, `--module`, `--cells`. */
  replay: Pick<ReplayRecordingOptions, "timeouts" | "modulePath" | "cellsRoot">;
  /** Recordings roots and the `--provider`/`--cell` filter. */
  selection: { roots: string[]; filter: CellFilter };
  /** Only these `provider/cell` names of the selection (`allow --migrate`); default all. */
  only?: ReadonlySet<string>;
  /** `--shard i/n`, parsed. */
  shard?: { index: number; count: number };
  /** `--allowlist` files, besides `allowlists/*.json`; or the entries to use as they are (none: `[]`). */
  allowlistFiles: string[];
  allowlist?: readonly LoadedAllowlistEntry[];
  /** The oracles directory, and whether it was named (`--lanes`): then every recording is held to it. */
  lanesDir: string;
  lanesGiven: boolean;
  /** `--dump-dir` as typed and resolved. */
  dumpDir?: { value: string; dir: string };
  /** `--no-batch` turns batching off. */
  batch: boolean;
  /** The flags suggested commands repeat, as typed (harness/report/advice.ts). */
  flags?: RunFlags;
  /** May this run write (write-policy.ts; resolved once by the caller with `resolveWritePolicy`). */
  write: WritePolicy;
  /** Keep the history of cell times under `node_modules/.cache` (default true; a cache, never a verdict). */
  keepCellTimes?: boolean;
}

/** Progress of a gate run by cell name (`provider/cell`); `end` once the cells are done. */
export interface GateProgress {
  started(name: string): void;
  finished(name: string, status: CellStatus, ms: number): void;
  end(): void;
}

/** Where the gate runs: the project directory, CI, and where its progress goes. */
export interface GateContext {
  cwd: string;
  ci: boolean;
  /** Called once the cells are known, with how many there are. */
  progress?: (total: number) => GateProgress;
  /** Creates the `--dump-dir` (the CLI's turns a failure into one line naming the flag); default `ensureDir`. */
  createDumpDir?: (value: string, dir: string) => Promise<void>;
}

/** What {@link runGate} ran and how: the run, per-cell extras, the selected cells, the oracles directory, the replay options and the write policy. */
export interface GateRun extends Omit<CheckCellsResult, "replayed"> {
  locations: RecordingLocation[];
  lanesDir: string;
  replay: ReplayRecordingOptions;
  write: WritePolicy;
  /** Per changed cell (`provider/cell`) the gate wrote pending results for, what it wrote (pending.ts). */
  pending: Map<string, PendingResult>;
}

/**
 * Under CI the gate never writes into the project's oracles or recordings: a `--dump-dir` that
 * is, or lies inside, one of `protectedDirs` is refused.
 * @throws UsageError `--dump-dir <value>: CI=true: … inside <dir>; use a temp dir`.
 */
function refuseProjectDumpDir(value: string, resolved: string, protectedDirs: readonly string[]): void {
  for (const dir of protectedDirs) {
    if (isInside(dir, resolved)) {
      throw new UsageError(`--dump-dir ${value}: CI=true: the gate never writes into ${dir} (oracles and recordings); point it at a temp dir`);
    }
  }
}

/** The selected cells (before sharding). @throws UsageError when nothing is recorded there. */
async function selectedCells(options: GateOptions): Promise<RecordingLocation[]> {
  const roots = options.selection.roots;
  const all = await selectRecordings(roots, options.selection.filter);
  const selected = options.only === undefined ? all : all.filter((l) => options.only!.has(`${l.provider}/${l.cell}`));
  if (selected.length === 0 && options.only === undefined) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
  return selected;
}

/**
 * The gate (see the module comment), from options already resolved (a bad flag value is one
 * line, exit 2, before anything is replayed; harness/cli/options.ts). Writes nothing into the
 * project under the `never` policy; the cell times are a cache under `node_modules/.cache`.
 * @throws UsageError / InputError for no recorded cells, a bad allowlist or a refused `--dump-dir`;
 *   `DirectoryCreateError` for a `--dump-dir` that cannot be created.
 */
export async function runGate(options: GateOptions, ctx: GateContext): Promise<GateRun> {
  const { jobs, lanesDir } = options;
  const selected = await selectedCells(options);
  // More shards than cells (a fixed CI matrix over a small project) leaves some empty: they pass.
  const locations = options.shard !== undefined ? shardCells(selected, options.shard) : selected;
  const dumpDir = options.dumpDir?.dir;
  if (options.dumpDir !== undefined) {
    const { value, dir } = options.dumpDir;
    if (ctx.ci) refuseProjectDumpDir(value, dir, [path.resolve(ctx.cwd, ORACLES_DIR), path.resolve(ctx.cwd, RECORDINGS_ROOT), lanesDir, ...options.selection.roots]);
    await (ctx.createDumpDir ?? ((_value: string, at: string) => ensureDir(at)))(value, dir);
  }
  const replay: ReplayRecordingOptions = { ...options.replay };
  const keepTimes = options.keepCellTimes !== false;
  const timesFile = cellTimesFile(ctx.cwd);
  const cellTimes = keepTimes ? await readCellTimes(timesFile) : new Map<string, number>();
  // The bridges the workers start with are started now: their start-up overlaps reading the
  // allowlists and recordings and planning (bridge-pool.ts; the replays take them); each later
  // batch's bridge starts while the batch before it on its worker runs (startBridge).
  const bridges = createBridgePool();
  const providers = locations.map((l) => l.provider);
  for (const provider of firstBatchProviders(providers, jobs, options.batch, (i) => cellTimes.get(`${providers[i]}/${locations[i]!.cell}`))) bridges.start(provider, replay);
  const allowlist =
    options.allowlist ??
    (await loadAllowlists({ cwd: ctx.cwd, files: options.allowlistFiles }).catch(async (error: unknown) => {
      await bridges.close();
      throw error;
    }));
  const names = locations.map((l) => `${l.provider}/${l.cell}`);
  const progress = ctx.progress?.(locations.length);
  const { run, extras, replayed } = await checkCells({
    locations,
    repoRoot: ctx.cwd,
    lanesDir,
    oraclesForEveryRecording: options.lanesGiven,
    allowlist,
    jobs,
    write: options.write,
    batch: options.batch,
    cellTimes,
    ...(progress !== undefined ? { progress: { started: (i) => progress.started(names[i]!), finished: (i, cell) => progress.finished(names[i]!, cell.status, cell.ms) } } : {}),
    ...(dumpDir !== undefined ? { dumpDir } : {}),
    replay: { ...replay, bridges },
    startBridge: (provider) => bridges.ensureWaiting(provider, replay),
  }).finally(async () => {
    progress?.end();
    await bridges.close();
  });
  if (keepTimes) {
    const replayed = run.cells.filter((c) => c.status === "pass" || c.status === "fail");
    await writeCellTimes(timesFile, cellTimes, new Map(replayed.map((c) => [`${c.provider}/${c.cell}`, Math.round(c.ms)])));
  }
  if (options.flags !== undefined) run.flags = options.flags;
  if (options.shard !== undefined) {
    // A shard's blob places each cell in the unsharded order (harness/report/blob.ts).
    run.shard = options.shard;
    run.total = selected.length;
    run.positions = locations.map((l) => selected.indexOf(l));
  }
  // From the gate's own replays (checkCells kept each changed cell's): no cell is replayed again.
  const pending = options.write === "never" ? new Map<string, PendingResult>() : await writePendingResults(run.cells, locations, replayed, { lanesDir, replay });
  return { run, extras, locations, lanesDir, replay, write: options.write, pending };
}
