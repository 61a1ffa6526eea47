import type { BridgeProcessEvent, ReplayBridgeProcess } from "./bridge-process.js";
import type { ChildChannelEvent } from "./child-channel.js";
import type { ReplayDivergence, ReplayNote } from "./divergence.js";
import type { EventQueue } from "./event-queue.js";
import type { ReplayStep } from "./plan.js";

/** Every live event the scheduler consumes, from the bridge or the private channel. */
export type ReplayEvent = BridgeProcessEvent | ChildChannelEvent;

/** Id of the handshake the harness sends when the recording holds none (spec 10 §5.1 step 2). */
export const HARNESS_INITIALIZE_ID = "parity-initialize";

/** The `initialize` params the harness sends (spec 10 §1.1; CONTRACTS handshake). */
export const HARNESS_INITIALIZE_PARAMS = {
  protocolVersion: 2,
  client: { name: "bridge-parity", version: "0" },
  grammarVersions: [3, 3],
} as const;

/** Timeouts of a schedule, in ms. They bound divergence only; nothing waits on them when the bridge keeps up. */
export interface ScheduleTimeouts {
  /** Silence after which unmet expectations are declared missing (default 3000). */
  quietMs: number;
  /** How long the bridge may take to exit after its stdin closed (default 5000). */
  exitMs: number;
  /** Consecutive silent waits after which the walk is abandoned (default 3). */
  maxSilentWaits: number;
  /** Extra quiet periods granted to a silent bridge that is still using CPU (default 10). */
  maxBusyWaits: number;
}

/** One line the live bridge wrote to the runtime during the walk. */
export interface LiveBridgeLine {
  /** The line, with bridge-minted request ids mapped back to the recorded ids. */
  line: string;
  /** The recording's clock when it arrived: the matched expectation's `ts`, else the last walked `ts` (ms). */
  clock: number;
  /** `(run, seq)` of the last input written before it arrived; null before the first input. */
  anchor: { run: number; seq: number } | null;
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
  /** pids of every replay child that connected. */
  childPids: number[];
}

/** What the scheduler drives. */
export interface ScheduleIo {
  queue: EventQueue<ReplayEvent>;
  bridge: ReplayBridgeProcess;
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
   * The bridge's CPU time so far (any unit), or undefined when unknown. A bridge that stays
   * silent for the quiet period but uses CPU over a further probe period is busy, not stuck,
   * and gets another quiet period (at most {@link ScheduleTimeouts.maxBusyWaits}).
   */
  cpuTime?: () => number | undefined;
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
