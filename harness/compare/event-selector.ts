/**
 * Event selectors (allowlists/README.md, "Selectors"): allowlist paths that pick events by what
 * they are instead of by their position in the lane, so an entry keeps masking its field when
 * events are added or removed elsewhere. This product's extension of spec 10 §6.4.
 *
 *     /*[type=thread/extensionState/updated][kind=bb/session-options]     whole events
 *     /*[type=item/completed][item.type=commandExecution]/item/exitCode   a field of events
 *     /*[turn=2][item=commandExecution:1][type=item/completed]/item/exitCode
 *
 * `/*` then one or more predicates `[key=value]`, then optionally a field path. A key is
 * - `turn`: the event's turn ordinal (1-based, by first appearance) or `thread` (address.ts);
 * - `item`: `<item type>:<k>`, the k-th item of that type in the event's turn, or `<k>`, the k-th
 *   item of the turn whatever its type (address.ts);
 * - `n`: the n-th (1-based) of the events matching every other predicate, in lane order;
 * - anything else: a dotted path into the event (`type`, `kind`, `item.type`, `scope.kind`) whose
 *   string, number or boolean value, as text, equals `value`.
 * Values are literal up to `]` (an event type holds `/`; nothing is `~`-escaped in them).
 *
 * Without a field path the selector names WHOLE events and its first predicate must be `type`:
 * matching events are removed from both sides before the diff and before ids are interned. With a
 * field path (RFC 6901 segments, `*` and `**` allowed, ending with a field name) the field is
 * masked in every matching event, exactly as a positional path masks it in one.
 */

/** One `[key=value]` predicate. */
export interface SelectorPredicate {
  key: string;
  value: string;
}

/** A parsed selector: its predicates in order and the decoded field path (empty: whole events). */
export interface Selector {
  predicates: SelectorPredicate[];
  field: string[];
}

/**
 * The whole-event form as it was first defined (`/*[type=T]`, `/*[type=T][<field>=V]`), kept
 * for callers that only need the type and one more top-level field.
 */
export interface EventSelector {
  type: string;
  field?: { key: string; value: string };
}

const PREDICATE = /^\[([A-Za-z_$@][\w$.]*)=([^\][]+)\]/;
const ORDINAL = /^[1-9]\d*$/;

/** True when `path` is written in the selector form at all (starts with `/*[`), valid or not. */
export function looksLikeEventSelector(path: string): boolean {
  return path.startsWith("/*[");
}

function decodeSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function encodeSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Parses a selector, or returns the problem as a sentence. */
function parse(path: string): Selector | string {
  if (!looksLikeEventSelector(path)) return `path "${path}" is not a selector`;
  let rest = path.slice(2);
  const predicates: SelectorPredicate[] = [];
  while (rest.startsWith("[")) {
    const match = PREDICATE.exec(rest);
    if (!match) return `predicate "${rest.split("]")[0]}]" must be [key=value] with a non-empty value and no "[" or "]" in it`;
    predicates.push({ key: match[1]!, value: match[2]! });
    rest = rest.slice(match[0].length);
  }
  const keys = predicates.map((p) => p.key);
  const repeated = keys.find((key, index) => keys.indexOf(key) !== index);
  if (repeated !== undefined) return `predicate "${repeated}" is given twice`;
  for (const { key, value } of predicates) {
    if (key === "turn" && value !== "thread" && !ORDINAL.test(value)) return `[turn=${value}] must be a turn number (1, 2, …) or "thread"`;
    if (key === "item" && !/^([^:]+:)?[1-9]\d*$/.test(value)) return `[item=${value}] must be <item type>:<k> (e.g. commandExecution:1) or <k>`;
    if (key === "n" && !ORDINAL.test(value)) return `[n=${value}] must be a whole number ≥ 1`;
  }
  if (rest === "") {
    if (predicates[0]?.key !== "type") {
      return "a selector without a field path drops whole events and must start with [type=<event type>]";
    }
    return { predicates, field: [] };
  }
  if (!rest.startsWith("/")) return `"${rest}" after the predicates must be a field path starting with "/"`;
  const raw = rest.split("/").slice(1);
  if (raw.some((segment) => segment === "")) return `the field path "${rest}" has an empty segment`;
  const field = raw.map(decodeSegment);
  const last = field[field.length - 1]!;
  if (last === "*" || last === "**" || /^(0|[1-9]\d*)$/.test(last)) return `the field path "${rest}" must end with a field name, not "${last}"`;
  return { predicates, field };
}

