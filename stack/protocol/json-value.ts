/**
 * Reading parsed JSON whose shape is not known yet (a wire line, a vendor payload): the one
 * test every layer uses before it looks into a value's fields.
 */

/** True when `value` is a JSON object: not null, not an array (a parsed `{…}`). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is a non-empty string, else `undefined` (an optional text field of a vendor payload). */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
