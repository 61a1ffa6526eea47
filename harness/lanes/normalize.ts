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
 * holding the lane (or its JSON text) at once. Each element gets its own JSON round trip; an
 * element JSON cannot represent (`undefined`, a function) becomes `null`, as inside an array.
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

  const walk = (value: Json, parentKey: string | undefined): Json => {
    if (Array.isArray(value)) return value.map((element) => walk(element, undefined));
    if (value === null || typeof value !== "object") return value;
    const out: { [key: string]: Json } = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === "providerCheckpointId") continue;
      if (idFields.has(key) && typeof child === "string") out[key] = intern(child);
      else if (key === "id" && parentKey === "rawEvent" && typeof child === "number") out[key] = intern(child);
      else if (timeFields.has(key) && (typeof child === "number" || typeof child === "string")) out[key] = 0;
      else out[key] = walk(child, key);
    }
    return out;
  };

  return (input) => {
    const text = JSON.stringify(input) as string | undefined;
    const element = (text === undefined ? null : JSON.parse(text)) as Json;
    if (element !== null && typeof element === "object" && !Array.isArray(element)) {
      for (const key of ["threadId", "providerThreadId"]) {
        if (key in element && element[key] !== null) element[key] = "";
      }
    }
    return walk(element, undefined);
  };
}

/**
 * A normalized lane as text: two-space indented JSON, one field per line, ending with a newline.
 * Key order is kept as built, so the same lane always serializes to the same bytes.
 */
export function serializeThreadLane(lane: readonly unknown[]): string {
  return `${JSON.stringify(lane, null, 2)}\n`;
}