/** Parses any selector (see the module comment); `undefined` when `path` is not a valid one. */
export function parseSelector(path: string): Selector | undefined {
  const result = parse(path);
  return typeof result === "string" ? undefined : result;
}

/**
 * Parses the whole-event forms `/*[type=T]` and `/*[type=T][<top-level field>=V]`; `undefined` for
 * anything else (a field selector, ordinal predicates, a malformed path).
 */
export function parseEventSelector(path: string): EventSelector | undefined {
  const selector = parseSelector(path);
  if (selector === undefined || selector.field.length > 0 || selector.predicates.length > 2) return undefined;
  const [type, second] = selector.predicates;
  if (type?.key !== "type") return undefined;
  if (second === undefined) return { type: type.value };
  if (second.key.includes(".") || ["turn", "item", "n"].includes(second.key)) return undefined;
  return { type: type.value, field: { key: second.key, value: second.value } };
}

/** The one-line description of the selector forms, for error messages. */
export const EVENT_SELECTOR_FORM = '"/*[type=<event type>]" or "/*[type=<event type>][<field>=<value>]"';

/** Why `path` (which {@link looksLikeEventSelector}) is not a valid selector, or `undefined`. */
export function eventSelectorProblem(path: string): string | undefined {
  const result = parse(path);
  if (typeof result !== "string") return undefined;
  return `path "${path}" is not a valid event selector: ${result}; write ${EVENT_SELECTOR_FORM} for whole events, or add a field path (/*[type=item/completed][item.type=commandExecution]/item/exitCode)`;
}

/** The address fields a selector's `turn` and `item` predicates test (see address.ts). */
export interface SelectorAddress {
  turn?: number | "thread";
  item?: { type: string; ordinal: number; index: number };
}

function valueAtDotted(event: unknown, dotted: string): unknown {
  let node = event;
  for (const key of dotted.split(".")) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function predicateHolds(event: unknown, address: SelectorAddress | undefined, predicate: SelectorPredicate): boolean {
  if (predicate.key === "turn") return address?.turn !== undefined && String(address.turn) === predicate.value;
  if (predicate.key === "item") {
    if (address?.item === undefined) return false;
    return predicate.value.includes(":") ? `${address.item.type}:${address.item.ordinal}` === predicate.value : String(address.item.index) === predicate.value;
  }
  const value = valueAtDotted(event, predicate.key);
  return (typeof value === "string" || typeof value === "number" || typeof value === "boolean") && String(value) === predicate.value;
}

/**
 * The positions in `lane` of the events `selector` picks. `addresses` (address.ts, one per event)
 * is needed only for `turn` and `item` predicates; without it they match nothing.
 */
export function selectEvents(lane: readonly unknown[], selector: Selector, addresses?: readonly SelectorAddress[]): number[] {
  const nth = selector.predicates.find((p) => p.key === "n");
  const others = selector.predicates.filter((p) => p.key !== "n");
  const picked: number[] = [];
  lane.forEach((event, index) => {
    if (typeof event !== "object" || event === null || Array.isArray(event)) return;
    if (others.every((p) => predicateHolds(event, addresses?.[index], p))) picked.push(index);
  });
  if (nth === undefined) return picked;
  const at = picked[Number(nth.value) - 1];
  return at === undefined ? [] : [at];
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
export function removeSelectedEvents(lane: readonly unknown[], selector: EventSelector): { lane: unknown[]; removed: number } {
  const kept = lane.filter((event) => !eventMatches(event, selector));
  return { lane: kept, removed: lane.length - kept.length };
}

/** True when `value` can be written as a predicate value (non-empty, no `[` or `]`). */
export function writableValue(value: string): boolean {
  return value !== "" && !/[\][]/.test(value);
}

/**
 * Writes a selector: `/*` + `[key=value]` for each predicate + the field path (RFC 6901 escaped).
 * @throws TypeError when a value cannot be written (see {@link writableValue}).
 */
export function formatSelector(predicates: readonly SelectorPredicate[], field: readonly string[] = []): string {
  for (const { key, value } of predicates) {
    if (!writableValue(value)) throw new TypeError(`selector value of ${key} cannot be written: ${JSON.stringify(value)}`);
  }
  return `/*${predicates.map((p) => `[${p.key}=${p.value}]`).join("")}${field.map((s) => `/${encodeSegment(s)}`).join("")}`;
}
