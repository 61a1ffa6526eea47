import type { JsonRpcId } from "../../stack/protocol/json-rpc.js";
import type { ReplayChildLink } from "./child-channel.js";
import { answerDifference, COMPARED_ANSWER_METHODS } from "./answers.js";
import { MAX_KEPT_DIVERGENCES, type ReplayDivergence, type ReplayNote } from "./divergence.js";
import { settlementOf } from "./idleness.js";
import { fitOf } from "./matching.js";
import { requestCountKey, type ReplaySide, type ReplayStep, type StepSource } from "./plan.js";
import {
  HARNESS_INITIALIZE_ID,
  HARNESS_INITIALIZE_PARAMS,
  type LiveBridgeLine,
  type ReplayEvent,
  type ScheduleIo,
  type ScheduleOutcome,
  type ScheduleTimeouts,
  type Settlement,
} from "./schedule-types.js";
import { describeShape, genericAnswer, shapeOfLine, withId, type WireShape } from "./wire.js";

export * from "./schedule-types.js";
export { anchorBridgeLines } from "./bridge-lane.js";

type IdMap = Map<string, JsonRpcId>;

class WalkAbort extends Error {}

/** An expectation read from the plan and not yet met, with the input written before it in walk order. */
interface OpenExpectation {
  step: ReplayStep;
  anchor: LiveBridgeLine["anchor"];
}

/** The pipe an input goes through, or an expectation comes from: the runtime's, or one agent process's. */
const channelOf = (step: ReplayStep): string => (step.side === "runtime" ? "runtime" : `agent ${step.segment}`);

