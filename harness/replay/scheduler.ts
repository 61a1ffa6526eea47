import type { JsonRpcId } from "../../stack/protocol/json-rpc.js";
import type { ReplayChildLink } from "./child-channel.js";
import { MAX_KEPT_DIVERGENCES, type ReplayDivergence, type ReplayNote } from "./divergence.js";
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
} from "./schedule-types.js";
import { describeShape, genericAnswer, shapeOfLine, withId, type WireShape } from "./wire.js";

export * from "./schedule-types.js";
export { anchorBridgeLines } from "./bridge-lane.js";

type IdMap = Map<string, JsonRpcId>;

class WalkAbort extends Error {}

/**
 * Walks a replay plan against a live bridge (00-product.md flow 2; spec 10 §5): one
 * process — this one — holds the whole order. Inputs (`runtime→bridge`, `provider→bridge`)
 * are written when their turn comes; each maximal run of outputs after them is a window of
 * expectations the bridge must meet, matched by method (requests, notifications) or id
 * (responses), never by bytes, in any order within the window. Bridge-minted request ids
 * are mapped to recorded ones, so recorded responses reach the bridge with live ids.
 * A live request no expectation can answer is answered generically at once (a note).
 * Divergences are reported, never hung on: `quietMs` of silence ends a window; a bridge
 * exit ends the walk. Never throws for bridge behaviour; the caller kills processes.
 */
