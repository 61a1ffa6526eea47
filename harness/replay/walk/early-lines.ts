/**
 * Lines ahead of their expectation (see `EarlyLine` in walk-state.ts and walk/README.md, "Lines
 * ahead of their expectation"): a `bridge→runtime` line that met nothing open at a pipe switch is
 * held, offered to every expectation the plan opens later, and judged as on arrival once the walk
 * writes the next input on its cause's pipe (or ends).
 */
import { channelOf, type EarlyLine, type ScheduleWalk } from "./walk-state.js";

/**
 * True when a `bridge→runtime` line of `kind` that met nothing open may be ahead of its
 * expectation: it is not a request (a request is answered at once), and the last input written
 * and the next input are on different pipes, so the recording's bridge may have read the next one
 * before it wrote the line, though the line's cause is the last.
 */
export function mayBeEarly(walk: ScheduleWalk, kind: string): boolean {
  const next = walk.nextInput;
  return kind !== "request" && walk.lastChannel !== undefined && next !== undefined && channelOf(next) !== walk.lastChannel;
}

/** Holds `early` (arrival order is kept: a later held line never meets an earlier expectation). */
export function holdEarlyLine(walk: ScheduleWalk, early: EarlyLine): void {
  walk.io.trace?.(`.. held: nothing open takes it yet; its expectation may be recorded after the next input (its cause ${early.cause})`);
  walk.early.push(early);
}

/**
 * Offers every held line, in arrival order, to the expectations open now (call after the plan
 * opened more): a line meets the earliest it fits, as on arrival, and its lane entry is marked
 * met. Its anchor stays the last input written when it arrived: it came before the next one was
 * written, so that is a bound of its cause the recording's anchor (the input after) is not.
 */
export function meetEarlyLines(walk: ScheduleWalk): void {
  if (walk.early.length === 0) return;
  const still: EarlyLine[] = [];
  for (const early of walk.early) {
    const index = walk.findExpectation("runtime", -1, early.shape, early.line);
    if (index === -1) {
      still.push(early);
      continue;
    }
    walk.meet(index, early.shape, walk.runtimeIds);
    if (early.lane) early.lane.met = true;
    walk.io.trace?.(`.. held line met its expectation, opened after the input it came before`);
  }
  walk.early.splice(0, walk.early.length, ...still);
}

/**
 * Judges the held lines whose cause is on `channel` (every held line when undefined): the walk
 * is about to write the next input on that pipe (or has ended), so whatever the recording shows
 * that cause writing is open by now, and a held line nothing met is extra.
 */
export function judgeEarlyLines(walk: ScheduleWalk, channel?: string): void {
  if (walk.early.length === 0) return;
  const still: EarlyLine[] = [];
  for (const early of walk.early) {
    if (channel === undefined || early.cause === channel) early.judge();
    else still.push(early);
  }
  walk.early.splice(0, walk.early.length, ...still);
}
