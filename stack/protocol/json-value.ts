/**
 * Reading parsed JSON whose shape is not known yet (a wire line, a vendor payload): the one
 * test every layer uses before it looks into a value's fields.
 */

/** True when `value` is a JSON object: not null, not an array (a parsed `{…}`). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
