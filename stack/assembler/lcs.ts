/**
 * The one longest-common-subsequence table of the project: the file-change diffs of the
 * assembler (file-diff.ts) and the lane diff of the parity harness (harness/compare/lcs.ts)
 * both walk it. Pure: no clock, no state.
 */

/** One step of an edit script: `equal` advances both sides, `removed` only `a`, `added` only `b`. */
export type LcsStep = "equal" | "removed" | "added";

/**
 * Walks the edit script turning `a` into `b` along a longest common subsequence (elements
 * compared with `===`), calling `visit(step, i, j)` with the 0-based positions in `a` and `b`
 * before the step. Backtracking rule (spec 10 §6.3, "Diff"): equal elements advance both sides;
 * otherwise `a`'s element is taken first when `L[i+1][j] >= L[i][j+1]` (the LCS length without
 * it is no shorter), else `b`'s; leftovers of `a`, then of `b`, end the script. The table has
 * `(a.length + 1) × (b.length + 1)` 32-bit cells; callers bound its size.
 */
export function walkLcsScript<T>(a: readonly T[], b: readonly T[], visit: (step: LcsStep, i: number, j: number) => void): void {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  // table[i * width + j] = LCS length of a[i..] and b[j..] (suffix form).
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) visit("equal", i++, j++);
    else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) visit("removed", i++, j);
    else visit("added", i, j++);
  }
  for (; i < n; i++) visit("removed", i, j);
  for (; j < m; j++) visit("added", i, j);
}
