/**
 * What the walk makes of each live event (see `runSchedule` in scheduler.ts): a bridge line
 * meets the earliest open expectation of its pipe it fits, or is answered generically (a
 * note), or diverges; a replay child's line likewise, and a bridge answer to an agent request
 * is compared with the recorded one.
 */
import type { ReplayChildLink } from "../stand-ins/child-channel.js";
import { answerDifference, COMPARED_ANSWER_METHODS } from "./answers.js";
import { HARNESS_INITIALIZE_ID, type ReplayEvent } from "./schedule-types.js";
import { holdEarlyLine, mayBeEarly, yieldToEarlyLines } from "./early-lines.js";
import { placeOf, type ScheduleWalk } from "./walk-state.js";
import { describeShape, genericAnswer, shapeOfLine, withId, type WireShape } from "../plan/wire.js";

/** True when `line` answers the harness's own `initialize` (recorded on the walk, not part of the lane). */
function takeHandshakeAnswer(walk: ScheduleWalk, shape: WireShape, line: string): boolean {
  if (walk.handshakeAnswered || shape.kind !== "response" || shape.id !== HARNESS_INITIALIZE_ID) return false;
  walk.handshakeAnswered = true;
  if (line.includes('"error"')) walk.handshakeError = line.slice(0, 200);
  return true;
}

/**
 * A `bridge→runtime` line no open expectation takes: a request is answered at once (generically
 * when nothing recorded answers it, a divergence otherwise); for any other line, returns how it is
 * judged — an extra `thread/delta` noted, anything else an `unexpected-line` divergence — with
 * the walk's place and open expectations as they are now, to be applied now or, for a line that
 * may be ahead of its expectation, once it is known that none meets it (early-lines.ts).
 */
function unmatchedBridgeLine(walk: ScheduleWalk, shape: WireShape): (() => void) | undefined {
  const { io } = walk;
  if (shape.kind === "request" && shape.id !== undefined && !walk.expectedLater("runtime", shape)) {
    io.bridge.write(genericAnswer(shape.id));
    walk.note(`answered bridge→runtime ${describeShape(shape)} generically: nothing recorded answers it`);
    return undefined;
  }
  if (shape.deltaKinds !== undefined) {
    // An extra thread/delta is a lane difference: the lane comparison judges it (and an
    // allowlist entry may explain it), so the walk notes it instead of failing twice.
    const message = `extra bridge→runtime ${describeShape(shape)}: nothing recorded here expects it (judged by the lane comparison)`;
    const seq = walk.lastWalked?.entry.seq ?? null;
    return () => walk.note(message, seq);
  }
  // Out of order or not recorded at all; a request still gets an answer so the bridge does not hang.
  if (shape.kind === "request" && shape.id !== undefined) io.bridge.write(genericAnswer(shape.id));
  const divergence = {
    kind: "unexpected-line" as const,
    ...walk.openSeq("runtime", -1),
    expected: walk.describeOpen("runtime", -1),
    got: describeShape(shape),
    message: `bridge→runtime ${describeShape(shape)} matches no recorded output here (expected ${walk.describeOpen("runtime", -1)})`,
  };
  return () => walk.diverge(divergence);
}

/** One line the bridge wrote to the runtime. */
export function onBridgeLine(walk: ScheduleWalk, emitted: string): void {
  const { io } = walk;
  const line = io.toRecorded ? io.toRecorded(emitted) : emitted;
  const shape = shapeOfLine(line);
  if (takeHandshakeAnswer(walk, shape, line)) return;
  if (!walk.acceptingLane) {
    walk.note(`after the bridge's stdin closed it wrote ${describeShape(shape)}; not part of the lane`);
    return;
  }
  const find = () => walk.findExpectation("runtime", -1, shape, line);
  let index = find();
  // Held lines of the same pipe came first: they go first, or are proven extra (early-lines.ts).
  if (index !== -1) index = yieldToEarlyLines(walk, index, find);
  let laneLine = line;
  // Anchored after what caused it (issue 38): a met line after the input its expectation was
  // recorded after, never after the last input written when it arrived (under load, one the
  // bridge had not read yet when it wrote the line: harness/rerecord/README.md). A line nothing
  // recorded expects has no recorded cause: the last input written before it arrived, an upper
  // bound that `anchorBridgeLines` narrows.
  let lineAnchor = walk.lastWritten;
  const met = index !== -1;
  let judge: (() => void) | undefined;
  if (met) {
    const expectation = walk.meet(index, shape, walk.runtimeIds);
    lineAnchor = expectation.anchor;
    if (shape.kind === "request" && expectation.step.shape.id !== undefined) laneLine = withId(line, expectation.step.shape.id);
  } else {
    judge = unmatchedBridgeLine(walk, shape);
  }
  io.sink?.bridgeLine(line, walk.laneClock);
  const lane = walk.keepBridgeLines ? { line: laneLine, clock: walk.laneClock, anchor: lineAnchor, met } : undefined;
  if (lane) walk.bridgeLines.push(lane);
  if (!judge) return;
  // At a pipe switch the line may be one the recording's bridge, lagging, wrote after the next
  // input although its cause is the last one (issue 38's race seen from the other side):
  // held until an expectation opened later meets it or it is provably extra (early-lines.ts).
  if (mayBeEarly(walk, shape.kind)) holdEarlyLine(walk, { shape, line, cause: walk.lastChannel!, written: walk.lastWritten, lane, judge });
  else judge();
}

