/**
 * The state of one causal walk (see `runSchedule` in scheduler.ts): the expectations read from
 * the plan and not yet met, the id maps between recorded and live ids, the divergences and
 * notes so far, and the walk's position in the recording. One instance per walk; the
 * modules `walk-lines.ts`, `walk-inputs.ts` and `walk-settle.ts` act on it.
 */
import type { JsonRpcId } from "../../../stack/protocol/json-rpc.js";
import type { ReplayChildLink } from "../stand-ins/child-channel.js";
import { MAX_KEPT_DIVERGENCES, type ReplayDivergence, type ReplayNote } from "./divergence.js";
import { fitOf } from "./matching.js";
import { requestCountKey, type ReplaySide, type ReplayStep, type StepSource } from "../plan/plan.js";
import type { LiveBridgeLine, ScheduleIo, ScheduleOutcome, ScheduleTimeouts } from "./schedule-types.js";
import { describeShape, type WireShape } from "../plan/wire.js";

/**
 * A `bridge→runtime` line that met no open expectation while the walk stood at a pipe switch (the
 * last input written and the next one on different pipes): a correct bridge may write a line
 * caused by the last input before the next one is even read, where the recording's bridge,
 * lagging, wrote it after (acp-claude/approval-deny's seq 30 after the runtime's answer 28,
 * caused by the agent's update 27). Held until an expectation opened later meets it once the
 * bridge settled, or until it is provably extra (a later line of `cause`'s pipe met an expectation
 * it would be recorded before) or the walk ends, when it is judged as it would have been on
 * arrival (`judge`). See walk/README.md, "Lines ahead of their expectation".
 */
export interface EarlyLine {
  shape: WireShape;
  line: string;
  /** The pipe of the last input written when it arrived (`channelOf`): the pipe of its cause. */
  cause: string;
  /** `(run, seq)` of that input: a live line that came after a later input of `cause`'s pipe may prove this one extra. */
  written: LiveBridgeLine["anchor"];
  /** Its entry in {@link ScheduleWalk.bridgeLines}, marked met if an expectation meets it. */
  lane: LiveBridgeLine | undefined;
  /** Notes or records what the line was judged on arrival (an extra delta, an unexpected line). */
  judge: () => void;
}

/** Recorded id key (`typeof:id`) → the live id the bridge minted for the same request. */
export type IdMap = Map<string, JsonRpcId>;

/** Thrown inside the walk to end it early; never escapes `runSchedule`. */
export class WalkAbort extends Error {}

/** An expectation read from the plan and not yet met, with the input written before it in walk order. */
export interface OpenExpectation {
  step: ReplayStep;
  anchor: LiveBridgeLine["anchor"];
  /** The pipe of that input (`channelOf`): where the bridge read what the expectation answers; undefined before the first input. */
  cause: string | undefined;
}

/** Where in the recording a divergence sits: `seq`, `run` and `dir` of a recorded entry, or nulls. */
export type RecordedPlace = Pick<ReplayDivergence, "seq" | "run" | "dir">;

/** The pipe an input goes through, or an expectation comes from: the runtime's, or one agent process's. */
export const channelOf = (step: ReplayStep): string => (step.side === "runtime" ? "runtime" : `agent ${step.segment}`);

/** The recorded place of `step`. */
export const placeOf = (step: ReplayStep): RecordedPlace => ({ seq: step.entry.seq, run: step.entry.run, dir: step.entry.dir });

/** The mutable state of one walk and the bookkeeping every part of it shares. */
export class ScheduleWalk {
  readonly now: () => number;
  /** Wall-clock ceiling of the walk on {@link ScheduleWalk.now}'s clock (ms). */
  readonly deadline: number;
  readonly open: OpenExpectation[] = [];
  nextInput: ReplayStep | undefined;
  sourceDone = false;
  /** The input read last from the plan (anchors the expectations read after it). */
  lastInputRead: LiveBridgeLine["anchor"] = null;
  /** The pipe of {@link ScheduleWalk.lastInputRead}. */
  lastInputReadChannel: string | undefined;
  /** Channels with an expectation recorded since the last input was read. */
  readonly expectedSinceInput = new Set<string>();
  lastChannel: string | undefined;
  readonly runtimeIds: IdMap = new Map();
  private readonly providerIdMaps = new Map<number, IdMap>();
  readonly children: ReplayChildLink[] = [];
  /** Methods of the requests the agents sent, by `segment|idKey` (recorded ids: the child forwards them unchanged). */
  readonly agentRequests = new Map<string, string>();
  readonly divergences: ReplayDivergence[] = [];
  divergenceCount = 0;
  readonly notes: ReplayNote[] = [];
  readonly bridgeLines: LiveBridgeLine[] = [];
  /** Lines ahead of their expectation, in arrival order ({@link EarlyLine}). */
  readonly early: EarlyLine[] = [];
  readonly keepBridgeLines: boolean;
  expectationsMet = 0;
  exit: ScheduleOutcome["exit"] = null;
  infrastructureTimeout: ScheduleOutcome["infrastructureTimeout"] = null;
  /** The recording clock of the lane: the latest runtime input written or runtime expectation met (ms). */
  laneClock: number;
  /** `(run, seq)` of the last input written (see `onBridgeLine`); null before the first. */
  lastWritten: LiveBridgeLine["anchor"] = null;
  lastWalked: ReplayStep | undefined;
  handshakeAnswered: boolean;
  handshakeError: string | undefined;
  /** False once the bridge's stdin closed: later lines are not part of the lane. */
  acceptingLane = true;
  /** Idle judgements in a row with no expectation met in between. */
  fruitless = 0;
  /**
   * Unmet request expectations per (side, method): a live request the rest of the recording
   * still expects is out of order (a divergence); one it never expects is new behaviour
   * answered generically (a note). Keyed by side and method only: a request recorded for a
   * later agent process (say a second `initialize`) that arrives now is out of order too.
   */
  private readonly pendingRequests: Map<string, number>;

