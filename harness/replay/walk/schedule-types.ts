import type { BridgeProcessEvent, SpawnedBridge } from "../../runtime/bridge-process.js";
import type { ChildChannelEvent } from "../stand-ins/child-channel.js";
import type { ReplayDivergence, ReplayNote } from "./divergence.js";
import type { EventQueue } from "./event-queue.js";
import type { IdlenessJudge } from "../idleness/index.js";
import type { ReplayStep } from "../plan/plan.js";

/** Every live event the scheduler consumes, from the bridge (harness/runtime/bridge-process.ts) or an agent stand-in. */
export type ReplayEvent = BridgeProcessEvent | ChildChannelEvent;

/** Id of the handshake the harness sends when the recording holds none (spec 10 §5.1 step 2). */
export const HARNESS_INITIALIZE_ID = "parity-initialize";

/** The `initialize` params the harness sends (spec 10 §1.1; harness/runtime/handshake.ts). */
export const HARNESS_INITIALIZE_PARAMS = {
  protocolVersion: 2,
  client: { name: "bridge-parity", version: "0" },
  grammarVersions: [3, 3],
} as const;

/**
 * The bounds of a schedule (docs/design/00-product.md, Determinism). None of them paces a replay or
 * decides a parity verdict: divergence is judged when the bridge is idle (see
 * {@link ScheduleIo.idleness}); these only bound the impossible.
 */
export interface ScheduleTimeouts {
  /**
   * Wall-clock ceiling of the whole walk in ms (default 120 000 per cell). Reaching it is an
   * `infrastructure timeout`, never a parity divergence: the machine, not the bridge, failed.
   */
  ceilingMs: number;
  /** How long the bridge may take to exit after its stdin closed, in ms (default 5000). */
  exitMs: number;
  /**
   * A bridge timer due within this many ms counts as work still to come, so the bridge is not
   * yet idle (its agent-turn quiet period and cancel settle wait, spec 30 §5, §6.2); a timer
   * further out bounds a stuck agent and is not waited for (default 10 000).
   */
  timerHorizonMs: number;
  /**
   * Where `/proc` cannot tell whether the bridge is idle (not Linux), the silence in ms after
   * which it is taken to be (default 3000); unused on Linux.
   */
  fallbackQuietMs: number;
}

/** How settled the bridge and its agents are (see harness/replay/idleness/judge.ts). */
export type { Settlement } from "../idleness/index.js";

/** One line the live bridge wrote to the runtime during the walk. */
export interface LiveBridgeLine {
  /** The line, with bridge-minted request ids mapped back to the recorded ids. */
  line: string;
  /** The recording's clock when it arrived: the matched expectation's `ts`, else the last walked `ts` (ms). */
  clock: number;
  /**
   * `(run, seq)` of the input it is anchored after (what caused it): for a line that met an
   * expectation, the input that expectation was recorded after; for one that met none, the last
   * input written before it arrived — only an upper bound of its cause, which
   * `anchorBridgeLines` narrows. Null: before the first input.
   */
  anchor: { run: number; seq: number } | null;
  /** True when the line met a recorded expectation (its anchor is then the recorded one). */
  met: boolean;
}

/** What one walk produced (before lane assembly). */
export interface ScheduleOutcome {
  divergences: ReplayDivergence[];
  /** Total divergences, including those not kept. */
  divergenceCount: number;
  notes: ReplayNote[];
  bridgeLines: LiveBridgeLine[];
  /** Expectations met / total. */
  expectationsMet: number;
  expectationsTotal: number;
  /** The bridge's exit, when it exited. */
  exit: { code: number | null; signal: string | null } | null;
  /**
   * Set when the walk hit its wall-clock ceiling ({@link ScheduleTimeouts.ceilingMs}): an
   * infrastructure timeout, not a parity verdict; `seq` is the last recorded entry walked.
   */
  infrastructureTimeout: { ceilingMs: number; seq: number | null } | null;
  /** pids of every replay child that connected. */
  childPids: number[];
}

/** What the scheduler drives. */
export interface ScheduleIo {
  queue: EventQueue<ReplayEvent>;
  bridge: SpawnedBridge;
  /**
   * Rewrites a runtime line of `step` before it is written (launch spec, cwd, PATH; spec 10
   * §5.1 g), after {@link ScheduleIo.toLive}; the step tells a batch which cell's workspace
   * a `params.cwd` becomes.
   */
  rewriteRuntime(line: string, step: ReplayStep): string;
  /**
   * The replay sandbox's recorded → live path mapping of the recorded line of an input
   * `step` (`runtime→bridge` or `provider→bridge`), applied before ids are mapped and the
   * runtime rewrite runs; identity when absent. See harness/replay/sandbox.ts.
   */
  toLive?(line: string, step: ReplayStep): string;
  /**
   * The sandbox's live → recorded path mapping of every line the bridge emits (to the
   * runtime or to an agent), applied before matching, the sink and the kept bridge lines;
   * identity when absent.
   */
  toRecorded?(line: string): string;
  /** Receives one line per event and write, for `--verbose` diagnosis; optional. */
  trace?: (text: string) => void;
  /**
   * Receives, in live order, every runtime line written (as recorded) and every bridge line
   * that belongs to the lane with its recording clock: where the thread lane is assembled
   * while the replay runs.
   */
  sink?: LiveLineSink;
  /** Told of every expectation the bridge met (a batch replay counts them per cell). */
  onMet?: (step: ReplayStep) => void;
  /**
   * Tells how settled the bridge and its agents are (harness/replay/idleness/: the `/proc`
   * judge on Linux, else a quiet window of {@link ScheduleTimeouts.fallbackQuietMs}); the walk
   * closes it at its end.
   */
  idleness: IdlenessJudge;
  /**
   * True while a line written to the bridge or a replay child still sits in this process's buffers,
   * or a replay child connected and its announcement is not read yet (`ChildChannel.unannounced`):
   * either way the tree's next move depends on this process, and no look at it can judge it idle.
   */
  writesPending?: () => boolean;
  /** Monotonic clock in ms for the wall-clock ceiling (injected; default `performance.now`). */
  now?: () => number;
  /** Keep the bridge's lines for {@link ScheduleOutcome.bridgeLines} (default true). */
  keepBridgeLines?: boolean;
}

/** The streaming consumer of a replay's live lines (see {@link ScheduleIo.sink}). */
export interface LiveLineSink {
  /** A `bridge→runtime` line of the lane and the recording clock (ms) it arrived at. */
  bridgeLine(line: string, clock: number): void;
  /** A recorded `runtime→bridge` line just written to the bridge. */
  runtimeLine(line: string): void;
}
