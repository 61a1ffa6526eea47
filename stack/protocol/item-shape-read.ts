/**
 * A hand-written read of the common item shapes (spec 10 §1.4) and of an item's presentation
 * (spec 10 §1.2), for the `item.open`/`item.close` deltas that `thread-delta-shape.ts` reads in
 * front of zod: in the cursor check these were the only deltas still parsed by zod in the CLI,
 * and zod compiles each schema on its first parse (bench/README.md).
 *
 * Same contract as `thread-delta-shape.ts`: either `undefined` (the caller declines the whole
 * batch to zod, which also words the errors) or exactly what the schema outputs: a fresh object
 * per `z.object` (a fresh array per `z.array`) with the declared keys in the schema's order,
 * optional keys only when present, unknown keys left out, JSON values (`args`, `result`,
 * `error` of a tool) passed through as they are. Only plain objects whose declared values are
 * defined are read. The shapes read here are `command`, `tool`, `fileChange`, `agentMessage`
 * and `fileRead`, the most common in the recordings; every other type (the `extension` shape,
 * whose presentation rule is a refinement, among them) goes to zod.
 */
import { isPlainObject as isPlain } from "./json-value.js";
import { PRESENTATION_DETAIL_MAX_CHARS, isJsonValue } from "./thread-delta-blocks.js";

type Plain = Record<string, unknown>;

export const isString = (value: unknown): boolean => typeof value === "string";
const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value.length > 0;
export const isFiniteNumber = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value);
export const isBoolean = (value: unknown): boolean => typeof value === "boolean";
const isDetail = (value: unknown): boolean => typeof value === "string" && value.length <= PRESENTATION_DETAIL_MAX_CHARS;

/**
 * Copies the optional field `key` from `input` into `out` when present and passing `test`;
 * `false` when it is present and fails (`undefined` fails: decline rather than mimic zod).
 * Shared with `thread-delta-shape.ts`.
 */
export function optional(input: Plain, key: string, test: (value: unknown) => boolean, out: Plain): boolean {
  if (!(key in input)) return true;
  const value = input[key];
  if (!test(value)) return false;
  out[key] = value;
  return true;
}

/** {@link optional} for each of `keys`, in that order. */
function optionals(input: Plain, keys: readonly string[], test: (value: unknown) => boolean, out: Plain): boolean {
  return keys.every((key) => optional(input, key, test, out));
}

const COMMAND_OPTIONAL_STRINGS = ["aggregatedOutput"] as const;
const COMMAND_OPTIONAL_NUMBERS = ["exitCode", "durationMs"] as const;
const TOOL_OPTIONAL_JSON = ["args", "result", "error"] as const;
const CHANGE_OPTIONAL_STRINGS = ["movePath", "diff", "oldText", "newText"] as const;
const CHANGE_KINDS: ReadonlySet<unknown> = new Set<unknown>(["add", "update", "delete"]);

/** `CommandShapeSchema`: type, command, cwd, aggregatedOutput?, exitCode?, durationMs?. */
function readCommand(input: Plain): Plain | undefined {
  if (typeof input.command !== "string" || typeof input.cwd !== "string") return undefined;
  const out: Plain = { type: "command", command: input.command, cwd: input.cwd };
  if (!optionals(input, COMMAND_OPTIONAL_STRINGS, isString, out)) return undefined;
  return optionals(input, COMMAND_OPTIONAL_NUMBERS, isFiniteNumber, out) ? out : undefined;
}

/** `ToolShapeSchema`: type, tool, server?, args?, result?, error?, durationMs?. */
function readTool(input: Plain): Plain | undefined {
  if (typeof input.tool !== "string") return undefined;
  const out: Plain = { type: "tool", tool: input.tool };
  if (!optionals(input, ["server"], isString, out)) return undefined;
  if (!optionals(input, TOOL_OPTIONAL_JSON, isJsonValue, out)) return undefined;
  return optionals(input, ["durationMs"], isFiniteNumber, out) ? out : undefined;
}

/** `FileChangeEntrySchema`: path, kind, movePath?, diff?, oldText?, newText?. */
function readChange(input: unknown): Plain | undefined {
  if (!isPlain(input) || typeof input.path !== "string" || !CHANGE_KINDS.has(input.kind)) return undefined;
  const out: Plain = { path: input.path, kind: input.kind };
  return optionals(input, CHANGE_OPTIONAL_STRINGS, isString, out) ? out : undefined;
}

/** `FileChangeShapeSchema`: type, changes (a fresh array of entries). */
function readFileChange(input: Plain): Plain | undefined {
  const changes = input.changes;
  if (!Array.isArray(changes)) return undefined;
  const out: Plain[] = [];
  for (const change of changes) {
    const read = readChange(change);
    if (read === undefined) return undefined;
    out.push(read);
  }
  return { type: "fileChange", changes: out };
}

/**
 * One item shape of a type read here, exactly as `ItemShapeSchema` outputs it, or `undefined`
 * (any other type, or a shape the schema might refuse). Never throws; does not modify `input`.
 */
export function readItemShape(input: unknown): Plain | undefined {
  if (!isPlain(input)) return undefined;
  switch (input.type) {
    case "command":
      return readCommand(input);
    case "tool":
      return readTool(input);
    case "fileChange":
      return readFileChange(input);
    case "agentMessage":
      return typeof input.text === "string" ? { type: "agentMessage", text: input.text } : undefined;
    case "fileRead": {
      if (typeof input.path !== "string") return undefined;
      const out: Plain = { type: "fileRead", path: input.path };
      return optionals(input, ["cmd"], isString, out) ? out : undefined;
    }
    default:
      return undefined;
  }
}

/** `{[a]: nonEmpty, [b]: nonEmpty}` as a fresh object, or `undefined`. */
function readPair(input: unknown, a: string, b: string): Plain | undefined {
  if (!isPlain(input) || !isNonEmptyString(input[a]) || !isNonEmptyString(input[b])) return undefined;
  return { [a]: input[a], [b]: input[b] };
}

/**
 * `PresentationSchema` (spec 10 §1.2): label {pending, completed}, icon {glyph}, title?,
 * detail? (at most {@link PRESENTATION_DETAIL_MAX_CHARS} UTF-16 units), suppress?, tint?
 * {light, dark}; exactly as the schema outputs it, or `undefined`. Never throws.
 */
export function readPresentation(input: unknown): Plain | undefined {
  if (!isPlain(input)) return undefined;
  const label = readPair(input.label, "pending", "completed");
  const icon = input.icon;
  if (label === undefined || !isPlain(icon) || !isNonEmptyString(icon.glyph)) return undefined;
  const out: Plain = { label, icon: { glyph: icon.glyph } };
  if (!optionals(input, ["title"], isString, out)) return undefined;
  if (!optionals(input, ["detail"], isDetail, out)) return undefined;
  if (!optionals(input, ["suppress"], isBoolean, out)) return undefined;
  if (!("tint" in input)) return out;
  const tint = readPair(input.tint, "light", "dark");
  if (tint === undefined) return undefined;
  out.tint = tint;
  return out;
}
