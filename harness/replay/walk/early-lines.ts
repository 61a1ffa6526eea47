/**
 * Lines ahead of their expectation (see `EarlyLine` in walk-state.ts and walk/README.md, "Lines
 * ahead of their expectation"): a `bridge→runtime` line that met nothing open at a pipe switch is
 * held; it is offered to the open expectations whenever the bridge has settled (it wrote all it
 * will for the inputs written so far, so no live line can still claim them), and it is judged as on
 * arrival once it is provably extra — a later line of its pipe met an expectation the held line
 * would have been recorded before — or when the walk ends.
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
 * Lets `early` meet the earliest open expectation it fits among `walk.open[0..last]`; returns the
 * index it met, or -1.
 */
function offer(walk: ScheduleWalk, early: EarlyLine, last = Infinity): number {
  const index = walk.findExpectation("runtime", -1, early.shape, early.line, last);
  if (index === -1) return -1;
  walk.meet(index, early.shape, walk.runtimeIds);
  if (early.lane) early.lane.met = true;
  walk.io.trace?.(`.. held line met its expectation, opened after the input it came before`);
  return index;
}

/**
 * Offers every held line, in arrival order, to the expectations open now; returns true when one
 * met. Call only once the bridge settled (`idle` or `blocked`): it has then written every line the
 * inputs written so far cause, so a live line that fits an expectation has met it already, and a
 * held line cannot take one from the line the bridge wrote for it (offered as soon as the plan opened it, a held
 * extra `thread/identity` took the expectation of the runtime request written next, and the failure
 * named that request's seq: test/replay/early-lines.test.ts, renameLane). A line that meets keeps
 * the anchor of its arrival: it came before the next input was written, so that input did not
 * cause it, whatever the recording's lagging bridge shows.
 */
export function meetEarlyLines(walk: ScheduleWalk): boolean {
  if (walk.early.length === 0) return false;
  const still = walk.early.filter((early) => offer(walk, early) === -1);
  const met = still.length !== walk.early.length;
  walk.early.splice(0, walk.early.length, ...still);
  return met;
}

/**
 * Called when a live `bridge→runtime` line fits `walk.open[index]` (found again with `find` when a
 * held line took it); returns the index the live line meets then, or -1. The bridge writes what
 * one pipe's lines cause in the order it read them, and so did the recording's bridge. When the
 * live line came after the walk wrote a later input on the pipe a held line's cause is on, and the
 * recording has its expectation after an input of that pipe too, both are that pipe's, the held
 * line first: its expectation, if it has one, is recorded before the live line's. So the held line
 * meets the earliest open expectation it fits up to the live line's, and one that fits none there
 * is provably extra — everything recorded before an open expectation is open or met — and is
 * judged now, as on arrival. An expectation after the live line's is never its (a held extra
 * line met a later expectation of its shape, naming that later seq, when this did not hold).
 */
export function yieldToEarlyLines(walk: ScheduleWalk, index: number, find: () => number): number {
  const pipe = walk.lastChannel;
  if (walk.early.length === 0 || pipe === undefined || walk.open[index]!.cause !== pipe) return index;
  const written = walk.lastWritten;
  const still: EarlyLine[] = [];
  let last = index;
  for (const early of walk.early) {
    const later = early.cause === pipe && (early.written?.run !== written?.run || early.written?.seq !== written?.seq);
    if (!later || last === -1) {
      still.push(early);
      continue;
    }
    const met = offer(walk, early, last);
    if (met === -1) early.judge();
    else last = met === last ? find() : last - 1;
  }
  walk.early.splice(0, walk.early.length, ...still);
  return last;
}

/** Judges every line still held: the walk has ended, so no expectation is left to open for it. */
export function judgeEarlyLines(walk: ScheduleWalk): void {
  for (const early of walk.early.splice(0)) early.judge();
}
