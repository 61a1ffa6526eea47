/**
 * A JSON answer for a JSON-mode request that offers no tools (spec 50: gemini-cli's router asks
 * for a JSON object before every turn). The value is a fixed function of the request's response
 * schema, so recordings stay deterministic: every required property of an object is filled,
 * an enum takes its first value, a string is `text` (the script's title), numbers are 0,
 * booleans false, arrays empty. Accepts JSON Schema (`type: "object"`) and the Gemini
 * `Schema` spelling (`type: "OBJECT"`).
 */

/** The JSON value {@link jsonAnswer} gives for `schema`; `text` fills strings. */
export function jsonAnswer(schema: unknown, text: string): unknown {
  if (typeof schema !== "object" || schema === null) return {};
  const s = schema as { type?: unknown; enum?: unknown; properties?: unknown; required?: unknown; anyOf?: unknown };
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0) return jsonAnswer(s.anyOf[0], text);
  const type = (Array.isArray(s.type) ? s.type[0] : s.type)?.toString().toLowerCase();
  switch (type) {
    case "string":
      return text;
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "null":
      return null;
    default: {
      const properties = typeof s.properties === "object" && s.properties !== null ? (s.properties as Record<string, unknown>) : {};
      const required = Array.isArray(s.required) ? s.required.map(String) : Object.keys(properties);
      return Object.fromEntries(required.map((key) => [key, jsonAnswer(properties[key], text)]));
    }
  }
}
