/**
 * JSON pointers (RFC 6901) as the parity allowlist uses them, with two wildcard segments
 * (spec 10 §6.4): `*` matches every key or position at one level, `**` zero or more levels.
 * Pointers here address a whole normalized lane (a JSON array of events), so the first
 * segment is an event position. The event-selector form (`/*[type=…]`) is validated here too.
 */
import { EVENT_SELECTOR_FORM, eventSelectorProblem, looksLikeEventSelector } from "./event-selector.js";

/** Splits a pointer into decoded segments; empty segments are dropped as in spec 10 §6.4. */
export function parsePointer(pointer: string): string[] {
  return pointer
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Joins decoded segments into a pointer, escaping `~` and `/` (RFC 6901 §3). `[]` gives `""`. */
export function formatPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** True for a segment that is an array position (`0`, `12`; no sign, no leading zeros). */
export function isIndexSegment(segment: string): boolean {
  return /^(0|[1-9]\d*)$/.test(segment);
}

/** True for the two wildcard segments. */
export function isWildcardSegment(segment: string): boolean {
  return segment === "*" || segment === "**";
}

/**
 * Checks an allowlist path (spec 10 §6.4 plus this product's stricter rules) and returns the
 * problem as a sentence, or `undefined` when it is acceptable. Two forms:
 * - an event selector, `/*[type=<event type>]` optionally followed by `[<field>=<value>]`
 *   (see event-selector.ts): the ONLY form that masks whole events, and only events of one type;
 * - a field path: it starts with `/` and has no empty segment (`//` is a typo, not a key); the
 *   first segment is an event position, `*` or `**` (the lane is an array); the last segment
 *   names a field: not `*`, `**` or a position, so it never masks a whole event (`/`, `/*`,
 *   `/**`, `/3`) or a whole array element.
 */
export function allowlistPathProblem(path: string): string | undefined {
  if (looksLikeEventSelector(path)) return eventSelectorProblem(path);
  if (!path.startsWith("/")) return `path "${path}" must be a JSON pointer starting with "/"`;
  const raw = path.split("/").slice(1);
  if (raw.some((segment) => segment === "")) return `path "${path}" has an empty segment`;
  const segments = parsePointer(path);
  const first = segments[0];
  const last = segments[segments.length - 1];
  const wholeEvent = `to accept an added or removed event, select it by type: ${EVENT_SELECTOR_FORM}`;
  if (segments.length < 2 || first === undefined || last === undefined) {
    return `path "${path}" would mask a whole event; name a field inside it (e.g. "/*/item/text"), or ${wholeEvent}`;
  }
  if (!isIndexSegment(first) && !isWildcardSegment(first)) {
    return `path "${path}" must start with an event position, "*" or "**" (the lane is an array of events), or be an event selector ${EVENT_SELECTOR_FORM}`;
  }
  if (isWildcardSegment(last) || isIndexSegment(last)) {
    return `path "${path}" must end with a field name, not "${last}" (${wholeEvent})`;
  }
  return undefined;
}
