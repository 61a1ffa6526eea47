/**
 * Allowlist masking (spec 10 §6.4): an entry's path removes the values it matches from a
 * normalized lane, on both sides of a comparison, before the diff. Array elements are set to
 * `null` so later positions stay stable; object keys are deleted. Event selectors
 * (event-selector.ts, this product's extension) remove whole events of one type first.
 */
import { normalizeThreadLane } from "../lanes/normalize.js";
import type { AllowlistEntry } from "./allowlist.js";
import { parseEventSelector, removeSelectedEvents } from "./event-selector.js";
import { isIndexSegment, parsePointer } from "./pointer.js";

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === "object" && value !== null;
}

/** Own child keys of a container, in order (array positions as strings). */
function childKeys(node: Container): string[] {
  return Array.isArray(node) ? node.map((_, index) => String(index)) : Object.keys(node);
}

function hasChild(node: Container, key: string): boolean {
  if (Array.isArray(node)) return isIndexSegment(key) && Number(key) < node.length;
  return Object.hasOwn(node, key);
}

function getChild(node: Container, key: string): unknown {
  return Array.isArray(node) ? node[Number(key)] : node[key];
}

/** Removes one child; returns 1 when a value was removed (an array element already `null` counts 0). */
function removeChild(node: Container, key: string): number {
  if (!hasChild(node, key)) return 0;
  if (Array.isArray(node)) {
    const index = Number(key);
    if (node[index] === null) return 0;
    node[index] = null;
    return 1;
  }
  delete node[key];
  return 1;
}

function maskAt(node: unknown, segments: readonly string[], at: number): number {
  if (!isContainer(node) || at >= segments.length) return 0;
  const segment = segments[at]!;
  const last = at === segments.length - 1;
  if (segment === "**") {
    // Zero levels first, then every child with `**` still active.
    let count = maskAt(node, segments, at + 1);
    for (const key of childKeys(node)) count += maskAt(getChild(node, key), segments, at);
    return count;
  }
  const keys = segment === "*" ? childKeys(node) : hasChild(node, segment) ? [segment] : [];
  let count = 0;
  for (const key of keys) {
    count += last ? removeChild(node, key) : maskAt(getChild(node, key), segments, at + 1);
  }
  return count;
}

/**
 * Masks `path` in `lane` IN PLACE and returns how many values it removed (spec 10 §6.4).
 * Segments: a literal matches an own key or an array position, `*` every child at one level,
 * `**` zero or more levels. At the last segment, array elements become `null` and object keys are
 * deleted. An empty path (`/`) masks nothing. Field paths only: an event selector is applied by
 * {@link maskLane}, which must re-intern the lane after removing events.
 * @throws TypeError for an event-selector path (`/*[type=…]`).
 */
export function maskPath(lane: unknown, path: string): number {
  if (parseEventSelector(path) !== undefined) throw new TypeError(`maskPath: "${path}" is an event selector; use maskLane`);
  const segments = parsePointer(path);
  return segments.length === 0 ? 0 : maskAt(lane, segments, 0);
}

/** Counts of one entry on one side: how many values it masked. */
export interface SideMaskResult<E extends AllowlistEntry> {
  /** The masked copy, or the input itself when no entry applies (the input is never modified). */
  lane: readonly unknown[];
  /** One count per entry, in the order given. */
  counts: number[];
  /** The entries, as given, for convenience. */
  entries: readonly E[];
}

/**
 * Applies `entries` to a deep copy of `lane` (a NORMALIZED events lane, `normalizeThreadLane`) and
 * returns the copy with one count per entry, in the order given:
 * 1. every event-selector entry removes its matching events (one count per event);
 * 2. when any event was removed, the rest is normalized again, which re-interns the ids in order
 *    of first appearance: the same `#n` as interning the lane without those events, i.e. the
 *    selector acts BEFORE interning and a removed event shifts neither positions nor ids
 *    (normalization is otherwise idempotent);
 * 3. every field-path entry is masked in order (`maskPath`).
 * Callers pass only entries that apply to the cell (`entryApplies`).
 */
export function maskLane<E extends AllowlistEntry>(lane: readonly unknown[], entries: readonly E[]): SideMaskResult<E> {
  // Nothing to mask: no copy (a deep copy of a 200k-event lane costs its size again in memory).
  if (entries.length === 0) return { lane, counts: [], entries };
  let copy = structuredClone(lane) as unknown[];
  const selectors = entries.map((entry) => parseEventSelector(entry.path));
  const counts = entries.map(() => 0);
  let removedAny = false;
  selectors.forEach((selector, index) => {
    if (selector === undefined) return;
    const result = removeSelectedEvents(copy, selector);
    copy = result.lane;
    counts[index] = result.removed;
    if (result.removed > 0) removedAny = true;
  });
  if (removedAny) copy = normalizeThreadLane(copy);
  entries.forEach((entry, index) => {
    if (selectors[index] === undefined) counts[index] = maskPath(copy, entry.path);
  });
  return { lane: copy, counts, entries };
}
