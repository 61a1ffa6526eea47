/**
 * Inputs of the walk (see `runSchedule` in scheduler.ts): reading the plan up to the next
 * input, deciding when it may be written, and writing it with live ids to the bridge or to
 * the agent process it belongs to.
 */
import type { ReplayStep } from "../plan/plan.js";
import { channelOf, type ScheduleWalk } from "./walk-state.js";
import { withId } from "../plan/wire.js";

/**
 * Reads the plan up to the next input (or its end): expectations become open on the way. Lines
 * held as ahead of their expectation are offered to them only once the bridge settled
 * (early-lines.ts, `meetEarlyLines`), never here: a live line the bridge writes for one of them
 * after this has the better claim.
 */
export async function fill(walk: ScheduleWalk): Promise<void> {
  while (!walk.nextInput && !walk.sourceDone) {
    const step = await walk.source.next();
    if (!step) walk.sourceDone = true;
    else if (step.role === "input") walk.nextInput = step;
    else {
      walk.open.push({ step, anchor: walk.lastInputRead, cause: walk.lastInputReadChannel });
      walk.expectedSinceInput.add(channelOf(step));
    }
  }
}

/** True when the recording's writer of `input` had seen every output it waited for. */
export function waitedFor(walk: ScheduleWalk, input: ReplayStep): boolean {
  const channel = channelOf(input);
  return !walk.open.some((o) => channelOf(o.step) === channel);
}

/**
 * What `input` waits for before it is written, once {@link waitedFor} holds (see `runSchedule`
 * and walk/README.md, "Barriers between pipes"):
 * - `idle` while an output recorded before it on another pipe, after an input of another pipe
 *   than its own, is still open: it must come (an event) or the bridge must be idle. An output
 *   met on the input's own pipe is evidence about that pipe only: it does not show that the
 *   bridge consumed an input of another pipe (a rerecorded acp-cursor/stop-interrupt anchors
 *   runtime lines caused by agent lines before seq 380 after it;
 *   test/replay/barrier-evidence.test.ts). An output recorded after a line of the input's own
 *   pipe cannot be overtaken by it (the bridge reads a pipe in order), and waiting for it would
 *   make a recording whose bridge lagged wrong (acp-copilot/command-fails: the agent's chunks
 *   46–55 with some of their runtime lines recorded between them, the rest after).
 * - `blocked` on a pipe switch with nothing recorded on the input's own pipe since the last
 *   input: the bridge must have consumed that input (only a timer of its own may be due).
 * - `none` otherwise.
 */
export function barrierOf(walk: ScheduleWalk, input: ReplayStep): "idle" | "blocked" | "none" {
  const channel = channelOf(input);
  if (walk.open.some((o) => channelOf(o.step) !== channel && o.cause !== channel)) return "idle";
  if (walk.lastChannel !== undefined && walk.lastChannel !== channel && !walk.expectedSinceInput.has(channel)) return "blocked";
  return "none";
}

/** Writes a recorded runtime input to the bridge, its answer id mapped to the live request's. */
function writeRuntimeInput(walk: ScheduleWalk, step: ReplayStep, recorded: string): void {
  const { io } = walk;
  const { shape, entry } = step;
  let line = recorded;
  if (entry.ts > walk.laneClock) walk.laneClock = entry.ts;
  if (shape.kind === "response" && shape.idKey !== undefined) {
    const live = walk.runtimeIds.get(shape.idKey);
    if (live === undefined) {
      walk.note(`dropped the recorded runtime answer at seq ${entry.seq}: the bridge never sent its request`);
      return;
    }
    line = withId(line, live);
  } else {
    line = io.rewriteRuntime(line, step);
  }
  io.bridge.write(line);
  io.sink?.runtimeLine(entry.line);
}

/** Writes a recorded agent input to its replay child, its answer id mapped to the live request's. */
function writeProviderInput(walk: ScheduleWalk, step: ReplayStep, recorded: string): void {
  const { shape, entry } = step;
  let line = recorded;
  const child = walk.children[step.segment];
  if (!child) {
    walk.note(`dropped provider→bridge seq ${entry.seq}: agent process #${step.segment + 1} never started`);
    return;
  }
  if (shape.kind === "response" && shape.idKey !== undefined) {
    const live = walk.providerIds(step.segment).get(shape.idKey);
    if (live === undefined) {
      walk.note(`dropped the recorded agent answer at seq ${entry.seq}: the bridge never sent its request`);
      return;
    }
    line = withId(line, live);
  }
  if (shape.kind === "request" && shape.idKey !== undefined && shape.method !== undefined) walk.agentRequests.set(`${step.segment}|${shape.idKey}`, shape.method);
  child.send(line);
}

/** Writes one recorded input (`runtime→bridge` or `provider→bridge`). */
export function writeInput(walk: ScheduleWalk, step: ReplayStep): void {
  const { io } = walk;
  walk.lastWalked = step;
  walk.lastChannel = channelOf(step);
  walk.lastWritten = { run: step.entry.run, seq: step.entry.seq };
  io.trace?.(`-> seq ${step.entry.seq} ${step.entry.dir} ${step.entry.line.slice(0, 120)}`);
  // Paths first (on the recorded text), so a live value written below (the harness's
  // PATH, the replay child's launch spec) is never mistaken for a recorded path.
  const line = io.toLive ? io.toLive(step.entry.line, step) : step.entry.line;
  if (step.side === "runtime") writeRuntimeInput(walk, step, line);
  else writeProviderInput(walk, step, line);
}

/** Takes the pending input off the walk and writes it; later expectations are anchored to it. */
export function takeInput(walk: ScheduleWalk): void {
  const input = walk.nextInput!;
  walk.nextInput = undefined;
  walk.lastInputRead = { run: input.entry.run, seq: input.entry.seq };
  walk.lastInputReadChannel = channelOf(input);
  walk.expectedSinceInput.clear();
  writeInput(walk, input);
}
