import type { LaneEntry } from "../../recording/lane-entry.js";
import { shapeOfLine } from "./wire.js";

/** Longest lanes {@link alignCurrentLane} aligns by a weighted common subsequence when their shapes differ (cells = n·m). */
export const MAX_ALIGN_CELLS = 25_000_000;

/**
 * Each line's shape key (kind, method, id key) as a small integer (equal keys, equal numbers,
 * through `ids`, shared by both lanes) and its delta kinds: one `shapeOfLine` per line, and
 * integer compares in the alignment table.
 */
function shapesOf(lane: readonly LaneEntry[], ids: Map<string, number>): { keys: Int32Array; kinds: (readonly string[] | undefined)[] } {
  const keys = new Int32Array(lane.length);
  const kinds: (readonly string[] | undefined)[] = [];
  lane.forEach((entry, index) => {
    const shape = shapeOfLine(entry.line);
    const key = `${shape.kind}|${shape.method ?? ""}|${shape.idKey ?? ""}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    keys[index] = id;
    kinds.push(shape.deltaKinds);
  });
  return { keys, kinds };
}

const onlyExtensionState = (kinds: readonly string[]): boolean => kinds.length > 0 && kinds.every((k) => k === "extension.state");

/**
 * Weight of pairing a recorded line with a current line of the same shape key: 3 for a
 * line that is not a `thread/delta` (its method or id names it), 2 for deltas sharing a
 * delta kind, 1 for deltas sharing none (another dialect's kinds), 0 (never paired) when
 * just one of them carries nothing but `extension.state` (state a newer bridge adds, no
 * dialect's rendering of the other). Weighting keeps such an extra delta unpaired instead
 * of shifting every later delta onto its predecessor's recorded position.
 */
function pairWeight(a: readonly string[] | undefined, b: readonly string[] | undefined): number {
  if (!a || !b) return 3;
  if (onlyExtensionState(a) !== onlyExtensionState(b)) return 0;
  return b.some((k) => a.includes(k)) ? 2 : 1;
}

/**
 * Places a current bridge lane at the causal positions of the recorded bridge lane.
 *
 * Rerecord anchors each current line after the runtime line that preceded it (spec 10 §6.6
 * step 4), so a current lane knows nothing of the provider lines in between: merged as is,
 * the bridge's answer to `thread/start` would sort before the agent's `session/new` answer
 * that caused it. A replay paced by causal order needs the recorded positions. Lines are
 * paired by shape (kind, method, id) — in order when both lanes have the same shapes (the
 * common case), else by a maximum-weight common subsequence that prefers deltas sharing a
 * delta kind (see {@link pairWeight}) — and a paired current line takes the recorded
 * line's `run` and `seq`, keeping its own `ts` and text (the clock its lane was assembled
 * with). An unpaired current line goes right before the next placed line (in the same
 * window of expectations), else right after the previous one, else keeps its own
 * position. Returns new entries; order preserved.
 */
export function alignCurrentLane(recorded: readonly LaneEntry[], current: readonly LaneEntry[]): LaneEntry[] {
  const ids = new Map<string, number>();
  const { keys: a, kinds: ak } = shapesOf(recorded, ids);
  const { keys: b, kinds: bk } = shapesOf(current, ids);
  const pairs = new Int32Array(b.length).fill(-1);
  if (a.length === b.length && a.every((key, i) => key === b[i])) {
    for (let i = 0; i < b.length; i += 1) pairs[i] = i;
  } else if (a.length * b.length <= MAX_ALIGN_CELLS) {
    const n = a.length;
    const m = b.length;
    const weight = (i: number, j: number): number => (a[i] === b[j] ? pairWeight(ak[i], bk[j]) : 0);
    const table = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => i * (m + 1) + j;
    // The same recurrence as the traceback below, on flat row offsets: row i starts at
    // i·(m+1), so (i+1, j) is `below + j` and (i, j+1) is `row + j + 1`.
    for (let i = n - 1; i >= 0; i -= 1) {
      const row = i * (m + 1);
      const below = row + m + 1;
      const key = a[i]!;
      for (let j = m - 1; j >= 0; j -= 1) {
        const skip = Math.max(table[below + j]!, table[row + j + 1]!);
        const w = key === b[j] ? pairWeight(ak[i], bk[j]) : 0;
        table[row + j] = w > 0 ? Math.max(skip, table[below + j + 1]! + w) : skip;
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      const w = weight(i, j);
      if (w > 0 && table[at(i, j)] === table[at(i + 1, j + 1)]! + w) {
        pairs[j] = i;
        i += 1;
        j += 1;
      } else if (table[at(i + 1, j)]! >= table[at(i, j + 1)]!) i += 1;
      else j += 1;
    }
  } else {
    return current.map((e) => ({ ...e }));
  }
  const placed: LaneEntry[] = current.map((entry, j) => {
    const source = pairs[j]! >= 0 ? recorded[pairs[j]!] : undefined;
    return source ? { ...entry, run: source.run, seq: source.seq } : { ...entry };
  });
  // Unpaired lines: before the next paired one, else after the previous paired one.
  let next = -1;
  for (let j = current.length - 1; j >= 0; j -= 1) {
    if (pairs[j]! >= 0) next = j;
    else if (next >= 0) placed[j] = { ...current[j]!, run: placed[next]!.run, seq: placed[next]!.seq - (next - j) * 1e-6 };
  }
  const last = pairs.findLastIndex((i) => i >= 0);
  for (let j = last + 1; last >= 0 && j < current.length; j += 1) {
    placed[j] = { ...current[j]!, run: placed[last]!.run, seq: placed[last]!.seq + (j - last) * 1e-6 };
  }
  return placed;
}
