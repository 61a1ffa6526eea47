/**
 * `runGate`: the gate as every caller runs it — `parity check`, `parity review`, `allow --migrate`
 * and `--prune`, `bridge-parity/vitest`, the benchmarks (docs/design/00-product.md flows 2–3; spec 10 §6):
 * the cells selected and the bridges started ahead (gate-start.ts), the allowlists loaded, the cells checked (`checkCells`), the cell times kept, and under a
 * write policy other than `never` the pending results of changed cells written (pending.ts).
 */
import path from "node:path";
import { loadAllowlists } from "../compare/allowlist.js";
import { loadTruthAllowlist } from "../compare/truth/truth-allowlist.js";
import { BRIDGE_UNTRUTHS, CELLS_ROOT } from "../defaults.js";
import { isInside } from "../recording/paths.js";
import { loadCellFacts } from "./cell-facts.js";
import { manifestCellOf } from "../recording/alternates.js";
import { oracleFromAnotherRun } from "./compare-cell.js";
import { loadCrossRunFacts } from "./cross-run.js";
import { attachCellVersions } from "./cell-versions.js";
import type { RecordingLocation } from "../recording/reader.js";
import type { ReplayRecordingOptions } from "../replay/replay-recording.js";
import { writeCellTimes } from "./cell-times.js";
import { checkCells, type CheckCellsResult } from "./check-cells.js";
import { settleClassWideStaleness } from "./class-wide-stale.js";
import { startGate, type GateContext, type GateOptions, type GateStart } from "./gate-start.js";
import { writePendingResults, type PendingResult } from "./pending.js";
import type { WritePolicy } from "./write-policy.js";

export type { GateContext, GateOptions, GateProgress, GateStart } from "./gate-start.js";

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
 * The gate (see the module comment), from options already resolved (a bad flag value is one
 * line, exit 2, before anything is replayed; harness/cli/options.ts). Writes nothing into the
 * project under the `never` policy; the cell times are a cache under `node_modules/.cache`.
 * `started`: the run as {@link startGate} began it with the same options and context (cells
 * chosen, first bridges spawned; `parity check` starts it before loading this module); absent,
 * it is started here. Every bridge of the pool that no replay took is ended before this returns
 * or throws.
 * @throws UsageError / InputError for no recorded cells, a bad allowlist or a refused `--dump-dir`;
 *   `DirectoryCreateError` for a `--dump-dir` that cannot be created.
 */
export async function runGate(options: GateOptions, ctx: GateContext, started?: GateStart): Promise<GateRun> {
  const { jobs, lanesDir } = options;
  const { selected, locations, replay, cellTimes, timesFile, bridges } = started ?? (await startGate(options, ctx));
  const dumpDir = options.dumpDir?.dir;
  const keepTimes = options.keepCellTimes !== false;
  const allowlist =
    options.allowlist ??
    (await loadAllowlists({ cwd: ctx.cwd, files: options.allowlistFiles }).catch(async (error: unknown) => {
      await bridges.close();
      throw error;
    }));
  // The truth check's inputs, read once before any replay: the facts of every in-project cell (one
  // read and freshness check per facts file; a stale one stops the run, exit 2) and the truth entries.
  // Only the project's own recordings: one outside it (../shared, a `record --out` directory) may
  // have been recorded from another definition of a cell of the same name, which these facts are not of.
  // An alternate is judged against its cell's facts (harness/recording/alternates.ts).
  const cellsRoot = options.replay.cellsRoot ?? path.resolve(ctx.cwd, CELLS_ROOT);
  const judged = options.truth === false ? [] : locations.filter((l) => isInside(ctx.cwd, l.dir)).map((l) => ({ provider: l.provider, cell: manifestCellOf(l) }));
  const truthInputs =
    options.truth === false
      ? undefined
      : await Promise.all([loadCellFacts(cellsRoot, judged), options.truthAllowlist ?? loadTruthAllowlist(ctx.cwd)]).catch(async (error: unknown) => {
          await bridges.close();
          throw error;
        });
  // The run-to-run rules' reference (cross-run.ts, the one builder of a cross-run comparison): the facts of each cell whose
  // oracle comes from another run, inside the project or not. Never a reason to stop the run: facts
  // that cannot be read (or are stale) leave that rule without a reference, which makes it inert.
  const acrossRuns = locations.filter((l) => oracleFromAnotherRun(l.dir, lanesDir)).map((l) => ({ provider: l.provider, cell: manifestCellOf(l) }));
  const runToRunFacts = acrossRuns.length === 0 ? undefined : await loadCrossRunFacts(cellsRoot, acrossRuns);
  const names = locations.map((l) => `${l.provider}/${l.cell}`);
  const progress = ctx.progress?.(locations.length);
  const { run, extras, replayed } = await checkCells({
    locations,
    repoRoot: ctx.cwd,
    lanesDir,
    oraclesForEveryRecording: options.lanesGiven,
    allowlist,
    ...(truthInputs !== undefined ? { facts: truthInputs[0], truthAllowlist: truthInputs[1], bridgeUntruths: options.bridgeUntruths ?? BRIDGE_UNTRUTHS } : {}),
    ...(runToRunFacts !== undefined ? { runToRunFacts } : {}),
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
  // A class-wide entry is stale only when it masked nothing in every selected cell (class-wide-stale.ts).
  settleClassWideStaleness(run.cells, extras);
  if (keepTimes) {
    const replayed = run.cells.filter((c) => c.status === "pass" || c.status === "fail");
    await writeCellTimes(timesFile, cellTimes, new Map(replayed.map((c) => [`${c.provider}/${c.cell}`, Math.round(c.ms)])));
  }
  if (options.flags !== undefined) run.flags = options.flags;
  // A truth entry is stale only over the whole selection: one shard sees part of it, so a wildcard
  // entry that masks in another shard would look stale here. Sharded runs leave staleness to the
  // unsharded check.
  if (options.shard !== undefined) delete run.truthStale;
  if (options.shard !== undefined) {
    // A shard's blob places each cell in the unsharded order (harness/report/blob.ts).
    run.shard = options.shard;
    run.total = selected.length;
    run.positions = locations.map((l) => selected.indexOf(l));
  }
  // From the gate's own replays (checkCells kept each changed cell's): no cell is replayed again.
  const pending =
    options.write === "never"
      ? new Map<string, PendingResult>()
      : await writePendingResults(run.cells, locations, replayed, {
          lanesDir,
          replay,
          cwd: ctx.cwd,
          notWritten: new Map(extras.flatMap((e) => (e.notWritten !== undefined ? [[`${e.provider}/${e.cell}`, e.notWritten] as const] : []))),
        });
  // After every write of this run, so an oracle written in place names the version it was written from.
  await attachCellVersions(run.cells, locations);
  return { run, extras, locations, lanesDir, replay, write: options.write, pending };
}
