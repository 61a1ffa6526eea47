import type { LaneEntry } from "../../recording/lane-entry.js";
import type { LiveBridgeLine } from "./schedule-types.js";

type Anchor = { run: number; seq: number };

const isBefore = (a: Anchor, b: Anchor): boolean => a.run - b.run < 0 || (a.run === b.run && a.seq < b.seq);

/**
 * Each line's anchor (issue 38), from what the walk knew of it:
 * - a line that met an expectation: the input the expectation was recorded after;
 * - a line that met none: the last input written when it arrived is only an upper bound of its
 *   cause, and the clock decides it. The bridge writes its runtime lines in the order it handles
 *   their causes, so the cause is also no later than that of the next line in arrival order that
 *   met an expectation: the earlier of the two is taken;
 * - then no line goes before the line that arrived before it (a pipe keeps its order, and the
 *   thread lane is assembled in it): a line that met an expectation left open long before (a
 *   loose fit) takes the anchor of the line before it.
 */
export function narrowedAnchors(lines: readonly LiveBridgeLine[]): Array<Anchor | null> {
  const anchors: Array<Anchor | null> = lines.map((l) => l.anchor);
  let next: Anchor | null | undefined;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (line.met) next = line.anchor;
    else if (next !== undefined && (next === null || line.anchor === null || isBefore(next, line.anchor))) anchors[i] = next;
  }
  for (let i = 1; i < anchors.length; i += 1) {
    const previous = anchors[i - 1] ?? null;
    const own = anchors[i] ?? null;
    if (previous !== null && (own === null || isBefore(own, previous))) anchors[i] = previous;
  }
  return anchors;
}

/**
 * Anchors the live bridge lines as `bridge→runtime` lane entries (spec 10 §6.6 step 4):
 * each line goes after the input it is anchored after (what caused it: `LiveBridgeLine.anchor`,
 * narrowed by {@link narrowedAnchors}), `seq = anchor.seq + k/(n+1)` for the k-th of n lines on
 * that anchor in arrival order, `run` = the anchor's run, `ts` = the line's recording clock.
 * Lines before any input anchor at the first step's `seq − 1`. Anchors are compared by value;
 * the lines need not arrive in anchor order, and the result is in arrival order, not sorted.
 */
export function anchorBridgeLines(firstEntry: LaneEntry | undefined, lines: readonly LiveBridgeLine[]): LaneEntry[] {
  const before = { run: firstEntry?.run ?? 0, seq: (firstEntry?.seq ?? 1) - 1 };
  const anchors = narrowedAnchors(lines).map((a) => a ?? before);
  const keyOf = (at: Anchor): string => `${at.run}|${at.seq}`;
  const counts = new Map<string, number>();
  for (const at of anchors) counts.set(keyOf(at), (counts.get(keyOf(at)) ?? 0) + 1);
  const seen = new Map<string, number>();
  return lines.map((live, i) => {
    const at = anchors[i]!;
    const key = keyOf(at);
    const ordinal = (seen.get(key) ?? 0) + 1;
    seen.set(key, ordinal);
    const n = counts.get(key) ?? 1;
    return { ts: live.clock, run: at.run, seq: at.seq + ordinal / (n + 1), dir: "bridge→runtime" as const, line: live.line };
  });
}
