/**
 * "Did you mean …?" for a mistyped command or flag, as git and npm suggest: the known name
 * nearest to what was typed by edit distance, when it is near enough to be a typo.
 */

/**
 * Edit distance between `a` and `b` with adjacent transpositions (optimal string alignment, as
 * git's suggestions count them): insert, delete, substitute, or swap two neighbours; each costs 1,
 * so `lsit` is 1 from `list`.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate nearest to `typed`, or undefined when none is within a typo's reach (at most
 * a third of the longer name's length, and at least 1, edits away); ties go to the first.
 */
export function closestName(typed: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  if (best === undefined) return undefined;
  const reach = Math.max(1, Math.floor(Math.max(typed.length, best.name.length) / 3));
  return best.distance <= reach ? best.name : undefined;
}
