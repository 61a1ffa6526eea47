/**
 * Order-sensitive LCS diff over two sequences of strings (spec 10 §6.3, "Diff").
 * The exact table and its backtracking rule are the assembler's (`stack/assembler/lcs.ts`,
 * shared with its file-change diffs); this module adds the shared-prefix shortcut, the
 * linear-space fallback and the `ops`/`onlyIn` form.
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
import { walkLcsScript } from "../../stack/assembler/lcs.js";

type DiffSequence = typeof diffSequencesModule.default;
// The package's types describe its CommonJS build (default under `.default`); its ESM entry
// exports the function itself as the default. Accept either shape.
const diffSequence: DiffSequence = (diffSequencesModule as unknown as { default?: DiffSequence }).default ?? (diffSequencesModule as unknown as DiffSequence);

/** One step of an edit script: `equal` keeps both, `removed` is only in old, `added` only in new. */
export type SequenceOp = { kind: "equal"; oldIndex: number; newIndex: number } | { kind: "removed"; oldIndex: number } | { kind: "added"; newIndex: number };

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
  if ((oldSeq.length - start + 1) * (newSeq.length - start + 1) > EXACT_LCS_CELLS) {
    linearSpaceOps(oldSeq, newSeq, start, ops);
    return withOnlyLists(ops);
  }
  walkLcsScript(oldSeq.slice(start), newSeq.slice(start), (step, i, j) => {
    if (step === "equal") ops.push({ kind: "equal", oldIndex: start + i, newIndex: start + j });
    else if (step === "removed") ops.push({ kind: "removed", oldIndex: start + i });
    else ops.push({ kind: "added", newIndex: start + j });
  });
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