/** Consecutive idle judgements with no expectation met in between after which the walk is abandoned. */
const MAX_FRUITLESS_JUDGEMENTS = 3;
/** Longest pause between two looks at a busy bridge, in ms (it only spaces the looks; nothing is judged by it). */
const MAX_POLL_MS = 50;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Walks a replay plan against a live bridge (00-product.md flow 2 and Determinism; spec 10
 * §5): one process — this one — holds the whole order, and nothing in it depends on the
 * wall clock.
 *
 * - **Causal matching.** Every expectation (`bridge→runtime`, `bridge→provider`) read so far
 *   and not yet met is open; a live line meets the earliest open expectation of its pipe it
 *   fits — by method for requests and notifications, by mapped id for responses, never by
 *   bytes — across input boundaries, so a bridge that lags behind a burst is never judged
 *   by where an input happened to be written.
 * - **Inputs wait only where the recording's writer waited.** An input (`runtime→bridge`,
 *   `provider→bridge`) is written once every expectation recorded before it on its own pipe
 *   is met (the runtime only sees the bridge's runtime pipe, an agent only its own): a
 *   response waits for its request, a `turn/start` for the turn boundary before it, an
 *   agent's updates for the `session/prompt` they answer. Inputs on different pipes with
 *   nothing recorded between them for the second to wait on are written in recorded order
 *   only after the bridge consumed the first: the bridge and its agents are all blocked.
 * - **Divergence by idleness.** An open expectation is missing only when no input can be
 *   written and the bridge and every replay child are idle ({@link ScheduleIo.sampleTree}:
 *   every thread asleep through two looks with this process's input drained between them,
 *   nothing buffered for them here, no bridge timer due within the horizon). A busy or
 *   starved bridge is waited for, however long, up to the one wall-clock ceiling, which is
 *   an infrastructure timeout and not a parity verdict.
 * - **Answers are compared.** A bridge response to an agent's request must carry the
 *   recorded result (see harness/replay/answers.ts).
 *
 * Bridge-minted request ids are mapped to recorded ones, so recorded responses reach the
 * bridge with live ids. A live request nothing recorded can answer is answered generically
 * at once (a note). A bridge exit ends the walk as a `bridge-exited` divergence naming the
 * seq reached. Inputs after the last expectation are written, and what the bridge makes of
 * them is judged once it is idle, before its stdin closes. Never throws for bridge
 * behaviour; the caller kills processes.
 */
export async function runSchedule(source: StepSource, io: ScheduleIo, timeouts: ScheduleTimeouts, handshake: boolean): Promise<ScheduleOutcome> {
  const now = io.now ?? (() => performance.now());
  const deadline = now() + timeouts.ceilingMs;
  const open: OpenExpectation[] = [];
  let nextInput: ReplayStep | undefined;
  let sourceDone = false;
  /** The input read last from the plan (anchors the expectations read after it). */
  let lastInputRead: LiveBridgeLine["anchor"] = null;
  /** Channels with an expectation recorded since the last input was read. */
  const expectedSinceInput = new Set<string>();
  let lastChannel: string | undefined;

  const runtimeIds: IdMap = new Map();
  const providerIdMaps = new Map<number, IdMap>();
  const providerIds = (segment: number): IdMap => {
    let ids = providerIdMaps.get(segment);
    if (!ids) {
      ids = new Map();
      providerIdMaps.set(segment, ids);
    }
    return ids;
  };
  const children: ReplayChildLink[] = [];
  /** Methods of the requests the agents sent, by `segment|idKey` (recorded ids: the child forwards them unchanged). */
  const agentRequests = new Map<string, string>();
  const divergences: ReplayDivergence[] = [];
  let divergenceCount = 0;
  const notes: ReplayNote[] = [];
  const bridgeLines: LiveBridgeLine[] = [];
  const keepBridgeLines = io.keepBridgeLines ?? true;
  let expectationsMet = 0;
  const state: { exit: ScheduleOutcome["exit"] } = { exit: null };
  let infrastructureTimeout: ScheduleOutcome["infrastructureTimeout"] = null;
  /** The recording clock of the lane: the latest runtime input written or runtime expectation met (ms). */
  let laneClock = source.firstEntry?.ts ?? 0;
  let anchor: LiveBridgeLine["anchor"] = null;
  let lastWalked: ReplayStep | undefined;
  let handshakeAnswered = !handshake;
  let handshakeError: string | undefined;
  let acceptingLane = true;

  // Unmet request expectations per (side, method): a live request the rest of the
  // recording still expects is out of order (a divergence); one it never expects is new
  // behaviour answered generically (a note).
  // Keyed by side and method only: a request recorded for a later agent process (say a
  // second `initialize`) that arrives now is out of order too.
  const pendingRequests = new Map(source.requestCounts);
  const expectedLater = (side: ReplaySide, shape: WireShape): boolean => (pendingRequests.get(requestCountKey(side, shape.method)) ?? 0) > 0;

  const diverge = (d: ReplayDivergence): void => {
    divergenceCount += 1;
    if (divergences.length < MAX_KEPT_DIVERGENCES) divergences.push(d);
  };
  const note = (message: string): void => {
    io.trace?.(`.. note: ${message}`);
    notes.push({ seq: lastWalked?.entry.seq ?? null, message });
  };
  const walkedSeq = (): { seq: number | null; run: number | null; dir: ReplayDivergence["dir"] } =>
    lastWalked ? { seq: lastWalked.entry.seq, run: lastWalked.entry.run, dir: lastWalked.entry.dir } : { seq: null, run: null, dir: null };
  const at = (step: ReplayStep): { seq: number; run: number; dir: ReplayDivergence["dir"] } => ({ seq: step.entry.seq, run: step.entry.run, dir: step.entry.dir });

  const findExpectation = (side: ReplaySide, segment: number, shape: WireShape, line: string): number => {
    let loose = -1;
    for (let i = 0; i < open.length; i += 1) {
      const step = open[i]!.step;
      if (step.side !== side || step.segment !== segment) continue;
      const score = fitOf(step, shape, line);
      if (score === 2) return i;
      if (score === 1 && loose === -1) loose = i;
    }
    return loose;
  };

  /** Marks `open[index]` met; returns it. */
  const meet = (index: number, shape: WireShape, ids: IdMap | undefined): OpenExpectation => {
    const met = open[index]!;
    open.splice(index, 1);
    const step = met.step;
    expectationsMet += 1;
    fruitless = 0;
    io.onMet?.(step);
    if (step.shape.kind === "request") {
      const key = requestCountKey(step.side, step.shape.method);
      pendingRequests.set(key, (pendingRequests.get(key) ?? 1) - 1);
    }
    if (step.side === "runtime" && step.entry.ts > laneClock) laneClock = step.entry.ts;
    if (shape.kind === "request" && ids && step.shape.idKey !== undefined && shape.id !== undefined) {
      ids.set(step.shape.idKey, shape.id);
    }
    return met;
  };

  const onBridgeLine = (emitted: string): void => {
    const line = io.toRecorded ? io.toRecorded(emitted) : emitted;
    const shape = shapeOfLine(line);
    if (!handshakeAnswered && shape.kind === "response" && shape.id === HARNESS_INITIALIZE_ID) {
      handshakeAnswered = true;
      if (line.includes('"error"')) handshakeError = line.slice(0, 200);
      return;
    }
    if (!acceptingLane) {
      note(`after the bridge's stdin closed it wrote ${describeShape(shape)}; not part of the lane`);
      return;
    }
    const index = findExpectation("runtime", -1, shape, line);
    let laneLine = line;
    let lineAnchor = anchor;
    if (index !== -1) {
      const met = meet(index, shape, runtimeIds);
      lineAnchor = met.anchor;
      if (shape.kind === "request" && met.step.shape.id !== undefined) laneLine = withId(line, met.step.shape.id);
    } else if (shape.kind === "request" && shape.id !== undefined && !expectedLater("runtime", shape)) {
      io.bridge.write(genericAnswer(shape.id));
      note(`answered bridge→runtime ${describeShape(shape)} generically: nothing recorded answers it`);
    } else if (shape.deltaKinds !== undefined) {
      // An extra thread/delta is a lane difference: the lane comparison judges it (and an
      // allowlist entry may explain it), so the walk notes it instead of failing twice.
      note(`extra bridge→runtime ${describeShape(shape)}: nothing recorded here expects it (judged by the lane comparison)`);
    } else {
      // Out of order or not recorded at all; a request still gets an answer so the bridge does not hang.
      if (shape.kind === "request" && shape.id !== undefined) io.bridge.write(genericAnswer(shape.id));
      diverge({
        kind: "unexpected-line",
        ...openSeq("runtime", -1),
        expected: describeOpen("runtime", -1),
        got: describeShape(shape),
        message: `bridge→runtime ${describeShape(shape)} matches no recorded output here (expected ${describeOpen("runtime", -1)})`,
      });
    }
    io.sink?.bridgeLine(line, laneClock);
    if (keepBridgeLines) bridgeLines.push({ line: laneLine, clock: laneClock, anchor: lineAnchor });
  };

  const onChildLine = (child: ReplayChildLink, emitted: string): void => {
    const line = io.toRecorded ? io.toRecorded(emitted) : emitted;
    const shape = shapeOfLine(line);
    if (child.index >= source.segments) {
      if (shape.kind === "request" && shape.id !== undefined) {
        child.send(genericAnswer(shape.id));
        note(`agent process #${child.index + 1} has no recorded segment; answered ${describeShape(shape)} generically`);
      } else {
        note(`agent process #${child.index + 1} has no recorded segment; dropped ${describeShape(shape)}`);
      }
      return;
    }
    const index = acceptingLane ? findExpectation("provider", child.index, shape, line) : -1;
    if (index !== -1) {
      const { step } = meet(index, shape, providerIds(child.index));
      const asked = step.shape.idKey === undefined ? undefined : agentRequests.get(`${child.index}|${step.shape.idKey}`);
      if (shape.kind === "response" && asked !== undefined && COMPARED_ANSWER_METHODS.has(asked)) {
        const difference = answerDifference(step.entry.line, line);
        if (difference) {
          diverge({
            kind: "answer-differs",
            ...at(step),
            expected: difference.expected,
            got: difference.got,
            message: `the bridge answered the agent's ${asked} (${describeShape(step.shape)}) with ${difference.got}; the recording has ${difference.expected}`,
          });
        }
      }
    } else if (shape.kind === "request" && shape.id !== undefined && !(acceptingLane && expectedLater("provider", shape))) {
      child.send(genericAnswer(shape.id));
      note(`answered bridge→provider ${describeShape(shape)} generically: nothing recorded answers it`);
    } else if (acceptingLane) {
      if (shape.kind === "request" && shape.id !== undefined) child.send(genericAnswer(shape.id));
      diverge({
        kind: "unexpected-line",
        ...openSeq("provider", child.index),
        expected: describeOpen("provider", child.index),
        got: describeShape(shape),
        message: `bridge→provider ${describeShape(shape)} (agent #${child.index + 1}) matches no recorded output here (expected ${describeOpen("provider", child.index)})`,
      });
    }
  };

  /** Where an unexpected line diverged: the first open expectation of its side, else the last entry walked. */
  function openSeq(side: ReplaySide, segment: number): { seq: number | null; run: number | null; dir: ReplayDivergence["dir"] } {
    const first = open.find((o) => o.step.side === side && o.step.segment === segment);
    return first ? at(first.step) : walkedSeq();
  }

  function describeOpen(side: ReplaySide, segment: number): string {
    const described = open
      .filter((o) => o.step.side === side && o.step.segment === segment)
      .slice(0, 3)
      .map((o) => `${describeShape(o.step.shape)} at seq ${o.step.entry.seq}`);
    return described.length === 0 ? "nothing" : described.join(", ");
  }

  const handle = (event: ReplayEvent): void => {
    if (io.trace) {
      const text = "line" in event ? ` ${event.line.slice(0, 160)}` : "";
      const who = "child" in event ? ` #${event.child.index + 1}` : "";
      io.trace(`<- ${event.type}${who}${text}`);
    }
    switch (event.type) {
      case "bridge-line":
        onBridgeLine(event.line);
        return;
      case "bridge-exit":
        state.exit = { code: event.code, signal: event.signal };
        return;
      case "child-hello":
        children.push(event.child);
        return;
      case "child-line":
        onChildLine(event.child, event.line);
        return;
      case "child-eof":
      case "child-closed":
        return;
      case "child-protocol-error":
        diverge({ kind: "child-protocol", ...walkedSeq(), expected: null, got: null, message: event.reason });
        return;
    }
  };

  const writeInput = (step: ReplayStep): void => {
    lastWalked = step;
    lastChannel = channelOf(step);
    io.trace?.(`-> seq ${step.entry.seq} ${step.entry.dir} ${step.entry.line.slice(0, 120)}`);
    const { shape, entry } = step;
    // Paths first (on the recorded text), so a live value written below (the harness's
    // PATH, the replay child's launch spec) is never mistaken for a recorded path.
    let line = io.toLive ? io.toLive(entry.line, step) : entry.line;
    if (step.side === "runtime") {
      if (entry.ts > laneClock) laneClock = entry.ts;
      if (shape.kind === "response" && shape.idKey !== undefined) {
        const live = runtimeIds.get(shape.idKey);
        if (live === undefined) {
          note(`dropped the recorded runtime answer at seq ${entry.seq}: the bridge never sent its request`);
          return;
        }
        line = withId(line, live);
      } else {
        line = io.rewriteRuntime(line, step);
      }
      io.bridge.write(line);
      io.sink?.runtimeLine(entry.line);
      anchor = { run: entry.run, seq: entry.seq };
      return;
    }
    const child = children[step.segment];
    if (!child) {
      note(`dropped provider→bridge seq ${entry.seq}: agent process #${step.segment + 1} never started`);
      return;
    }
    if (shape.kind === "response" && shape.idKey !== undefined) {
      const live = providerIds(step.segment).get(shape.idKey);
      if (live === undefined) {
        note(`dropped the recorded agent answer at seq ${entry.seq}: the bridge never sent its request`);
        return;
      }
      line = withId(line, live);
    }
    if (shape.kind === "request" && shape.idKey !== undefined && shape.method !== undefined) agentRequests.set(`${step.segment}|${shape.idKey}`, shape.method);
    child.send(line);
    anchor = { run: entry.run, seq: entry.seq };
  };

  /** Reads the plan up to the next input (or its end): expectations become open on the way. */
  const fill = async (): Promise<void> => {
    while (!nextInput && !sourceDone) {
      const step = await source.next();
      if (!step) sourceDone = true;
      else if (step.role === "input") nextInput = step;
      else {
        open.push({ step, anchor: lastInputRead });
        expectedSinceInput.add(channelOf(step));
      }
    }
  };

  /** True when the recording's writer of `input` had seen every output it waited for. */
  const waitedFor = (input: ReplayStep): boolean => {
    const channel = channelOf(input);
    return !open.some((o) => channelOf(o.step) === channel);
  };

  /** True when `input` needs the bridge to have consumed the previous input first (see {@link runSchedule}). */
  const needsBarrier = (input: ReplayStep): boolean => {
    const channel = channelOf(input);
    return lastChannel !== undefined && lastChannel !== channel && !expectedSinceInput.has(channel);
  };

  let fruitless = 0;
  let lastSettlement: Settlement | undefined;

  /** Handles every queued event; true when there was one. */
  const drainQueue = async (): Promise<boolean> => {
    let any = false;
    while (io.queue.size > 0) {
      const event = await io.queue.next(0);
      if (event !== "quiet") handle(event);
      any = true;
    }
    return any;
  };

  /**
   * Waits until an event arrives (handled, `event`), the bridge tree reaches `want` (`settled`)
   * or the wall-clock ceiling passes (`ceiling`).
   */
  const settle = async (want: Exclude<Settlement, "busy">, until = deadline): Promise<"event" | "settled" | "ceiling"> => {
    let pollMs = 1;
    for (;;) {
      if (await drainQueue()) return "event";
      const remaining = until - now();
      if (remaining <= 0) return "ceiling";
      if (!io.sampleTree) {
        const event = await io.queue.next(Math.min(timeouts.fallbackQuietMs, remaining));
        if (event === "quiet") return remaining <= timeouts.fallbackQuietMs ? "ceiling" : "settled";
        handle(event);
        return "event";
      }
      const first = io.writesPending?.() ? undefined : io.sampleTree({ untilBusy: true });
      if (first && first.tasks.every((t) => t.state === "S")) {
        // Two turns of this process's event loop include a full I/O poll: every line the
        // tree wrote before the first look has been read (and queued) by the second.
        await nextTurn();
        await nextTurn();
        if (await drainQueue()) return "event";
        const second = io.writesPending?.() ? undefined : io.sampleTree({ untilBusy: true });
        if (second) {
          const settlement = settlementOf(first, second, timeouts.timerHorizonMs);
          if (io.trace && settlement !== lastSettlement) {
            lastSettlement = settlement;
            const states = second.tasks.map((t) => t.state).join("");
            io.trace(`.. bridge ${settlement} (threads ${states}, timer ${second.rootTimerMs === "other" ? "none: not in its event loop" : `${second.rootTimerMs ?? "?"} ms`})`);
          }
          if (settlement === "idle" || (want === "blocked" && settlement === "blocked")) return "settled";
        }
      }
      const event = await io.queue.next(Math.min(pollMs, Math.max(1, remaining)));
      pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
      if (event !== "quiet") {
        handle(event);
        return "event";
      }
    }
  };

  const ceilingReached = (): never => {
    infrastructureTimeout = { ceilingMs: timeouts.ceilingMs, seq: lastWalked?.entry.seq ?? null };
    note(`infrastructure timeout: the replay did not finish within ${timeouts.ceilingMs} ms of wall clock`);
    throw new WalkAbort();
  };

  const exitedEarly = (): never => {
    const exit = state.exit!;
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    const first = open[0]?.step;
    const remaining = source.expectationsTotal - expectationsMet;
    const reached = lastWalked ? `after seq ${lastWalked.entry.seq} (${lastWalked.entry.dir})` : "before the first recorded line";
    diverge({
      kind: "bridge-exited",
      ...(first ? at(first) : walkedSeq()),
      expected: first ? describeShape(first.shape) : handshakeAnswered ? null : "response to initialize",
      got: `exit ${how}`,
      message: `bridge exited with ${how} ${reached}; ${remaining} recorded output(s) never came`,
    });
    throw new WalkAbort();
  };

  try {
    if (handshake) {
      io.bridge.write(JSON.stringify({ jsonrpc: "2.0", id: HARNESS_INITIALIZE_ID, method: "initialize", params: HARNESS_INITIALIZE_PARAMS }));
      while (!handshakeAnswered) {
        if (state.exit) exitedEarly();
        const result = await settle("idle");
        if (result === "ceiling") ceilingReached();
        if (result === "settled" && !handshakeAnswered && !state.exit) {
          diverge({ kind: "no-handshake", seq: null, run: null, dir: null, expected: "response to initialize", got: null, message: "the bridge went idle without answering initialize" });
          throw new WalkAbort();
        }
      }
      if (handshakeError !== undefined) {
        diverge({ kind: "no-handshake", seq: null, run: null, dir: null, expected: "a result", got: handshakeError, message: `the bridge refused initialize: ${handshakeError}` });
        throw new WalkAbort();
      }
    }

    for (;;) {
      if (state.exit) exitedEarly();
      await fill();
      if (nextInput && waitedFor(nextInput) && (nextInput.side === "runtime" || children[nextInput.segment])) {
        if (needsBarrier(nextInput)) {
          const result = await settle("blocked");
          if (result === "ceiling") ceilingReached();
          if (result === "event") continue;
        }
        const input = nextInput;
        nextInput = undefined;
        lastInputRead = { run: input.entry.run, seq: input.entry.seq };
        expectedSinceInput.clear();
        writeInput(input);
        continue;
      }
      if (!nextInput && sourceDone && open.length === 0) break;
      const result = await settle("idle");
      if (result === "ceiling") ceilingReached();
      if (result === "event" || state.exit) continue;
      // Idle, and nothing can be written: whatever is still open will not come.
      if (nextInput && waitedFor(nextInput)) {
        // An agent process the recording had never started: its lines have nowhere to go.
        const input = nextInput;
        nextInput = undefined;
        lastInputRead = { run: input.entry.run, seq: input.entry.seq };
        expectedSinceInput.clear();
        writeInput(input);
        continue;
      }
      for (const { step } of open.splice(0)) {
        diverge({
          kind: "missing-expectation",
          ...at(step),
          expected: describeShape(step.shape),
          got: null,
          message: `expected ${step.entry.dir} ${describeShape(step.shape)}; the bridge went idle without it`,
        });
      }
      fruitless += 1;
      if (fruitless >= MAX_FRUITLESS_JUDGEMENTS) {
        note(`replay abandoned after ${fruitless} idle judgements in a row with no recorded output met`);
        throw new WalkAbort();
      }
    }
    // Inputs after the last expectation: judge what the bridge makes of them before its stdin closes.
    for (;;) {
      if (state.exit) exitedEarly();
      const result = await settle("idle");
      if (result === "ceiling") ceilingReached();
      if (result === "settled") break;
    }
  } catch (thrown) {
    if (!(thrown instanceof WalkAbort)) throw thrown;
  }

  // Finish: the runtime closes the bridge's stdin; later lines are not part of the lane. A
  // bridge that then goes idle without exiting will not exit; one still working is waited
  // for up to the ceiling (or `exitMs` when the walk already spent it).
  acceptingLane = false;
  io.bridge.endInput();
  const exitDeadline = Math.max(deadline, now() + timeouts.exitMs);
  while (!state.exit) {
    if (now() >= exitDeadline) {
      if (!infrastructureTimeout) {
        infrastructureTimeout = { ceilingMs: timeouts.ceilingMs, seq: lastWalked?.entry.seq ?? null };
        note(`infrastructure timeout: the bridge was still working ${timeouts.ceilingMs} ms after the replay started; killed`);
      }
      break;
    }
    const result = await settle("idle", exitDeadline);
    if (result === "settled" && !state.exit) {
      diverge({ kind: "no-exit", ...walkedSeq(), expected: "exit", got: null, message: "the bridge went idle after its stdin closed without exiting; killed" });
      break;
    }
  }
  if (!state.exit) {
    io.bridge.kill();
    while (!state.exit) {
      const late = await io.queue.next(timeouts.exitMs);
      if (late === "quiet") break;
      handle(late);
    }
  }
  while (io.queue.size > 0) await drainQueue();

  return {
    divergences,
    divergenceCount,
    notes,
    bridgeLines,
    expectationsMet,
    expectationsTotal: source.expectationsTotal,
    exit: state.exit,
    infrastructureTimeout,
    childPids: children.map((c) => c.pid),
  };
}
