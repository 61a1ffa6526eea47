/**
 * Reading parsed JSON whose shape is not known yet (a wire line, a vendor payload): the one
 * test every layer uses before it looks into a value's fields.
 */

/** True when `value` is a JSON object: not null, not an array (a parsed `{…}`). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * True when `value` is an object as `JSON.parse` makes it (prototype `Object.prototype`): the
 * hand-written readers in front of zod take only these, so zod's handling of other prototypes,
 * getters and arrays never has to be reproduced.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** `value` when it is a non-empty string, else `undefined` (an optional text field of a vendor payload). */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
