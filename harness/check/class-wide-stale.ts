/**
 * Staleness of class-wide allowlist entries (`provider` or `cell` is `"*"`), judged once over the
 * whole selection of a run (issue 39): such an entry is a budget of known differences across
 * cells ("every echo cell may split its deltas differently"), so a cell where it happens to mask
 * nothing says nothing about it. It is stale only when it masks no difference in any selected
 * cell it applies to; then it is reported once, on the first of those cells (in run order), which
 * fails. An entry that applies to no selected cell is not judged (as for any entry).
 */
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import { isClassWide } from "../compare/parity.js";
import type { CellResult } from "../report/check-report.js";

/** What the settlement needs of each cell's comparison: the entries that applied and whether each masked a difference there. */
export interface AppliedEntries {
  masked: ReadonlyArray<{ entry: LoadedAllowlistEntry; masksDifference: boolean }>;
}

/**
 * Adds each class-wide entry that masked no difference in any of `cells` to the `stale` list of
 * the first cell it applied to, and fails that cell if it had passed (a passing cell replayed
 * cleanly against its oracle, so the stale entry is its only failure). `applied[i]` belongs to
 * `cells[i]`. Mutates `cells`; returns the entries found stale. Cells per-cell comparison already
 * judged (`compareParity` leaves class-wide entries to this function) are not changed otherwise.
 */
export function settleClassWideStaleness(cells: CellResult[], applied: readonly AppliedEntries[]): LoadedAllowlistEntry[] {
  const firstCell = new Map<LoadedAllowlistEntry, number>();
  const masksSomewhere = new Set<LoadedAllowlistEntry>();
  applied.forEach((extras, index) => {
    for (const m of extras.masked) {
      if (!isClassWide(m.entry)) continue;
      if (!firstCell.has(m.entry)) firstCell.set(m.entry, index);
      if (m.masksDifference) masksSomewhere.add(m.entry);
    }
  });
  const stale: LoadedAllowlistEntry[] = [];
  for (const [entry, index] of firstCell) {
    if (masksSomewhere.has(entry)) continue;
    const cell = cells[index]!;
    // Only a cell whose comparison ran judges entries: a timed-out or unreadable cell has no verdict.
    if (cell.status !== "pass" && cell.status !== "fail") continue;
    cell.stale = [...cell.stale, entry];
    if (cell.status === "pass") cell.status = "fail";
    stale.push(entry);
  }
  return stale;
}