  constructor(
    readonly source: StepSource,
    readonly io: ScheduleIo,
    readonly timeouts: ScheduleTimeouts,
    handshake: boolean,
  ) {
    this.now = io.now ?? (() => performance.now());
    this.deadline = this.now() + timeouts.ceilingMs;
    this.keepBridgeLines = io.keepBridgeLines ?? true;
    this.laneClock = source.firstEntry?.ts ?? 0;
    this.handshakeAnswered = !handshake;
    this.pendingRequests = new Map(source.requestCounts);
  }

  /** The id map of agent process `segment`. */
  providerIds(segment: number): IdMap {
    let ids = this.providerIdMaps.get(segment);
    if (!ids) {
      ids = new Map();
      this.providerIdMaps.set(segment, ids);
    }
    return ids;
  }

  /** True when the rest of the recording still expects a request like `shape` from `side`. */
  expectedLater(side: ReplaySide, shape: WireShape): boolean {
    return (this.pendingRequests.get(requestCountKey(side, shape.method)) ?? 0) > 0;
  }

  diverge(divergence: ReplayDivergence): void {
    this.divergenceCount += 1;
    if (this.divergences.length < MAX_KEPT_DIVERGENCES) this.divergences.push(divergence);
  }

  /** Adds a note at `seq` (default: the seq walked last). */
  note(message: string, seq: number | null = this.lastWalked?.entry.seq ?? null): void {
    this.io.trace?.(`.. note: ${message}`);
    this.notes.push({ seq, message });
  }

  /** The place of the entry walked last, or nulls before the first. */
  walkedSeq(): RecordedPlace {
    return this.lastWalked ? placeOf(this.lastWalked) : { seq: null, run: null, dir: null };
  }

  /**
   * Index in {@link ScheduleWalk.open} of the earliest expectation of the pipe the live `line` fits
   * best, or -1; only indices up to `last` (inclusive) are looked at.
   */
  findExpectation(side: ReplaySide, segment: number, shape: WireShape, line: string, last = Infinity): number {
    let loose = -1;
    for (let i = 0; i < this.open.length && i <= last; i += 1) {
      const step = this.open[i]!.step;
      if (step.side !== side || step.segment !== segment) continue;
      const score = fitOf(step, shape, line);
      if (score === 2) return i;
      if (score === 1 && loose === -1) loose = i;
    }
    return loose;
  }

  /** Marks `open[index]` met by a live line of `shape` (its live id goes into `ids`); returns it. */
  meet(index: number, shape: WireShape, ids: IdMap | undefined): OpenExpectation {
    const met = this.open[index]!;
    this.open.splice(index, 1);
    const step = met.step;
    this.expectationsMet += 1;
    this.fruitless = 0;
    this.io.onMet?.(step);
    if (step.shape.kind === "request") {
      const key = requestCountKey(step.side, step.shape.method);
      this.pendingRequests.set(key, (this.pendingRequests.get(key) ?? 1) - 1);
    }
    if (step.side === "runtime" && step.entry.ts > this.laneClock) this.laneClock = step.entry.ts;
    if (shape.kind === "request" && ids && step.shape.idKey !== undefined && shape.id !== undefined) {
      ids.set(step.shape.idKey, shape.id);
    }
    return met;
  }

  /** Where an unexpected line diverged: the first open expectation of its pipe, else the last entry walked. */
  openSeq(side: ReplaySide, segment: number): RecordedPlace {
    const first = this.open.find((o) => o.step.side === side && o.step.segment === segment);
    return first ? placeOf(first.step) : this.walkedSeq();
  }

  /** Up to three open expectations of a pipe, for a message (`nothing` when none). */
  describeOpen(side: ReplaySide, segment: number): string {
    const described = this.open
      .filter((o) => o.step.side === side && o.step.segment === segment)
      .slice(0, 3)
      .map((o) => `${describeShape(o.step.shape)} at seq ${o.step.entry.seq}`);
    return described.length === 0 ? "nothing" : described.join(", ");
  }

  /** Records the wall-clock ceiling as an infrastructure timeout with `message` (once). */
  timedOut(message: string): void {
    this.infrastructureTimeout = { ceilingMs: this.timeouts.ceilingMs, seq: this.lastWalked?.entry.seq ?? null };
    this.note(message);
  }

  outcome(): ScheduleOutcome {
    return {
      divergences: this.divergences,
      divergenceCount: this.divergenceCount,
      notes: this.notes,
      bridgeLines: this.bridgeLines,
      expectationsMet: this.expectationsMet,
      expectationsTotal: this.source.expectationsTotal,
      exit: this.exit,
      infrastructureTimeout: this.infrastructureTimeout,
      childPids: this.children.map((c) => c.pid),
    };
  }
}
