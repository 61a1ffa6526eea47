/**
 * The first part of the gate (`runGate` in gate.ts): the cells selected (`--recordings`,
 * `--provider`, `--cell`, `--shard`), the `--dump-dir` checked and made, the cell times read and
 * the bridges the workers start with spawned. A module graph of its own, light (the selection, the
 * batch plan, the bridge pool; no comparator, assembler, allowlist, replay walk or reporter, and no
 * zod: cells are found by their files' names, harness/recording/locations.ts), so
 * `parity check` spawns its bridges before it loads the rest (harness/cli/check.ts): a bridge's
 * start-up, the longest wait before a replay writes its first line, overlaps the CLI's own loading
 * and reading (issue 25).
 */
import path from "node:path";
import { UsageError } from "../errors.js";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { ensureDir } from "../recording/atomic-write.js";
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import type { LoadedTruthEntry } from "../compare/truth/truth-allowlist.js";
import { isInside } from "../recording/paths.js";
import type { RecordingLocation } from "../recording/locations.js";
import { selectRecordings, type CellFilter } from "../recording/select.js";
import type { RunFlags } from "../report/advice.js";
import type { CellStatus } from "../report/check-report.js";
import { createBridgePool, type BridgePool } from "../replay/bridge/bridge-pool.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import { firstBatchProviders } from "./batch-plan.js";
import { cellTimesFile, readCellTimes, type CellTimes } from "./cell-times.js";
import { shardCells } from "./shard.js";
import type { WritePolicy } from "./write-policy.js";

/** Everything a gate run takes, resolved (paths absolute). */
export interface GateOptions {
  /** Batches replayed at once (≥ 1). */
  jobs: number;
  /** Passed to every replay: `--timeout`, `--module`, `--cells`, `--agent-process`. */
  replay: Pick<ReplayRecordingOptions, "timeouts" | "modulePath" | "cellsRoot" | "agentProcess">;
  /** Recordings roots and the `--provider`/`--cell` filter. */
  selection: { roots: string[]; filter: CellFilter };
  /** Only these `provider/cell` names of the selection (`allow --migrate`); default all. */
  only?: ReadonlySet<string>;
  /** `--shard i/n`, parsed. */
  shard?: { index: number; count: number };
  /** `--allowlist` files, besides `allowlists/*.json`; or the entries to use as they are (none: `[]`). */
  allowlistFiles: string[];
  allowlist?: readonly LoadedAllowlistEntry[];
  /** The truth allowlist entries to use as they are; default `allowlists/truth/*.json` of the project. */
  truthAllowlist?: readonly LoadedTruthEntry[];
  /** Judge each lane against its cell's facts (default true; `bench/` and callers that measure sameness alone turn it off). */
  truth?: boolean;
  /** Does an untruth caused by our bridge fail its cell (`--strict-truth`)? Default `BRIDGE_UNTRUTHS` (harness/defaults.ts). */
  bridgeUntruths?: "fail" | "warn";
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

/**
 * A gate run started by {@link startGate}: its cells chosen and its first bridges spawned. Whoever
 * holds one hands it to `runGate`, which ends every bridge no replay took; a caller that stops
 * before that calls `bridges.close()` itself (no bridge outlives the run).
 */
export interface GateStart {
  /** Every selected cell, before sharding (a shard's blob places its cells among them). */
  selected: RecordingLocation[];
  /** The cells this run checks: the selection, or this shard's share of it. */
  locations: RecordingLocation[];
  /** The replay options every replay of the run gets (the bridges were started with them). */
  replay: ReplayRecordingOptions;
  /** Earlier runs' cell times (cell-times.ts; empty when not kept) and their file (none without `node_modules/`). */
  cellTimes: CellTimes;
  timesFile: string | undefined;
  /** The bridges started ahead (replay/bridge/bridge-pool.ts). */
  bridges: BridgePool;
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
  // Each cell's accepted alternates are gated like cells (harness/recording/alternates.ts).
  const all = await selectRecordings(roots, options.selection.filter, { alternates: true });
  const selected = options.only === undefined ? all : all.filter((l) => options.only!.has(`${l.provider}/${l.cell}`));
  if (selected.length === 0 && options.only === undefined) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
  return selected;
}

/**
 * Starts a gate run (see the module comment), from options already resolved. Writes nothing but
 * the `--dump-dir` it is asked to make; spawns the bridges last, after every check that can fail.
 * @throws UsageError / InputError for no recorded cells or a refused `--dump-dir`;
 *   `DirectoryCreateError` for a `--dump-dir` that cannot be created. No bridge is running then.
 */
export async function startGate(options: GateOptions, ctx: GateContext): Promise<GateStart> {
  const selected = await selectedCells(options);
  // More shards than cells (a fixed CI matrix over a small project) leaves some empty: they pass.
  const locations = options.shard !== undefined ? shardCells(selected, options.shard) : selected;
  if (options.dumpDir !== undefined) {
    const { value, dir } = options.dumpDir;
    if (ctx.ci) refuseProjectDumpDir(value, dir, [path.resolve(ctx.cwd, ORACLES_DIR), path.resolve(ctx.cwd, RECORDINGS_ROOT), options.lanesDir, ...options.selection.roots]);
    await (ctx.createDumpDir ?? ((_value: string, at: string) => ensureDir(at)))(value, dir);
  }
  const replay: ReplayRecordingOptions = { ...options.replay };
  const timesFile = cellTimesFile(ctx.cwd);
  const cellTimes: CellTimes = options.keepCellTimes !== false ? await readCellTimes(timesFile) : new Map<string, number>();
  // The bridges the workers start with are started now: their start-up overlaps loading the rest
  // of the gate, reading the allowlists and recordings and planning (bridge-pool.ts; the replays
  // take them); each later batch's bridge starts while the batch before it on its worker runs.
  const bridges = createBridgePool();
  const providers = locations.map((l) => l.provider);
  for (const provider of firstBatchProviders(providers, options.jobs, options.batch, (i) => cellTimes.get(`${providers[i]}/${locations[i]!.cell}`))) bridges.start(provider, replay);
  // Spawned before this returns: the caller's next step may be a module load that holds the event loop.
  await bridges.spawned();
  return { selected, locations, replay, cellTimes, timesFile, bridges };
}
