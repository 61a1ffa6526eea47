/**
 * Order-sensitive LCS diff over two sequences of strings (spec 10 §6.3, "Diff").
 *
 * The backtracking rule is part of the contract because it decides which of two equal-looking
 * candidates is reported: equal elements advance both sides; otherwise the old element is
 * reported first when `L[i+1][j] >= L[i][j+1]`, else the new one; leftovers are appended.
 * That rule needs the whole LCS table, so it is used while the table stays small
 * ({@link EXACT_LCS_CELLS}); bigger inputs (lanes of tens of thousands of events) take Myers'
 * linear-space diff (`@jest/diff-sequences`), which finds an LCS of the same length in
 * O((N+M)·D) time and O(N+M) memory; between two common runs it reports removals before
 * additions, as the table's rule does for a plain replacement.
 */
import diffSequencesModule from "@jest/diff-sequences";

type DiffSequence = typeof diffSequencesModule.default;
// The package's types describe its CommonJS build (default under `.default`); its ESM entry
// exports the function itself as the default. Accept either shape.
const diffSequence: DiffSequence =
  (diffSequencesModule as unknown as { default?: DiffSequence }).default ?? (diffSequencesModule as unknown as DiffSequence);

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
 * Largest LCS table (cells, 4 bytes each: 4 Mi cells = 16 MiB) diffed with the spec's exact
 * backtracking rule; every committed lane is far below it. Beyond it the linear-space diff runs.
 */
export const EXACT_LCS_CELLS = 4 * 1024 * 1024;

/** Myers' linear-space diff of the two ranges after `start`: common runs, removals before additions between them. */
function linearSpaceOps(oldSeq: readonly (string | number)[], newSeq: readonly (string | number)[], start: number, ops: SequenceOp[]): void {
  let i = start;
  let j = start;
  const gap = (toOld: number, toNew: number) => {
    for (; i < toOld; i++) ops.push({ kind: "removed", oldIndex: i });
    for (; j < toNew; j++) ops.push({ kind: "added", newIndex: j });
  };
  diffSequence(
    oldSeq.length - start,
    newSeq.length - start,
    (a, b) => oldSeq[start + a] === newSeq[start + b],
    (count, a, b) => {
      gap(start + a, start + b);
      for (let k = 0; k < count; k++, i++, j++) ops.push({ kind: "equal", oldIndex: i, newIndex: j });
    },
  );
  gap(oldSeq.length, newSeq.length);
}

/**
 * Diffs `oldSeq` against `newSeq` (spec 10 §6.3). Elements (strings, or numbers standing for
 * them) are compared with `===`.
 * A shared prefix is matched before the table is built; this gives the same script as the full
 * table because the backtracking rule always takes equal heads first. (A shared suffix is NOT
 * trimmed: that could change which duplicate is matched.) When the rest would need a table
 * above {@link EXACT_LCS_CELLS}, the linear-space diff runs instead (same LCS length; ties
 * between equally long alignments may be broken differently).
 */
export function diffSequences(oldSeq: readonly (string | number)[], newSeq: readonly (string | number)[]): SequenceDiff {
  const ops: SequenceOp[] = [];
  let start = 0;
  while (start < oldSeq.length && start < newSeq.length && oldSeq[start] === newSeq[start]) {
    ops.push({ kind: "equal", oldIndex: start, newIndex: start });
    start++;
  }
  const n = oldSeq.length - start;
  const m = newSeq.length - start;
  const width = m + 1;
  if ((n + 1) * width > EXACT_LCS_CELLS) {
    linearSpaceOps(oldSeq, newSeq, start, ops);
    return withOnlyLists(ops);
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
  return withOnlyLists(ops);
}

function withOnlyLists(ops: SequenceOp[]): SequenceDiff {
  const onlyInOld: number[] = [];
  const onlyInNew: number[] = [];
  for (const op of ops) {
    if (op.kind === "removed") onlyInOld.push(op.oldIndex);
    else if (op.kind === "added") onlyInNew.push(op.newIndex);
  }
  return { ops, onlyInOld, onlyInNew };
}
