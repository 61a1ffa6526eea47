/**
 * Event selectors: the one allowlist form that masks WHOLE events (this product's extension of
 * spec 10 §6.4). A field path cannot accept an event that exists on one side only (a newer
 * bridge emitting a new event type, e.g. `thread/extensionState/updated`, spec 30 §6.3), and a
 * positional whole-event path (`/3`) or an untyped `/*` would hide anything at all. A selector
 * names the event type, so it stays as narrow as the intended change:
 *
 *     /*[type=thread/extensionState/updated]
 *     /*[type=thread/extensionState/updated][kind=bb/session-options]
 *
 * The first predicate is always `type`; an optional second one tests another top-level string
 * field. Values are taken literally up to `]` (an event type holds `/`, so the path is not
 * split into pointer segments). Matching events are removed from both sides before the diff and
 * before ids are interned, so they shift neither positions nor `#n` ids.
 */

/** A parsed event selector: the event `type` and an optional second top-level string field. */
export interface EventSelector {
  type: string;
  field?: { key: string; value: string };
}

const SELECTOR_PATTERN = /^\/\*\[type=([^\][]+)\](?:\[([A-Za-z_$][\w$]*)=([^\][]+)\])?$/;

/** True when `path` is written in the selector form at all (starts with `/*[`), valid or not. */
export function looksLikeEventSelector(path: string): boolean {
  return path.startsWith("/*[");
}

/**
 * Parses `/*[type=<event type>]` or `/*[type=<event type>][<field>=<value>]`; `undefined` for any
 * other path (including a malformed selector: see {@link eventSelectorProblem}).
 */
export function parseEventSelector(path: string): EventSelector | undefined {
  const match = SELECTOR_PATTERN.exec(path);
  if (!match) return undefined;
  const [, type, key, value] = match;
  if (key === "type") return undefined;
  return key !== undefined && value !== undefined ? { type: type!, field: { key, value } } : { type: type! };
}

/** The one-line description of the selector form, for error messages. */
export const EVENT_SELECTOR_FORM = '"/*[type=<event type>]" or "/*[type=<event type>][<field>=<value>]"';

/** Why `path` (which {@link looksLikeEventSelector}) is not a valid selector, or `undefined`. */
export function eventSelectorProblem(path: string): string | undefined {
  if (parseEventSelector(path) !== undefined) return undefined;
  return `path "${path}" is not a valid event selector; write ${EVENT_SELECTOR_FORM} (a second predicate names another top-level field, not "type"; nothing may follow)`;
}

/** True when `event` is an object whose `type` (and second field, when given) equal the selector's. */
export function eventMatches(event: unknown, selector: EventSelector): boolean {
  if (typeof event !== "object" || event === null || Array.isArray(event)) return false;
  const record = event as Record<string, unknown>;
  if (record.type !== selector.type) return false;
  return selector.field === undefined || record[selector.field.key] === selector.field.value;
}

/**
 * Removes the events matching `selector` from `lane` and returns the rest (a new array, same
 * element objects) with how many were removed. Each removed event counts as one masked value.
 */
export function removeSelectedEvents(
  lane: readonly unknown[],
  selector: EventSelector,
): { lane: unknown[]; removed: number } {
  const kept = lane.filter((event) => !eventMatches(event, selector));
  return { lane: kept, removed: lane.length - kept.length };
}