/** Compares the bridge's answer `line` to an agent request with the recorded answer of `index`'s step. */
function compareAnswer(walk: ScheduleWalk, child: ReplayChildLink, index: number, shape: WireShape, line: string): void {
  const { step } = walk.meet(index, shape, walk.providerIds(child.index));
  const asked = step.shape.idKey === undefined ? undefined : walk.agentRequests.get(`${child.index}|${step.shape.idKey}`);
  if (shape.kind !== "response" || asked === undefined || !COMPARED_ANSWER_METHODS.has(asked)) return;
  const difference = answerDifference(step.entry.line, line);
  if (!difference) return;
  walk.diverge({
    kind: "answer-differs",
    ...placeOf(step),
    expected: difference.expected,
    got: difference.got,
    message: `the bridge answered the agent's ${asked} (${describeShape(step.shape)}) with ${difference.got}; the recording has ${difference.expected}`,
  });
}

/** One line the bridge wrote to an agent (a replay child). */
export function onChildLine(walk: ScheduleWalk, child: ReplayChildLink, emitted: string): void {
  const { io } = walk;
  const line = io.toRecorded ? io.toRecorded(emitted) : emitted;
  const shape = shapeOfLine(line);
  const isRequest = shape.kind === "request" && shape.id !== undefined;
  if (child.index >= walk.source.segments) {
    if (isRequest) child.send(genericAnswer(shape.id!));
    walk.note(`agent process #${child.index + 1} has no recorded segment; ${isRequest ? "answered" : "dropped"} ${describeShape(shape)}${isRequest ? " generically" : ""}`);
    return;
  }
  const index = walk.acceptingLane ? walk.findExpectation("provider", child.index, shape, line) : -1;
  if (index !== -1) {
    compareAnswer(walk, child, index, shape, line);
  } else if (isRequest && !(walk.acceptingLane && walk.expectedLater("provider", shape))) {
    child.send(genericAnswer(shape.id!));
    walk.note(`answered bridge→provider ${describeShape(shape)} generically: nothing recorded answers it`);
  } else if (walk.acceptingLane) {
    if (isRequest) child.send(genericAnswer(shape.id!));
    walk.diverge({
      kind: "unexpected-line",
      ...walk.openSeq("provider", child.index),
      expected: walk.describeOpen("provider", child.index),
      got: describeShape(shape),
      message: `bridge→provider ${describeShape(shape)} (agent #${child.index + 1}) matches no recorded output here (expected ${walk.describeOpen("provider", child.index)})`,
    });
  }
}

/** Handles one live event from the bridge or the replay children's channel. */
export function handleEvent(walk: ScheduleWalk, event: ReplayEvent): void {
  const { io } = walk;
  if (io.trace) {
    const text = "line" in event ? ` ${event.line.slice(0, 160)}` : "";
    const who = "child" in event && event.child ? ` #${event.child.index + 1}` : "";
    io.trace(`<- ${event.type}${who}${text}`);
  }
  switch (event.type) {
    case "bridge-line":
      onBridgeLine(walk, event.line);
      return;
    case "bridge-line-too-long":
      walk.diverge({ kind: "line-too-long", ...walk.walkedSeq(), expected: null, got: `a line over ${event.error.maxLineBytes} bytes`, message: event.error.message });
      return;
    case "bridge-exit":
      walk.exit = { code: event.code, signal: event.signal };
      return;
    case "child-hello":
      walk.children.push(event.child);
      return;
    case "child-line":
      onChildLine(walk, event.child, event.line);
      return;
    case "child-eof":
    case "child-closed":
      return;
    case "child-line-too-long":
      walk.diverge({ kind: "line-too-long", ...walk.walkedSeq(), expected: null, got: `a line over ${event.maxLineBytes} bytes`, message: event.message });
      return;
    case "child-protocol-error":
      walk.diverge({ kind: "child-protocol", ...walk.walkedSeq(), expected: null, got: null, message: event.reason });
      return;
  }
}
