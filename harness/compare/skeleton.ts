/**
 * Event skeletons: a normalized event with its ids abstracted and its keys sorted, the form two
 * lanes are aligned on (allowlists/README.md, "How lanes are compared"). Interned ids (`#n`,
 * spec 10 §6.3 step 4) are numbered by first appearance, so one event added near the start of a
 * lane renumbers every later id; comparing skeletons makes that renumbering invisible, and
 * `id-correspondence.ts` then checks that the ids of aligned events map one to one.
 */
import { EVENT_ID_FIELDS } from "../lanes/normalize.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ID_FIELDS = new Set(EVENT_ID_FIELDS);

/** What an id value becomes in a skeleton. */
export const ABSTRACT_ID = "#";

/**
 * True when the value under `key` (inside an object held under `parentKey`) is an id the
 * normalizer interns: a string in an id field, or `rawEvent.id` (string or number).
 */
export function isIdValue(key: string, parentKey: string | undefined, value: unknown): value is string | number {
  if (ID_FIELDS.has(key) && typeof value === "string") return true;
  return key === "id" && parentKey === "rawEvent" && typeof value === "number";
}

function abstractValue(value: unknown, parentKey: string | undefined): Json {
  if (Array.isArray(value)) return value.map((element) => abstractValue(element, undefined));
  if (value === null || typeof value !== "object") return (value ?? null) as Json;
  const record = value as Record<string, unknown>;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(record).sort()) {
    const child = record[key];
    if (child === undefined) continue;
    out[key] = isIdValue(key, parentKey, child) ? ABSTRACT_ID : abstractValue(child, key);
  }
  return out;
}

/** A copy of `event` with every id value replaced by {@link ABSTRACT_ID} and keys sorted at every level. */
export function abstractIds(event: unknown): unknown {
  return abstractValue(event, undefined);
}

/** The alignment key of an event: `JSON.stringify` of {@link abstractIds} (key order never matters). */
export function skeletonKey(event: unknown): string {
  return JSON.stringify(abstractValue(event, undefined)) ?? "null";
}

/**
 * The coarse kind of an event, `[type, scope kind, item type]`: removed and added events of one
 * hunk are paired (and diffed field by field) only when their kinds are equal.
 */
export function eventKind(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null || Array.isArray(event)) return undefined;
  const record = event as Record<string, unknown>;
  const scope = record.scope as Record<string, unknown> | undefined;
  const item = record.item as Record<string, unknown> | undefined;
  const scopeKind = typeof scope === "object" && scope !== null ? scope.kind : undefined;
  const itemType = typeof item === "object" && item !== null && !Array.isArray(item) ? item.type : undefined;
  return JSON.stringify([record.type ?? null, scopeKind ?? null, itemType ?? null]);
}

/** One id position present on both sides of an aligned pair: its path in the event and both values. */
export interface IdPair {
  /** Decoded path segments inside the event (e.g. `["item", "id"]`). */
  segments: string[];
  old: string;
  new: string;
}

/**
 * Every id position that two aligned events both hold, walked by key (not key order) and by array
 * position, with the value on each side as a string.
 */
export function idPairs(oldEvent: unknown, newEvent: unknown): IdPair[] {
  const pairs: IdPair[] = [];
  const walk = (a: unknown, b: unknown, segments: string[], parentKey: string | undefined) => {
    if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return;
    if (Array.isArray(a) !== Array.isArray(b)) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      const length = Math.min(a.length, b.length);
      for (let index = 0; index < length; index++) walk(a[index], b[index], [...segments, String(index)], undefined);
      return;
    }
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    for (const key of Object.keys(left)) {
      if (!Object.hasOwn(right, key)) continue;
      const x = left[key];
      const y = right[key];
      if (isIdValue(key, parentKey, x) && isIdValue(key, parentKey, y)) {
        pairs.push({ segments: [...segments, key], old: String(x), new: String(y) });
      } else {
        walk(x, y, [...segments, key], key);
      }
    }
  };
  walk(oldEvent, newEvent, [], undefined);
  return pairs;
}
