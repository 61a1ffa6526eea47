import type { StepSource } from "../plan/plan.js";
import { HARNESS_INITIALIZE_ID, HARNESS_INITIALIZE_PARAMS, type ScheduleIo, type ScheduleOutcome, type ScheduleTimeouts } from "./schedule-types.js";
import { judgeEarlyLines, meetEarlyLines } from "./early-lines.js";
import { barrierOf, fill, takeInput, waitedFor } from "./walk-inputs.js";
import { handleEvent } from "./walk-lines.js";
import { drainQueue, settle } from "./walk-settle.js";
import { placeOf, ScheduleWalk, WalkAbort } from "./walk-state.js";
import { describeShape } from "../plan/wire.js";

export * from "./schedule-types.js";
export { anchorBridgeLines } from "./bridge-lane.js";

/** Consecutive idle judgements with no expectation met in between after which the walk is abandoned. */
const MAX_FRUITLESS_JUDGEMENTS = 3;

/**
 * Walks a replay plan against a live bridge (docs/design/00-product.md flow 2 and Determinism; spec 10
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
 *   only after the bridge consumed the first: the bridge and its agents are all blocked. An input is never written
 *   while an output recorded before it on another pipe is still owed, unless the bridge
 *   is idle: an output met on its own pipe is evidence about that pipe only.
 * - **Divergence by idleness.** An open expectation is missing only when no input can be
 *   written and the bridge and every replay child are idle ({@link ScheduleIo.idleness}; on
 *   Linux every thread asleep through two looks with this process's input drained between
 *   them, nothing buffered for them here, no bridge timer due within the horizon). A busy or
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
  const walk = new ScheduleWalk(source, io, timeouts, handshake);
  try {
    if (handshake) await shakeHands(walk);
    await walkPlan(walk);
    await judgeTrailingInputs(walk);
  } catch (thrown) {
    if (!(thrown instanceof WalkAbort)) throw thrown;
  }
  await finish(walk);
  return walk.outcome();
}

function ceilingReached(walk: ScheduleWalk): never {
  walk.timedOut(`infrastructure timeout: the replay did not finish within ${walk.timeouts.ceilingMs} ms of wall clock`);
  throw new WalkAbort();
}

/** Ends the walk as a `bridge-exited` divergence naming the seq reached. */
function exitedEarly(walk: ScheduleWalk): never {
  const exit = walk.exit!;
  const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  const first = walk.open[0]?.step;
  const remaining = walk.source.expectationsTotal - walk.expectationsMet;
  const { lastWalked } = walk;
  const reached = lastWalked ? `after seq ${lastWalked.entry.seq} (${lastWalked.entry.dir})` : "before the first recorded line";
  walk.diverge({
    kind: "bridge-exited",
    ...(first ? placeOf(first) : walk.walkedSeq()),
    expected: first ? describeShape(first.shape) : walk.handshakeAnswered ? null : "response to initialize",
    got: `exit ${how}`,
    message: `bridge exited with ${how} ${reached}; ${remaining} recorded output(s) never came`,
  });
  throw new WalkAbort();
}

/** Sends the harness's `initialize` and waits for its answer (spec 10 §5.1 step 2). */
async function shakeHands(walk: ScheduleWalk): Promise<void> {
  walk.io.bridge.write(JSON.stringify({ jsonrpc: "2.0", id: HARNESS_INITIALIZE_ID, method: "initialize", params: HARNESS_INITIALIZE_PARAMS }));
  while (!walk.handshakeAnswered) {
    if (walk.exit) exitedEarly(walk);
    const result = await settle(walk, "idle");
    if (result === "ceiling") ceilingReached(walk);
    if (result === "settled" && !walk.handshakeAnswered && !walk.exit) {
      walk.diverge({ kind: "no-handshake", seq: null, run: null, dir: null, expected: "response to initialize", got: null, message: "the bridge went idle without answering initialize" });
      throw new WalkAbort();
    }
  }
  if (walk.handshakeError !== undefined) {
    const got = walk.handshakeError;
    walk.diverge({ kind: "no-handshake", seq: null, run: null, dir: null, expected: "a result", got, message: `the bridge refused initialize: ${got}` });
    throw new WalkAbort();
  }
}

