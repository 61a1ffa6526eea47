import type { LaneEntry } from "../recording/lane-entry.js";
import { shapeOfLine } from "./wire.js";

/** Longest lanes {@link alignCurrentLane} aligns by LCS when their shapes differ (cells = n·m). */
export const MAX_ALIGN_CELLS = 25_000_000;

function shapeKey(line: string): string {
  const shape = shapeOfLine(line);
  return `${shape.kind}|${shape.method ?? ""}|${shape.idKey ?? ""}`;
}

/**
 * Places a current bridge lane at the causal positions of the recorded bridge lane.
 *
 * Rerecord anchors each current line after the runtime line that preceded it (spec 10 §6.6
 * step 4), so a current lane knows nothing of the provider lines in between: merged as is,
 * the bridge's answer to `thread/start` would sort before the agent's `session/new` answer
 * that caused it. A replay paced by causal order needs the recorded positions. Lines are
 * paired by shape (kind, method, id) — in order when both lanes have the same shapes (the
 * common case), else by a longest common subsequence — and a paired current line takes
 * the recorded line's `run` and `seq`, keeping its own `ts` and text (the clock its lane
 * was assembled with). An unpaired current line goes right after the previous placed line,
 * or keeps its own position when none precedes it. Returns new entries; order preserved.
 */
export function alignCurrentLane(recorded: readonly LaneEntry[], current: readonly LaneEntry[]): LaneEntry[] {
  const a = recorded.map((e) => shapeKey(e.line));
  const b = current.map((e) => shapeKey(e.line));
  const pairs = new Int32Array(b.length).fill(-1);
  if (a.length === b.length && a.every((key, i) => key === b[i])) {
    for (let i = 0; i < b.length; i += 1) pairs[i] = i;
  } else if (a.length * b.length <= MAX_ALIGN_CELLS) {
    const n = a.length;
    const m = b.length;
    const table = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => i * (m + 1) + j;
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        table[at(i, j)] = a[i] === b[j] ? table[at(i + 1, j + 1)]! + 1 : Math.max(table[at(i + 1, j)]!, table[at(i, j + 1)]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) {
        pairs[j] = i;
        i += 1;
        j += 1;
      } else if (table[at(i + 1, j)]! >= table[at(i, j + 1)]!) i += 1;
      else j += 1;
    }
  } else {
    return current.map((e) => ({ ...e }));
  }
  let previous: LaneEntry | undefined;
  let extra = 0;
  return current.map((entry, j) => {
    const paired = pairs[j]!;
    const source = paired >= 0 ? recorded[paired] : undefined;
    let placed: LaneEntry;
    if (source) {
      placed = { ...entry, run: source.run, seq: source.seq };
      extra = 0;
    } else if (previous) {
      extra += 1;
      placed = { ...entry, run: previous.run, seq: previous.seq + extra * 1e-6 };
    } else {
      placed = { ...entry };
    }
    if (source) previous = placed;
    else if (previous) previous = { ...placed, seq: placed.seq - extra * 1e-6 };
    return placed;
  });
}
