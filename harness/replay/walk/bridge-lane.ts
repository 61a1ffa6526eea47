import type { LaneEntry } from "../../recording/lane-entry.js";
import type { LiveBridgeLine } from "./schedule-types.js";

/**
 * Anchors the live bridge lines as `bridge→runtime` lane entries (spec 10 §6.6 step 4):
 * each line goes after the input written before it, `seq = anchor.seq + k/(n+1)` for the
 * k-th of n lines on that anchor, `run` = the anchor's run, `ts` = the line's recording
 * clock. Lines before any input anchor at the first step's `seq − 1`. Order is arrival order.
 */
export function anchorBridgeLines(firstEntry: LaneEntry | undefined, lines: readonly LiveBridgeLine[]): LaneEntry[] {
  const before = { run: firstEntry?.run ?? 0, seq: (firstEntry?.seq ?? 1) - 1 };
  const counts = new Map<object, number>();
  for (const line of lines) {
    const at = line.anchor ?? before;
    counts.set(at, (counts.get(at) ?? 0) + 1);
  }
  const seen = new Map<object, number>();
  return lines.map((live) => {
    const at = live.anchor ?? before;
    const ordinal = (seen.get(at) ?? 0) + 1;
    seen.set(at, ordinal);
    const n = counts.get(at) ?? 1;
    return { ts: live.clock, run: at.run, seq: at.seq + ordinal / (n + 1), dir: "bridge→runtime" as const, line: live.line };
  });
}