/** The bridge went idle and nothing can be written: every open expectation is missing. */
function judgeMissing(walk: ScheduleWalk): void {
  for (const { step } of walk.open.splice(0)) {
    walk.diverge({
      kind: "missing-expectation",
      ...placeOf(step),
      expected: describeShape(step.shape),
      got: null,
      message: `expected ${step.entry.dir} ${describeShape(step.shape)}; the bridge went idle without it`,
    });
  }
  walk.fruitless += 1;
  if (walk.fruitless >= MAX_FRUITLESS_JUDGEMENTS) {
    walk.note(`replay abandoned after ${walk.fruitless} idle judgements in a row with no recorded output met`);
    throw new WalkAbort();
  }
}

/** Writes every input once its pipe's expectations are met, until the plan is played out. */
async function walkPlan(walk: ScheduleWalk): Promise<void> {
  for (;;) {
    if (walk.exit) exitedEarly(walk);
    await fill(walk);
    const input = walk.nextInput;
    if (input && waitedFor(walk, input) && (input.side === "runtime" || walk.children[input.segment])) {
      const barrier = barrierOf(walk, input);
      if (barrier !== "none") {
        const result = await settle(walk, barrier);
        if (result === "ceiling") ceilingReached(walk);
        if (result === "event") continue;
        // Settled: the bridge wrote all it will for now, so a held line may take what is open.
        meetEarlyLines(walk);
      }
      takeInput(walk);
      continue;
    }
    if (!input && walk.sourceDone && walk.open.length === 0) return;
    const result = await settle(walk, "idle");
    if (result === "ceiling") ceilingReached(walk);
    if (result === "event" || walk.exit) continue;
    // Idle: no live line can claim what is open now, so a held line may (early-lines.ts).
    if (meetEarlyLines(walk)) continue;
    // Idle, and nothing can be written: whatever is still open will not come.
    if (input && waitedFor(walk, input)) {
      // An agent process the recording had never started: its lines have nowhere to go.
      takeInput(walk);
      continue;
    }
    judgeMissing(walk);
  }
}

/** Inputs after the last expectation: judge what the bridge makes of them before its stdin closes. */
async function judgeTrailingInputs(walk: ScheduleWalk): Promise<void> {
  for (;;) {
    if (walk.exit) exitedEarly(walk);
    const result = await settle(walk, "idle");
    if (result === "ceiling") ceilingReached(walk);
    if (result === "settled") {
      meetEarlyLines(walk);
      return;
    }
  }
}

/**
 * The runtime closes the bridge's stdin; later lines are not part of the lane. A bridge that
 * then goes idle without exiting will not exit; one still working is waited for up to the
 * ceiling (or `exitMs` when the walk already spent it).
 */
async function finish(walk: ScheduleWalk): Promise<void> {
  const { io, timeouts } = walk;
  // The plan is played out (or the walk ended early): a line still held met nothing.
  meetEarlyLines(walk);
  judgeEarlyLines(walk);
  walk.acceptingLane = false;
  io.bridge.endInput();
  const exitDeadline = Math.max(walk.deadline, walk.now() + timeouts.exitMs);
  while (!walk.exit) {
    if (walk.now() >= exitDeadline) {
      if (!walk.infrastructureTimeout) {
        walk.timedOut(`infrastructure timeout: the bridge was still working ${timeouts.ceilingMs} ms after the replay started; killed`);
      }
      break;
    }
    const result = await settle(walk, "idle", exitDeadline);
    if (result === "settled" && !walk.exit) {
      walk.diverge({ kind: "no-exit", ...walk.walkedSeq(), expected: "exit", got: null, message: "the bridge went idle after its stdin closed without exiting; killed" });
      break;
    }
  }
  if (!walk.exit) {
    io.bridge.kill();
    while (!walk.exit) {
      const late = await io.queue.next(timeouts.exitMs);
      if (late === "quiet") break;
      handleEvent(walk, late);
    }
  }
  while (io.queue.size > 0) await drainQueue(walk);
}
