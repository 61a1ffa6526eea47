/**
 * The live half of `parity record` of one cell (see record-cell.ts): the workspace, the model
 * endpoint, the bridge in record mode and the cell's runtime script run against it, with a
 * watch on sockets where no network namespace isolates the agent.
 */
import { cp } from "node:fs/promises";
import path from "node:path";
import { RECORD_DIR_ENV_VAR } from "../../stack/bridge-kit/child-env.js";
import { createRealScheduler, every, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { ensureDir } from "../recording/atomic-write.js";
import { runCellScript, type CellRun, type CellStep, type Until } from "../runtime/cell-driver.js";
import { spawnBridge } from "../runtime/spawn-bridge.js";
import { startModelServer, TOOL_REJECTION_PATTERNS, type ModelServer } from "../model-server/server.js";
import type { Cell } from "../runtime/cells.js";
import { processesWorkingIn } from "./leftovers.js";
import { NETNS_MODEL_PORT, netnsLauncher, type NetworkIsolation } from "./network.js";
import type { PreparedProvider, RecordDirs, RecordProvider } from "../families/record-provider.js";
import { CellDivergedError, RECORD_STEP_TIMEOUT_MS, type RecordCellRequest } from "./record-request.js";
import { nonLoopbackPeers } from "./sockets.js";

/**
 * How often the sockets of a watched run are read, in ms, besides before every step and after
 * the last: it bounds how short an outbound connection can be and still be seen.
 */
export const SOCKET_WATCH_INTERVAL_MS = 50;

/** Everything one recording run knows before it starts anything. */
export interface LiveRecordContext {
  req: RecordCellRequest;
  log: (text: string) => void;
  provider: RecordProvider;
  cell: Cell;
  /** How the agent is kept on loopback; undefined when it takes no model endpoint. */
  isolation: NetworkIsolation | undefined;
  /** The run's temp root; everything below it goes when the run ends. */
  root: string;
  dirs: RecordDirs & { tmp: string };
  /** Where the bridge's record mode writes its lanes. */
  recordDir: string;
  /** The model endpoint's Unix socket inside a network namespace (`<root>/model.sock` when that path fits one). */
  modelSocket: string;
  /** Rejects when the run is interrupted. */
  abort: { promise: Promise<never>; dispose(): void };
  /** Timers of the socket watch. Absent: the real scheduler. */
  scheduler?: Scheduler;
}

/** What a run has started (to stop it), and the outbound connections seen while watching. */
export interface LiveRecord {
  model: ModelServer | undefined;
  bridge: ReturnType<typeof spawnBridge> | undefined;
  /** Outbound connections seen while watching (no namespace): each fails the recording. */
  readonly outbound: Set<string>;
  /** Reads the sockets of the run's processes now (a no-op unless watching). */
  watchSockets(): void;
  stopWatching(): void;
}

/** Starts the socket watch of a run (every {@link SOCKET_WATCH_INTERVAL_MS} when watching). */
export function createLiveRecord(ctx: LiveRecordContext): LiveRecord {
  const live: LiveRecord = {
    model: undefined,
    bridge: undefined,
    outbound: new Set<string>(),
    watchSockets() {
      if (ctx.isolation?.kind !== "watch") return;
      const pids = [...processesWorkingIn(ctx.root), ...(live.bridge?.pid ? [live.bridge.pid] : [])];
      for (const s of nonLoopbackPeers(pids)) live.outbound.add(`pid ${s.pid} connected to ${s.remoteAddress}:${s.remotePort} (${s.protocol}), outside loopback`);
    },
    stopWatching() {
      stopWatch?.();
    },
  };
  const watching = ctx.isolation?.kind === "watch";
  const stopWatch = watching ? every(ctx.scheduler ?? createRealScheduler(), SOCKET_WATCH_INTERVAL_MS, () => live.watchSockets(), { keepAlive: false }) : undefined;
  return live;
}

const SESSION_OPS = new Set(["thread/start", "thread/resume", "thread/fork"]);

/**
 * The cell's steps with a wait for the provider's `sessionSettled` event after every session
 * step (see {@link RecordProvider.sessionSettled}), so cells stay provider-agnostic.
 */
export function withSessionWaits(steps: readonly CellStep[], settled: Until | readonly Until[] | undefined): CellStep[] {
  const waits: CellStep[] = (settled === undefined ? [] : Array.isArray(settled) ? (settled as readonly Until[]) : [settled as Until]).map((until) => ({ op: "wait", until }));
  if (waits.length === 0) return [...steps];
  return steps.flatMap((step): CellStep[] => (SESSION_OPS.has(step.op) ? [step, ...waits] : [step]));
}

/** Starts the model endpoint of a cell's model script, on a unix socket inside a network namespace. */
async function startCellModel(ctx: LiveRecordContext): Promise<ModelServer | undefined> {
  const { provider, cell, dirs, isolation } = ctx;
  const def = cell.definition;
  if (!provider.takesModelEndpoint || !def.model) return undefined;
  return startModelServer({
    script: provider.spellScript ? provider.spellScript(def.model) : def.model,
    vars: { cwd: dirs.workspace },
    ...(provider.modelApi ? { api: provider.modelApi } : {}),
    rejectionPatterns: [...TOOL_REJECTION_PATTERNS, ...(provider.rejectionPatterns ?? [])],
    ...(isolation?.kind === "netns" ? { unixSocket: { path: ctx.modelSocket, port: NETNS_MODEL_PORT } } : {}),
  });
}

/** Spawns the bridge in record mode, its temp dir inside the run's root. */
function startRecordingBridge(ctx: LiveRecordContext, prepared: PreparedProvider, model: ModelServer | undefined): ReturnType<typeof spawnBridge> {
  const { req, provider, dirs, root, isolation } = ctx;
  return spawnBridge({
    modulePath: provider.modulePath,
    providerId: provider.id,
    // TMPDIR inside the run's root, so the bridge's own temp dir goes when the root does.
    env: { ...prepared.env, [RECORD_DIR_ENV_VAR]: ctx.recordDir, TMPDIR: dirs.tmp },
    cwd: dirs.workspace,
    dataDir: path.join(root, "data"),
    ...(req.onStderr ? { onStderr: req.onStderr } : {}),
    ...(isolation?.kind === "netns" && model ? { launcher: netnsLauncher(isolation, ctx.modelSocket, NETNS_MODEL_PORT) } : {}),
  });
}

/**
 * Runs the cell live: workspace, model endpoint, bridge, the runtime script; the bridge is
 * closed after it. `live` holds what was started, for the caller to stop.
 *
 * @throws CellDivergedError when the run did not go as scripted (or reached outside loopback);
 *   RecordInterruptedError on abort; bridge errors of the script.
 */
export async function runLiveCell(ctx: LiveRecordContext, live: LiveRecord): Promise<{ prepared: PreparedProvider; run: CellRun }> {
  const { req, provider, cell, dirs, root, log, abort } = ctx;
  const def = cell.definition;
  await ensureDir(dirs.workspace);
  await ensureDir(dirs.tmp);
  if (cell.workspace) await cp(cell.workspace, dirs.workspace, { recursive: true });
  live.model = await startCellModel(ctx);
  const { model } = live;
  const prepared = await provider.prepare(dirs, model, { name: cell.name, file: cell.file });
  const bridge = startRecordingBridge(ctx, prepared, model);
  live.bridge = bridge;
  log(`recording ${req.providerId}/${req.cell}: bridge pid ${bridge.pid ?? "?"}, temp ${root}\n`);
  const providerOptions = (prepared.options.providerOptions ?? {}) as Record<string, unknown>;
  const cellProviderOptions = (def.options.providerOptions ?? {}) as Record<string, unknown>;
  const options = { ...prepared.options, ...def.options, providerOptions: { ...providerOptions, ...cellProviderOptions } };
  const steps = withSessionWaits(def.steps, provider.sessionSettled);
  const running = runCellScript(
    bridge,
    { threadId: def.threadId, cwd: dirs.workspace, options, steps, answers: def.answers },
    {
      timeoutMs: req.timeoutMs ?? RECORD_STEP_TIMEOUT_MS,
      now: req.now,
      ...(req.signal ? { signal: req.signal } : {}),
      releaseModel: () => model?.releaseHeld() ?? 0,
      onStep: (i, step) => {
        live.watchSockets();
        log(`step ${i + 1}/${steps.length}: ${step.op}\n`);
        req.onStep?.(i, step, { root, bridgePid: live.bridge?.pid });
      },
    },
  );
  running.catch(() => undefined);
  const run: CellRun = await Promise.race([running, abort.promise]);
  live.watchSockets();
  await bridge.close();
  await Promise.race([Promise.resolve(), abort.promise]);
  const problems = [...live.outbound, ...run.problems, ...(model?.problems ?? [])];
  if (model && model.remaining() > 0) problems.push(`${model.remaining()} scripted model response(s) were never requested`);
  if (problems.length > 0) throw new CellDivergedError(req.cell, problems);
  return { prepared, run };
}
