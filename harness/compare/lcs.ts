/**
 * Order-sensitive LCS diff over two sequences of strings (spec 10 §6.3, "Diff").
 *
 * The parity diff compares `JSON.stringify` of each normalized element, so key order counts.
 * The backtracking rule is part of the contract because it decides which of two equal-looking
 * candidates is reported: equal elements advance both sides; otherwise the old element is
 * reported first when `L[i+1][j] >= L[i][j+1]`, else the new one; leftovers are appended.
 */

/** One step of an edit script: `equal` keeps both, `removed` is only in old, `added` only in new. */
export type SequenceOp =
  | { kind: "equal"; oldIndex: number; newIndex: number }
  | { kind: "removed"; oldIndex: number }
  | { kind: "added"; newIndex: number };

/** Result of {@link diffSequences}: the full edit script plus the two "only in" lists (0-based indices). */
export interface SequenceDiff {
  /** Every element of both sides in backtracking order. */
  ops: SequenceOp[];
  /** Indices into `old` of elements not in the LCS, ascending. */
  onlyInOld: number[];
  /** Indices into `new` of elements not in the LCS, ascending. */
  onlyInNew: number[];
}

/**
 * Upper bound on the LCS table size (cells, 4 bytes each: 64 Mi cells = 256 MiB). Lanes are a few
 * hundred events; a bigger table means something else went wrong, so it is refused.
 */
export const MAX_LCS_CELLS = 64 * 1024 * 1024;

/**
 * Diffs `oldSeq` against `newSeq` (spec 10 §6.3). Elements are compared with `===`.
 * A shared prefix is matched before the table is built; this gives the same script as the full
 * table because the backtracking rule always takes equal heads first. (A shared suffix is NOT
 * trimmed: that could change which duplicate is matched.)
 *
 * @throws RangeError when the remaining table would exceed {@link MAX_LCS_CELLS}.
 */
export function diffSequences(oldSeq: readonly string[], newSeq: readonly string[]): SequenceDiff {
  const ops: SequenceOp[] = [];
  let start = 0;
  while (start < oldSeq.length && start < newSeq.length && oldSeq[start] === newSeq[start]) {
    ops.push({ kind: "equal", oldIndex: start, newIndex: start });
    start++;
  }
  const n = oldSeq.length - start;
  const m = newSeq.length - start;
  const width = m + 1;
  if ((n + 1) * width > MAX_LCS_CELLS) {
    throw new RangeError(`lane diff too large: ${n} × ${m} elements after the shared prefix`);
  }
  // table[i * width + j] = LCS length of old[start+i..] and new[start+j..] (suffix form).
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        oldSeq[start + i] === newSeq[start + j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (oldSeq[start + i] === newSeq[start + j]) {
      ops.push({ kind: "equal", oldIndex: start + i, newIndex: start + j });
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      ops.push({ kind: "removed", oldIndex: start + i });
      i++;
    } else {
      ops.push({ kind: "added", newIndex: start + j });
      j++;
    }
  }
  for (; i < n; i++) ops.push({ kind: "removed", oldIndex: start + i });
  for (; j < m; j++) ops.push({ kind: "added", newIndex: start + j });

  const onlyInOld: number[] = [];
  const onlyInNew: number[] = [];
  for (const op of ops) {
    if (op.kind === "removed") onlyInOld.push(op.oldIndex);
    else if (op.kind === "added") onlyInNew.push(op.newIndex);
  }
  return { ops, onlyInOld, onlyInNew };
}