export async function runSchedule(source: StepSource, io: ScheduleIo, timeouts: ScheduleTimeouts, handshake: boolean): Promise<ScheduleOutcome> {
  // Only the current window of expectations is held: steps winStart..winEnd-1 (global
  // indexes) are win[0..], their met flags winMet[0..].
  let win: ReplayStep[] = [];
  let winMet = new Uint8Array(0);
  const stepAt = (i: number): ReplayStep => win[i - winStart] as ReplayStep;
  const isMet = (i: number): boolean => winMet[i - winStart] === 1;
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
  const divergences: ReplayDivergence[] = [];
  let divergenceCount = 0;
  const notes: ReplayNote[] = [];
  const bridgeLines: LiveBridgeLine[] = [];
  const keepBridgeLines = io.keepBridgeLines ?? true;
  let expectationsMet = 0;
  const state: { exit: ScheduleOutcome["exit"] } = { exit: null };
  let clock = source.firstEntry?.ts ?? 0;
  let anchor: LiveBridgeLine["anchor"] = null;
  let lastWalked: ReplayStep | undefined;
  let winStart = 0;
  let winEnd = 0;
  let firstUnmet = 0;
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
    notes.push({ seq: lastWalked?.entry.seq ?? null, message });
  };
  const walkedSeq = (): { seq: number | null; run: number | null; dir: ReplayDivergence["dir"] } =>
    lastWalked ? { seq: lastWalked.entry.seq, run: lastWalked.entry.run, dir: lastWalked.entry.dir } : { seq: null, run: null, dir: null };

  const findExpectation = (side: ReplaySide, segment: number, shape: WireShape, line: string): ReplayStep | undefined => {
    while (firstUnmet < winEnd && isMet(firstUnmet)) firstUnmet += 1;
    let loose: ReplayStep | undefined;
    for (let i = firstUnmet; i < winEnd; i += 1) {
      const step = stepAt(i);
      if (isMet(i) || step.side !== side || step.segment !== segment) continue;
      const score = fitOf(step, shape, line);
      if (score === 2) return step;
      if (score === 1 && !loose) loose = step;
    }
    return loose;
  };

  const meet = (step: ReplayStep, shape: WireShape, ids: IdMap | undefined): void => {
    winMet[step.index - winStart] = 1;
    expectationsMet += 1;
    io.onMet?.(step);
    if (step.shape.kind === "request") {
      const key = requestCountKey(step.side, step.shape.method);
      pendingRequests.set(key, (pendingRequests.get(key) ?? 1) - 1);
    }
    if (step.entry.ts > clock) clock = step.entry.ts;
    if (shape.kind === "request" && ids && step.shape.idKey !== undefined && shape.id !== undefined) {
      ids.set(step.shape.idKey, shape.id);
    }
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
    const step = findExpectation("runtime", -1, shape, line);
    let laneLine = line;
    if (step) {
      meet(step, shape, runtimeIds);
      if (shape.kind === "request" && step.shape.id !== undefined) laneLine = withId(line, step.shape.id);
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
        expected: describeWindow("runtime", -1),
        got: describeShape(shape),
        message: `bridge→runtime ${describeShape(shape)} matches no recorded output here (expected ${describeWindow("runtime", -1)})`,
      });
    }
    io.sink?.bridgeLine(line, clock);
    if (keepBridgeLines) bridgeLines.push({ line: laneLine, clock, anchor });
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
    const step = acceptingLane ? findExpectation("provider", child.index, shape, line) : undefined;
    if (step) {
      meet(step, shape, providerIds(child.index));
    } else if (shape.kind === "request" && shape.id !== undefined && !(acceptingLane && expectedLater("provider", shape))) {
      child.send(genericAnswer(shape.id));
      note(`answered bridge→provider ${describeShape(shape)} generically: nothing recorded answers it`);
    } else if (acceptingLane) {
      if (shape.kind === "request" && shape.id !== undefined) child.send(genericAnswer(shape.id));
      diverge({
        kind: "unexpected-line",
        ...openSeq("provider", child.index),
        expected: describeWindow("provider", child.index),
        got: describeShape(shape),
        message: `bridge→provider ${describeShape(shape)} (agent #${child.index + 1}) matches no recorded output here (expected ${describeWindow("provider", child.index)})`,
      });
    }
  };

  /** Where an unexpected line diverged: the first open expectation of its side, else the last entry walked. */
  function openSeq(side: ReplaySide, segment: number): { seq: number | null; run: number | null; dir: ReplayDivergence["dir"] } {
    for (let i = firstUnmet; i < winEnd; i += 1) {
      const step = stepAt(i);
      if (!isMet(i) && step.side === side && step.segment === segment) return { seq: step.entry.seq, run: step.entry.run, dir: step.entry.dir };
    }
    return walkedSeq();
  }

  function describeWindow(side: ReplaySide, segment: number): string {
    const open: string[] = [];
    for (let i = winStart; i < winEnd && open.length < 3; i += 1) {
      const step = stepAt(i);
      if (!isMet(i) && step.side === side && step.segment === segment) open.push(`${describeShape(step.shape)} at seq ${step.entry.seq}`);
    }
    return open.length === 0 ? "nothing" : open.join(", ");
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
    io.trace?.(`-> seq ${step.entry.seq} ${step.entry.dir} ${step.entry.line.slice(0, 120)}`);
    if (step.entry.ts > clock) clock = step.entry.ts;
    const { shape, entry } = step;
    // Paths first (on the recorded text), so a live value written below (the harness's
    // PATH, the replay child's launch spec) is never mistaken for a recorded path.
    let line = io.toLive ? io.toLive(entry.line, step) : entry.line;
    if (step.side === "runtime") {
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
    child.send(line);
    anchor = { run: entry.run, seq: entry.seq };
  };

  let silentWaits = 0;
  let busyWaits = 0;
  /** Waits for one event; false on silence. Aborts the walk when the bridge has exited. */
  const pump = async (quietMs: number): Promise<boolean> => {
    const event = await io.queue.next(quietMs);
    if (event === "quiet") return false;
    handle(event);
    return true;
  };

  const windowDone = (): boolean => {
    while (firstUnmet < winEnd && isMet(firstUnmet)) firstUnmet += 1;
    return firstUnmet >= winEnd;
  };

  try {
    if (handshake) {
      io.bridge.write(JSON.stringify({ jsonrpc: "2.0", id: HARNESS_INITIALIZE_ID, method: "initialize", params: HARNESS_INITIALIZE_PARAMS }));
      while (!handshakeAnswered) {
        if (state.exit) {
          diverge({ kind: "no-handshake", seq: null, run: null, dir: null, expected: "response to initialize", got: null, message: "the bridge exited before answering initialize" });
          throw new WalkAbort();
        }
        if (!(await pump(timeouts.quietMs))) {
          diverge({ kind: "no-handshake", seq: null, run: null, dir: null, expected: "response to initialize", got: null, message: `the bridge did not answer initialize within ${timeouts.quietMs} ms` });
          throw new WalkAbort();
        }
      }
      if (handshakeError !== undefined) {
        diverge({ kind: "no-handshake", seq: null, run: null, dir: null, expected: "a result", got: handshakeError, message: `the bridge refused initialize: ${handshakeError}` });
        throw new WalkAbort();
      }
    }

    let pending = await source.next();
    while (pending) {
      while (pending && pending.role === "input") {
        writeInput(pending);
        pending = await source.next();
      }
      const window: ReplayStep[] = [];
      while (pending && pending.role === "expect") {
        window.push(pending);
        pending = await source.next();
      }
      if (window.length === 0) continue;
      win = window;
      winMet = new Uint8Array(window.length);
      winStart = window[0]!.index;
      winEnd = winStart + window.length;
      firstUnmet = winStart;
      // Events already queued are handled before judging the window.
      while (io.queue.size > 0) await pump(0);
      while (!windowDone()) {
        const exit = state.exit;
        if (exit) {
          const first = stepAt(firstUnmet);
          const remaining = source.expectationsTotal - expectationsMet;
          const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
          diverge({
            kind: "bridge-exited",
            seq: first.entry.seq,
            run: first.entry.run,
            dir: first.entry.dir,
            expected: describeShape(first.shape),
            got: null,
            message: `the bridge exited (${how}) while ${describeShape(first.shape)} was expected; ${remaining} recorded output(s) never came`,
          });
          throw new WalkAbort();
        }
        if (await pump(timeouts.quietMs)) {
          silentWaits = 0;
          busyWaits = 0;
          continue;
        }
        if (io.cpuTime && busyWaits < timeouts.maxBusyWaits) {
          const before = io.cpuTime();
          if (await pump(Math.min(1000, Math.ceil(timeouts.quietMs / 3)))) continue;
          const after = io.cpuTime();
          if (before !== undefined && after !== undefined && after > before) {
            busyWaits += 1;
            continue;
          }
        }
        busyWaits = 0;
        silentWaits += 1;
        for (let i = winStart; i < winEnd; i += 1) {
          const step = stepAt(i);
          if (isMet(i)) continue;
          diverge({
            kind: "missing-expectation",
            seq: step.entry.seq,
            run: step.entry.run,
            dir: step.entry.dir,
            expected: describeShape(step.shape),
            got: null,
            message: `expected ${step.entry.dir} ${describeShape(step.shape)}; the bridge went quiet for ${timeouts.quietMs} ms without it`,
          });
        }
        if (silentWaits >= timeouts.maxSilentWaits) {
          note(`replay abandoned after ${silentWaits} silent waits`);
          throw new WalkAbort();
        }
        break;
      }
      lastWalked = window[window.length - 1];
    }
  } catch (thrown) {
    if (!(thrown instanceof WalkAbort)) throw thrown;
  }

  // Finish: the runtime closes the bridge's stdin; later lines are not part of the lane.
  acceptingLane = false;
  win = [];
  winStart = winEnd;
  io.bridge.endInput();
  while (!state.exit) {
    if (!(await pump(timeouts.exitMs))) {
      if (!state.exit) {
        diverge({ kind: "no-exit", ...walkedSeq(), expected: "exit", got: null, message: `the bridge did not exit within ${timeouts.exitMs} ms after stdin closed; killed` });
        io.bridge.kill();
        while (!state.exit && (await pump(timeouts.exitMs))) {
          // drain until the exit is seen
        }
      }
      break;
    }
  }
  while (io.queue.size > 0) await pump(0);

  return {
    divergences,
    divergenceCount,
    notes,
    bridgeLines,
    expectationsMet,
    expectationsTotal: source.expectationsTotal,
    exit: state.exit,
    childPids: children.map((c) => c.pid),
  };
}
