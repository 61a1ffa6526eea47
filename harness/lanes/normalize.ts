/**
 * Normalization of thread lanes for parity (spec 10 §6.3 steps 1–5): what differs between two
 * runs of the same session by construction (ids, thread ids, checkpoints, times) is made equal.
 */

/** Id fields interned in event lanes (spec 10 §6.3 step 4). */
export const EVENT_ID_FIELDS: readonly string[] = ["turnId", "itemId", "id", "parentToolCallId"];

/** Id fields interned in row lanes: the event fields plus the row-only ones (spec 10 §6.3 step 4). */
export const ROW_ID_FIELDS: readonly string[] = [
  ...EVENT_ID_FIELDS,
  "toolCallId",
  "callId",
  "requestId",
  "messageId",
  "rowId",
  "agentId",
  "taskId",
  "backgroundTaskId",
  "sourceItemId",
  "interactionId",
];

/** Time fields set to 0 when they hold a number or a string (spec 10 §6.3 step 5). */
export const TIME_FIELDS: readonly string[] = [
  "createdAt",
  "updatedAt",
  "startedAt",
  "completedAt",
  "startedAtMs",
  "completedAtMs",
  "timestamp",
  "ts",
  "resetsAtMs",
  "resetsAt",
  "expiresAt",
  // A command's or tool's wall time is the clock's (omp's `wallTimeMs`, codex's `duration`): that a
  // duration was reported stays in the lane, its value would make two runs of one session differ.
  "durationMs",
];

/** Options of {@link normalizeThreadLane}. */
export interface NormalizeOptions {
  /** Which fields hold ids to intern (default {@link EVENT_ID_FIELDS}). */
  idFields?: readonly string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Normalizes one list (events or rows) with its own interner (spec 10 §6.3):
 * 1. JSON round trip (drops `undefined`);
 * 2. drops `providerCheckpointId`;
 * 3. sets each element's `threadId` and `providerThreadId` to `""` (null stays null);
 * 4. interns string values of id fields, at any depth, as `#1`, `#2`, … in order of first
 *    appearance (one interner for all id fields; `rawEvent.id` is interned even when numeric;
 *    `clientRequestId`, `childRef` and `familyId` are not id fields);
 * 5. sets time fields holding a number or a string to 0, at any depth.
 * Ids inside the vendor `payload` of `thread/extensionState/updated` (spec 30 §6.3: config option
 * ids such as `"model"`) are interned like any other, as the spec says ("at any depth"). An added
 * or removed state event therefore renumbers later ids; the allowlist's event selectors handle
 * that by re-normalizing after the removal (harness/compare/mask.ts), which is the same as
 * interning without those events. Exempting the payload instead was tried and rejected: it
 * changes every committed oracle that holds such an event (the fixture-agent cells of every ACP
 * provider), for no gain once selectors re-intern.
 * Returns a new array; the input is not modified.
 */
export function normalizeThreadLane(list: readonly unknown[], options: NormalizeOptions = {}): unknown[] {
  const normalize = createLaneNormalizer(options);
  return list.map((element) => normalize(element));
}

/**
 * The streaming form of {@link normalizeThreadLane}: returns a function that normalizes one
 * element at a time with one interner for the whole lane, so feeding a lane's elements in order
 * gives exactly the elements `normalizeThreadLane` returns for the whole list, without ever
 * holding the lane (or its JSON text) at once. Each element is normalized as its own JSON round
 * trip would give it (plain data skips the round trip: {@link isPlainJson}); an element JSON
 * cannot represent (`undefined`, a function) becomes `null`, as inside an array.
 */
export function createLaneNormalizer(options: NormalizeOptions = {}): (element: unknown) => unknown {
  const idFields = new Set(options.idFields ?? EVENT_ID_FIELDS);
  const timeFields = new Set(TIME_FIELDS);
  const interned = new Map<string, string>();
  const intern = (value: string | number): string => {
    const key = `${typeof value}:${value}`;
    let id = interned.get(key);
    if (id === undefined) {
      id = `#${interned.size + 1}`;
      interned.set(key, id);
    }
    return id;
  };

  // `top` marks the element itself, whose non-null `threadId` and `providerThreadId` read as "".
  const walk = (value: Json, parentKey: string | undefined, top: boolean): Json => {
    if (Array.isArray(value)) return value.map((element) => walk(element, undefined, false));
    if (value === null || typeof value !== "object") return value;
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value)) {
      let child = value[key] as Json;
      if (top && child !== null && (key === "threadId" || key === "providerThreadId")) child = "";
      if (key === "providerCheckpointId") continue;
      if (idFields.has(key) && typeof child === "string") out[key] = intern(child);
      else if (key === "id" && parentKey === "rawEvent" && typeof child === "number") out[key] = intern(child);
      else if (timeFields.has(key) && (typeof child === "number" || typeof child === "string")) out[key] = 0;
      else out[key] = walk(child, key, false);
    }
    return out;
  };

  return (input) => {
    // The walk copies, so plain JSON data needs no round trip first; anything else (undefined,
    // a Date, -0, …) takes the round trip, which gives what JSON.stringify makes of it.
    if (isPlainJson(input)) return walk(input, undefined, true);
    const text = JSON.stringify(input) as string | undefined;
    return walk((text === undefined ? null : JSON.parse(text)) as Json, undefined, true);
  };
}

/**
 * True when `value` is data a JSON round trip returns unchanged: null, booleans, strings, finite
 * numbers other than -0, and arrays without holes and plain objects (prototype `Object.prototype`
 * or null) holding only such data. The assembler's events are (built from parsed lines); the
 * check spares the normalizer a `JSON.stringify` and a `JSON.parse` per event.
 */
export function isPlainJson(value: unknown): value is Json {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== "object") return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value) || !isPlainJson(value[i])) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) {
    if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * A normalized lane as text: two-space indented JSON, one field per line, ending with a newline.
 * Key order is kept as built, so the same lane always serializes to the same bytes.
 */
export function serializeThreadLane(lane: readonly unknown[]): string {
  return `${JSON.stringify(lane, null, 2)}\n`;
}
