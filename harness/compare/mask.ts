/**
 * Allowlist masking (spec 10 §6.4): an entry's path removes the values it matches from a
 * normalized lane, on both sides of a comparison, before the diff. Array elements are set to
 * `null` so later positions stay stable; object keys are deleted. Selectors (event-selector.ts,
 * this product's extension) remove whole events of one type first, or mask a field in the events
 * they pick by what those events are.
 */
import { normalizeThreadLane } from "../lanes/normalize.js";
import type { AllowlistEntry } from "./allowlist.js";
import { laneAddresses, type EventAddress } from "./address.js";
import { looksLikeEventSelector, parseSelector, selectEvents } from "./event-selector.js";
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

/**
 * Where masked values are noted: `<pointer>=<JSON of the value>` per removed value, so two sides
 * can be told apart by what an entry removed from each (stale: the same values at the same places).
 */
type RemovedSink = { at: string; into: string[] } | undefined;

const childSink = (sink: RemovedSink, key: string): RemovedSink => (sink === undefined ? undefined : { at: `${sink.at}/${key}`, into: sink.into });

/** Removes one child; returns 1 when a value was removed (an array element already `null` counts 0). */
function removeChild(node: Container, key: string, sink: RemovedSink): number {
  if (!hasChild(node, key)) return 0;
  const value = getChild(node, key);
  if (Array.isArray(node) && value === null) return 0;
  sink?.into.push(`${sink.at}/${key}=${JSON.stringify(value)}`);
  if (Array.isArray(node)) node[Number(key)] = null;
  else delete node[key];
  return 1;
}

function maskAt(node: unknown, segments: readonly string[], at: number, sink: RemovedSink = undefined): number {
  if (!isContainer(node) || at >= segments.length) return 0;
  const segment = segments[at]!;
  const last = at === segments.length - 1;
  if (segment === "**") {
    // Zero levels first, then every child with `**` still active.
    let count = maskAt(node, segments, at + 1, sink);
    for (const key of childKeys(node)) count += maskAt(getChild(node, key), segments, at, childSink(sink, key));
    return count;
  }
  const keys = segment === "*" ? childKeys(node) : hasChild(node, segment) ? [segment] : [];
  let count = 0;
  for (const key of keys) {
    count += last ? removeChild(node, key, sink) : maskAt(getChild(node, key), segments, at + 1, childSink(sink, key));
  }
  return count;
}

/**
 * Masks `path` in `lane` IN PLACE and returns how many values it removed (spec 10 §6.4).
 * Segments: a literal matches an own key or an array position, `*` every child at one level,
 * `**` zero or more levels. At the last segment, array elements become `null` and object keys are
 * deleted. An empty path (`/`) masks nothing. `removed`, when given, receives `<pointer>=<JSON>`
 * for each value removed. Positional and wildcard field paths only: selectors
 * are applied by {@link maskLane}.
 * @throws TypeError for a selector path (`/*[…]`).
 */
export function maskPath(lane: unknown, path: string, removed?: string[]): number {
  if (looksLikeEventSelector(path)) throw new TypeError(`maskPath: "${path}" is a selector; use maskLane`);
  const segments = parsePointer(path);
  return segments.length === 0 ? 0 : maskAt(lane, segments, 0, removed === undefined ? undefined : { at: "", into: removed });
}

/** Counts of one entry on one side: how many values it masked. */
export interface SideMaskResult<E extends AllowlistEntry> {
  /** The masked copy, or the input itself when no entry applies (the input is never modified). */
  lane: readonly unknown[];
  /** One count per entry, in the order given. */
  counts: number[];
  /**
   * Per entry, what it removed, sorted: `<pointer>=<JSON value>` per masked value, `/<index>=<JSON
   * event>` per removed event (positions as the lane stood when the entry applied).
   */
  removed: string[][];
  /** The entries, as given, for convenience. */
  entries: readonly E[];
  /**
   * The stable address of each event of `lane` (address.ts), taken after whole events were
   * removed and before any field was masked (so a masked `item.type` does not change them).
   */
  addresses: EventAddress[];
}

/**
 * Applies `entries` to a deep copy of `lane` (a NORMALIZED events lane, `normalizeThreadLane`) and
 * returns the copy with one count per entry, in the order given:
 * 1. every whole-event selector (no field path) removes the events it picks, in entry order, each
 *    picking on the lane as the previous ones left it (one count per event);
 * 2. when any event was removed, the rest is normalized again, which re-interns the ids in order
 *    of first appearance: the same `#n` as interning the lane without those events, i.e. the
 *    selector acts BEFORE interning and a removed event shifts neither positions nor ids
 *    (normalization is otherwise idempotent);
 * 3. every field entry is masked in order: a positional or wildcard path with `maskPath`, a field
 *    selector in each event it picks (addresses taken once, before step 3 masks anything).
 * Callers pass only entries that apply to the cell (`entryApplies`).
 */
export function maskLane<E extends AllowlistEntry>(lane: readonly unknown[], entries: readonly E[]): SideMaskResult<E> {
  // Nothing to mask: no copy (a deep copy of a 200k-event lane costs its size again in memory),
  // and the addresses are taken only when read (the gate never reads them for an equal lane).
  if (entries.length === 0) {
    let addresses: EventAddress[] | undefined;
    return {
      lane,
      counts: [],
      removed: [],
      entries,
      get addresses() {
        return (addresses ??= laneAddresses(lane));
      },
    };
  }
  let copy = structuredClone(lane) as unknown[];
  const selectors = entries.map((entry) => (looksLikeEventSelector(entry.path) ? parseSelector(entry.path) : undefined));
  const counts = entries.map(() => 0);
  const removed = entries.map((): string[] => []);
  let removedAny = false;
  selectors.forEach((selector, index) => {
    if (selector === undefined || selector.field.length > 0) return;
    const needsAddresses = selector.predicates.some((p) => p.key === "turn" || p.key === "item");
    const picked = new Set(selectEvents(copy, selector, needsAddresses ? laneAddresses(copy) : undefined));
    if (picked.size === 0) return;
    for (const at of [...picked].sort((a, b) => a - b)) removed[index]!.push(`/${at}=${JSON.stringify(copy[at])}`);
    copy = copy.filter((_, at) => !picked.has(at));
    counts[index] = picked.size;
    removedAny = true;
  });
  if (removedAny) copy = normalizeThreadLane(copy);
  const addresses = laneAddresses(copy);
  entries.forEach((entry, index) => {
    const selector = selectors[index];
    const into = removed[index]!;
    if (selector === undefined) counts[index] = maskPath(copy, entry.path, into);
    else if (selector.field.length > 0) {
      for (const at of selectEvents(copy, selector, addresses)) counts[index] = counts[index]! + maskAt(copy[at], selector.field, 0, { at: `/${at}`, into });
    }
  });
  for (const list of removed) list.sort();
  return { lane: copy, counts, removed, entries, addresses };
}
