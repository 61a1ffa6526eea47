/**
 * Migrating positional allowlist paths (`/86/item/aggregatedOutput`) to stable selectors
 * (allowlists/README.md, "Selectors"): a positional path masks whatever sits at that position,
 * so one event added before it makes it mask the wrong event or nothing. The selector that
 * replaces it must mask exactly what the positional path masked on every lane of the cell.
 */
import { stableSelector } from "./address.js";
import type { AllowlistEntry } from "./allowlist.js";
import { looksLikeEventSelector, parseSelector } from "./event-selector.js";
import { maskLane } from "./mask.js";
import { isIndexSegment, parsePointer } from "./pointer.js";

/** True for a field path whose first segment is an event position (`/86/item/exitCode`). */
export function isPositionalPath(path: string): boolean {
  if (looksLikeEventSelector(path)) return false;
  const first = parsePointer(path)[0];
  return first !== undefined && isIndexSegment(first);
}

/** True for an entry that drops whole events (a selector without a field path). */
export function isWholeEventEntry(entry: AllowlistEntry): boolean {
  return looksLikeEventSelector(entry.path) && parseSelector(entry.path)?.field.length === 0;
}

/** Result of {@link stablePathFor}: the selector, or why none could replace the path. */
export type StablePathResult = { path: string } | { problem: string };

/**
 * The stable selector that masks exactly what the positional `entry.path` masks on each of
 * `lanes` (the cell's NORMALIZED lanes: live, recording, oracle — whichever exist), after the
 * whole-event entries of `cellEntries` (the other entries applying to the cell) removed their
 * events, as `maskLane` applies them. Tries the item by type and ordinal
 * (`[item=commandExecution:1]`) first, then by its position in the turn (`[item=3]`, for a
 * change of the item's type).
 */
export function stablePathFor(entry: AllowlistEntry, cellEntries: readonly AllowlistEntry[], lanes: readonly (readonly unknown[])[]): StablePathResult {
  if (!isPositionalPath(entry.path)) return { problem: "not a positional path" };
  const removals = cellEntries.filter(isWholeEventEntry);
  const segments = parsePointer(entry.path);
  const position = Number(segments[0]);
  const field = segments.slice(1);
  const prepared = lanes.map((lane) => maskLane(lane, removals));
  const before = lanes.map((lane) => JSON.stringify(maskLane(lane, [...removals, entry]).lane));
  const masked = lanes.map((lane) => maskLane(lane, [...removals, entry]).counts.at(-1)!);
  if (masked.every((count) => count === 0)) return { problem: `masks nothing on the cell's ${lanes.length} lane(s)` };
  const candidates: string[] = [];
  for (const side of prepared) {
    if (position >= side.lane.length) continue;
    for (const untypedItem of [false, true]) {
      const selector = stableSelector(side.lane, side.addresses, position, field, { untypedItem });
      if (selector !== undefined && !candidates.includes(selector)) candidates.push(selector);
    }
  }
  for (const selector of candidates) {
    const candidate = { ...entry, path: selector };
    if (lanes.every((lane, k) => JSON.stringify(maskLane(lane, [...removals, candidate]).lane) === before[k])) return { path: selector };
  }
  return {
    problem: candidates.length === 0 ? `no lane of the cell has an event at position ${position}` : `no selector masks the same values on every lane (tried ${candidates.join(", ")})`,
  };
}
