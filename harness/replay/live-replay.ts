import { rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { createRealScheduler, type ScheduledHandle, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { CELL_CEILING_MS } from "../defaults.js";
import type { LaneEntry } from "../recording/lane-entry.js";
import type { Manifest } from "../recording/manifest.js";
import { readRecording, type Recording } from "../recording/reader.js";
import type { SpawnedBridge } from "../runtime/bridge-process.js";
import type { ChildChannel, ReplayChildLink } from "./stand-ins/child-channel.js";
import type { ReplayDivergence, ReplayNote } from "./walk/divergence.js";
import { chooseIdlenessJudge } from "./idleness/index.js";
import { buildReplayPlan, planSource, type ReplayStep, type StepSource } from "./plan/plan.js";
import { canStreamRecording, openStreamingPlan, type CountedRecordingDir } from "./plan/stream-plan.js";

/**
 * What a replay is given: a recording directory (streamed when it has no current lane), a
 * directory already validated with its plan counts (streamed without counting again), or an
 * already read {@link Recording} (planned in memory).
 */
export type ReplaySource = string | Recording | CountedRecordingDir;

/** True when a {@link ReplaySource} is an already read recording. */
export function isRecording(source: ReplaySource): source is Recording {
  return typeof source !== "string" && "merged" in source;
}

/** The recording directory of a {@link ReplaySource}. */
export function replaySourceDir(source: ReplaySource): string {
  return typeof source === "string" ? source : source.dir;
}
import { replayProfileFor } from "./bridge/profiles.js";
import { bridgeLaunchOf, startBridge, type BridgeLaunchOptions, type PrestartedBridges } from "./bridge/launch.js";
import { findRepoRoot, replayArtifacts } from "./bridge/repo-paths.js";
import { chooseStandIn } from "./stand-ins/stand-in.js";
import { rewriteRuntimeLine } from "./sandbox/rewrite.js";
import { CELL_FIXTURE_DIR, createReplaySandbox, type ReplaySandbox } from "./sandbox/sandbox.js";
import { anchorBridgeLines, runSchedule, type LiveLineSink, type ScheduleOutcome, type ScheduleTimeouts } from "./walk/scheduler.js";

/** Options of {@link replayRecording}. Every field is optional. */
export interface ReplayOptions extends BridgeLaunchOptions {
  /*
   * From BridgeLaunchOptions (bridge/launch.ts): `repoRoot`, `modulePath`, `providerId`, `env`,
   * and `adapters`: the bridge families the replay knows; the provider's gives the bridge
   * module, and every family's hook re-points the agent launch a runtime line carries at the
   * agent stand-in (default: the shipped ones); `maxLineBytes`; and `agentProcess`, what the
   * bridge spawns as its agent: `in-process` (default: the relay, served inside the bridge by
   * its bootstrap where it can, else a perl relay process), `relay` (a perl relay process per
   * agent session) or `node` (the Node replay child; the default where `perl` is missing).
   */
  /** Plan the expectations from the current bridge lane when present (default true; spec 10 §5.1 Planning). */
  useCurrent?: boolean;
  /**
   * Bounds of the walk (see {@link ScheduleTimeouts}; `ceilingMs` here is per cell, a batch
   * of n cells gets n times it); defaults: ceiling 120 000 ms per cell,
   * exit 5000 ms, timer horizon 10 000 ms, fallback quiet 3000 ms.
   */
  timeouts?: Partial<ScheduleTimeouts>;
  /** Receives the live lines as they happen (the lane builder of `replayRecording`). */
  sink?: LiveLineSink;
  /** Keep the live bridge lane in the result (default true; the gate does not need it). */
  keepBridgeLane?: boolean;
  /** Receives a line per scheduler event (diagnosis; `--verbose`). */
  trace?: (text: string) => void;
  /**
   * Cells root whose `<cell>/workspace/` seeds each replayed cell's fresh workspace
   * (default: `cells/` of `repoRoot`; see harness/replay/sandbox.ts).
   */
  cellsRoot?: string;
  /**
   * Bridges started ahead of their replays (bridge/bridge-pool.ts): a replay whose bridge would be
   * started exactly so takes one instead of spawning its own.
   */
  bridges?: PrestartedBridges;
  /**
   * The replay's timers and clock (spec 40 §6: time is injected): the event queue's quiet
   * waits, the wall-clock ceiling and the children's grace at the end. Default the real one;
   * a bridge taken from `bridges` keeps the scheduler its pool started it with.
   */
  scheduler?: Scheduler;
}

/** What one live replay produced, before its thread lane is assembled (spec 10 §5.1 Result). */
export interface LiveReplay {
  provider: string;
  cell: string;
  recordingDir: string;
  /** True when nothing diverged and the replay finished within its ceiling. */
  ok: boolean;
  /**
   * Set when the replay hit its wall-clock ceiling: an infrastructure timeout, not a parity
   * verdict (the lane and divergences are then incomplete).
   */
  infrastructureTimeout: { ceilingMs: number; seq: number | null } | null;
  /** The first divergences (at most `MAX_KEPT_DIVERGENCES`), in the order found. */
  divergences: ReplayDivergence[];
  /** Total number of divergences. */
  divergenceCount: number;
  /** Generic answers and other things worth knowing that are not divergences. */
  notes: ReplayNote[];
  /**
   * The live bridge output as a `bridge→runtime` lane (the form rerecord writes, spec 10
   * §6.6 steps 2–4): the harness's own initialize answer dropped, bridge-minted request ids
   * mapped back to recorded ids, each line anchored after the input written before it,
   * `ts` = the recording clock the line was assembled at.
   */
  bridgeLane: LaneEntry[];
  /** The replayed recording's manifest. */
  manifest: Manifest;
  expectationsMet: number;
  expectationsTotal: number;
  exit: { code: number | null; signal: string | null } | null;
  /** pids of the bridge and of every replay child (all gone when this resolves). */
  pids: number[];
  /** The tail of the bridge's stderr. */
  stderr: string;
}

/** Wall-clock ceiling of one cell's replay, in ms (a batch gets it once per cell; harness/defaults.ts). */
export { CELL_CEILING_MS };

const DEFAULT_TIMEOUTS: Omit<ScheduleTimeouts, "ceilingMs"> = { exitMs: 5000, timerHorizonMs: 10_000, fallbackQuietMs: 3000 };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The steps of a recording: streamed from its directory when it has no current lane (memory
 * flat in its length), else planned in memory (the current lane must be aligned as a whole).
 */
async function openSteps(source: ReplaySource, useCurrent: boolean): Promise<{ manifest: Manifest; recordingDir: string; steps: StepSource }> {
  if (!isRecording(source)) {
    const dir = replaySourceDir(source);
    if (!useCurrent || canStreamRecording(dir)) {
      const streaming = await openStreamingPlan(dir, typeof source === "string" ? undefined : source.counts);
      return { manifest: streaming.manifest, recordingDir: dir, steps: streaming.source };
    }
  }
  const recording = isRecording(source) ? source : await readRecording(replaySourceDir(source));
  return { manifest: recording.manifest, recordingDir: recording.dir, steps: planSource(buildReplayPlan(recording, useCurrent)) };
}

/**
 * Replays one recording through a live bridge (docs/design/00-product.md flow 2; spec 10 §5); the
 * process side of `replayRecording`. The bridge is spawned through the bootstrap exactly as a
 * runtime would; the agent launch the runtime lines carry is re-pointed by the bridge family's
 * adapter (harness/adapters) so the bridge spawns the replay child, which reports to this
 * process over a private Unix socket. The walk is
 * paced by the recording's causal order only; time inside the lane is the recording's `ts`.
 * Every path kills the bridge and the children and removes the temporary directories.
 *
 * @param source a recording directory, a validated one with its plan counts, or an already read {@link Recording}
 * @throws InputError for a bad recording; UsageError for a provider with no replay profile;
 *   Error when the compiled artifacts are missing. A misbehaving bridge never throws: it
 *   shows up as divergences.
 */
export async function runLiveReplay(source: ReplaySource, options: ReplayOptions = {}): Promise<LiveReplay> {
  const { manifest, recordingDir, steps } = await openSteps(source, options.useCurrent ?? true);
  const { outcome, pids, stderr } = await driveBridge(steps, manifest.provider, { ...options, cells: [manifest.cell], recordingDirs: [recordingDir] });
  return {
    provider: manifest.provider,
    cell: manifest.cell,
    recordingDir,
    ok: outcome.divergenceCount === 0 && outcome.infrastructureTimeout === null,
    infrastructureTimeout: outcome.infrastructureTimeout,
    divergences: outcome.divergences,
    divergenceCount: outcome.divergenceCount,
    notes: outcome.notes,
    bridgeLane: anchorBridgeLines(steps.firstEntry, outcome.bridgeLines),
    manifest,
    expectationsMet: outcome.expectationsMet,
    expectationsTotal: outcome.expectationsTotal,
    exit: outcome.exit,
    pids,
    stderr,
  };
}

/** What {@link driveBridge} returns: the walk's outcome, every pid it started, the bridge's stderr tail. */
export interface DrivenBridge {
  outcome: ScheduleOutcome;
  pids: number[];
  stderr: string;
}

/** What {@link driveBridge} needs besides the replay options. */
export interface DriveOptions extends ReplayOptions {
  /** Told of every expectation met (a batch counts them per cell). */
  onMet?: (step: ReplayStep) => void;
  /** The replayed cells' names (`manifest.cell`), one fresh sandbox workspace each. */
  cells: readonly string[];
  /** Per cell, the recording directory (its carried `workspace/` fixture seeds the cell's workspace, see sandbox.ts). */
  recordingDirs?: readonly string[];
  /** Index into `cells` of the cell a step belongs to (default: 0, one cell). */
  cellOfStep?: (step: ReplayStep) => number;
}

/**
 * Spawns the provider's bridge through the bootstrap, points it at the replay child and walks
 * `steps` against it (see {@link runLiveReplay}); shared by single and batch replays. Each
 * cell gets a fresh workspace seeded with its fixture (harness/replay/sandbox.ts): a recorded
 * `params.cwd` becomes it, the recorded workspace path maps to it in every line written to
 * the bridge and back in every line the bridge emits, so nothing touches the host's recorded
 * path and the lanes name only the recorded one. Every path kills the bridge and the
 * children and removes the temporary directories.
 *
 * @throws UsageError for a provider with no replay profile; Error when artifacts are missing
 */
export async function driveBridge(steps: StepSource, provider: string, options: DriveOptions): Promise<DrivenBridge> {
  const root = options.repoRoot ?? findRepoRoot();
  // `in-process` is the relay stand-in too: the bridge's bootstrap serves its spawns (bridge/launch.ts).
  const standIn = chooseStandIn(options.agentProcess === "node" ? "node" : "relay", replayArtifacts(root).child);
  const profile = options.modulePath === undefined ? replayProfileFor(provider, options.adapters) : undefined;
  const modulePathRel = options.modulePath ?? profile!.modulePath;
  const modulePath = isAbsolute(modulePathRel) ? modulePathRel : resolve(root, modulePathRel);
  const cellCount = Math.max(1, options.cells.length);
  const timeouts: ScheduleTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts, ceilingMs: (options.timeouts?.ceilingMs ?? CELL_CEILING_MS) * cellCount };

  const cellOf = options.cellOfStep ?? (() => 0);
  // The bridge starts first: its start-up (a Node process loading its modules) overlaps making
  // the workspaces and the agent channel, which it needs only once the walk writes to it.
  const launch = bridgeLaunchOf(root, provider, modulePath, options);
  const scheduler = options.scheduler ?? createRealScheduler();
  const { base, queue, bridge } = await (options.bridges?.take(launch) ?? startBridge(launch, scheduler));
  let sandbox: ReplaySandbox;
  let channel: ChildChannel;
  let agent: { command: string; args: string[] };
  try {
    sandbox = await createReplaySandbox({
      base,
      cells: options.cells.length > 0 ? options.cells : [""],
      cellsRoot: options.cellsRoot ?? join(root, "cells"),
      fixtures: options.recordingDirs?.map((dir) => join(dir, CELL_FIXTURE_DIR)),
    });
    ({ channel, ...agent } = await standIn.open(base, (event) => queue.push(event), options.maxLineBytes));
  } catch (error) {
    bridge.kill();
    await bridge.whenExited();
    await rm(base, { recursive: true, force: true });
    throw error;
  }
  const rewrites = sandbox.workspaces.map((workspace) => ({
    childCommand: agent.command,
    childArgs: agent.args,
    workspace,
    path: process.env.PATH,
  }));
  const pids: number[] = bridge.pid === undefined ? [] : [bridge.pid];
  const idleness = chooseIdlenessJudge({ pid: bridge.pid, platform: process.platform, timerHorizonMs: timeouts.timerHorizonMs, fallbackQuietMs: timeouts.fallbackQuietMs });
  try {
    const outcome = await runSchedule(
      steps,
      {
        queue,
        bridge,
        rewriteRuntime: (line, step) => rewriteRuntimeLine(line, rewrites[cellOf(step)] ?? rewrites[0]!, options.adapters),
        toLive: (line, step) => sandbox.toLive(line, cellOf(step)),
        toRecorded: (line) => sandbox.toRecorded(line),
        keepBridgeLines: options.keepBridgeLane ?? true,
        idleness,
        writesPending: () => bridge.buffered > 0 || channel.unannounced > 0 || channel.children.some((child) => child.buffered > 0),
        now: () => scheduler.now(),
        ...(options.trace ? { trace: options.trace } : {}),
        ...(options.sink ? { sink: options.sink } : {}),
        ...(options.onMet ? { onMet: options.onMet } : {}),
      },
      timeouts,
      !steps.recordsInitialize,
    );
    pids.push(...outcome.childPids);
    return { outcome, pids, stderr: bridge.stderr() };
  } finally {
    idleness.close();
    await reap(bridge, channel.children, timeouts.exitMs, scheduler);
    await channel.close();
    for (const child of channel.children) if (!pids.includes(child.pid)) pids.push(child.pid);
    await rm(base, { recursive: true, force: true });
  }
}

/**
 * Makes sure nothing outlives the replay: the bridge is SIGKILLed if it still runs and its
 * exit awaited; each replay child is told to end and given `graceMs` (on `scheduler`) to close
 * its socket; one still alive after that is SIGKILLed by pid.
 */
async function reap(bridge: SpawnedBridge, children: readonly ReplayChildLink[], graceMs: number, scheduler: Scheduler): Promise<void> {
  bridge.kill();
  await bridge.whenExited();
  await Promise.all(
    children.map(async (child) => {
      child.end();
      let timer: ScheduledHandle | undefined;
      await Promise.race([child.whenClosed(), new Promise<void>((r) => (timer = scheduler.schedule(graceMs, r)))]);
      scheduler.cancel(timer);
      if (!child.inProcess && isAlive(child.pid)) {
        try {
          process.kill(child.pid, "SIGKILL");
        } catch {
          // gone in between
        }
      }
    }),
  );
}
