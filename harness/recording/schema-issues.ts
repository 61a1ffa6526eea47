/**
 * A schema's complaints about a JSON file (a manifest, a `cell.json`, an allowlist entry) in
 * plain words, at the line and column of the field: `file:3:5: field \`scope\`: expected one of
 * "thread", "process", found "threads"`, never zod's own wording ("Invalid input: expected
 * string, received number", "Unrecognized key") or a path without a place (issue 42). Reads the
 * issues' fields only (no zod at run time here) and finds the place in the file's text with one
 * iterative scan.
 */
import { positionOf, withoutBom } from "./json-text.js";

/** What this module reads of a zod issue (zod 4's `$ZodIssue`, structurally). */
export interface SchemaIssue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: unknown;
  keys?: readonly string[];
  values?: readonly unknown[];
  minimum?: unknown;
  maximum?: unknown;
  origin?: string;
}

/** `a string`, `an array`, `null`: the JSON kind of a value, with its article. */
export function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return Number.isInteger(value) ? "a whole number" : "a number";
  return `a ${typeof value}`;
}

/** A short rendering of a value found in a file: scalars as JSON (cut at 40 characters), containers by kind. */
function found(value: unknown): string {
  if (value === null || typeof value === "object") return kindOf(value);
  const text = JSON.stringify(value) ?? String(value);
  // Control characters of a file never reach the terminal raw.
  const safe = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return safe.length > 40 ? `${safe.slice(0, 39)}…` : safe;
}

/** The value at `path` inside `root`, or undefined. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = root;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** The dotted name of a field (`steps.2.text`), or `what` for the file's top level. */
export function fieldName(path: readonly PropertyKey[], what: string): string {
  return path.length === 0 ? what : path.map(String).join(".");
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * One issue in plain words, without its place: `expected a string, found 3`, `unknown key
 * "bogus"`, `expected one of "thread", "process", found "threads"`, `missing`. `root` is the
 * parsed file (the value found at the issue's path is read from it).
 */
export function plainIssue(issue: SchemaIssue, root: unknown): string {
  const value = valueAt(root, issue.path);
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined) return "missing";
      return `expected ${typeof issue.expected === "string" ? article(issue.expected) : "another type"}, found ${found(value)}`;
    case "unrecognized_keys": {
      const keys = (issue.keys ?? []).map((k) => JSON.stringify(k).replace(/[\u0000-\u001f\u007f-\u009f]/g, "?"));
      return `unknown ${keys.length === 1 ? "key" : "keys"} ${keys.join(", ")}`;
    }
    case "invalid_value":
      return `expected ${(issue.values ?? []).length === 1 ? JSON.stringify(issue.values![0]) : `one of ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(", ")}`}, found ${found(value)}`;
    case "too_small":
      if (issue.origin === "string") return issue.minimum === 1 ? "must not be empty" : `must be at least ${String(issue.minimum)} characters long`;
      if (issue.origin === "array") return issue.minimum === 1 ? "must not be empty" : `needs at least ${String(issue.minimum)} entries`;
      return `must be at least ${String(issue.minimum)}, found ${found(value)}`;
    case "too_big":
      return issue.origin === "string" || issue.origin === "array" ? `too long (at most ${String(issue.maximum)})` : `must be at most ${String(issue.maximum)}, found ${found(value)}`;
    case "invalid_format":
      // The message is the project's own (the pattern's explanation), e.g. "expected a YYYY-MM-DD date".
      return `${issue.message}${value !== undefined && (value === null || typeof value !== "object") ? `, found ${found(value)}` : ""}`;
    case "custom":
      // A refinement's own message, which names the value itself.
      return issue.message;
    case "invalid_union":
      return `does not match any accepted form, found ${found(value)}`;
    default:
      return issue.message;
  }
}

/**
 * The 0-based offset in `text` (valid JSON) where the field at `path` is written: its key for an
 * object member (so an unknown key is pointed at itself), the value for an array element, the
 * start of the text for the top level; undefined when the path is not in the text (a missing
 * field: then the place of its parent is asked for by the caller).
 */
export function offsetOfPath(text: string, path: readonly PropertyKey[]): number | undefined {
  const target = path.map(String);
  const stack: Array<{ array: boolean; index: number; key: string | undefined }> = [];
  const same = (extra: string | undefined) => {
    const here = stack.map((s) => (s.array ? String(s.index) : s.key!));
    if (extra !== undefined) here.push(extra);
    return here.length === target.length && here.every((part, i) => part === target[i]);
  };
  if (target.length === 0) return text.length - text.trimStart().length;
  let i = 0;
  let expectKey = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      if (expectKey) {
        const key = JSON.parse(text.slice(start, i)) as string;
        stack[stack.length - 1]!.key = key;
        expectKey = false;
        if (same(undefined)) return start;
      }
      continue;
    }
    if (c === "[" || c === "{") {
      stack.push({ array: c === "[", index: 0, key: undefined });
      expectKey = c === "{";
      i++;
      // An array's first element starts after its bracket.
      if (c === "[" && same(undefined)) return nextNonSpace(text, i);
      continue;
    }
    if (c === "]" || c === "}") stack.pop();
    else if (c === ",") {
      const top = stack[stack.length - 1];
      if (top !== undefined && top.array) {
        top.index += 1;
        if (same(undefined)) return nextNonSpace(text, i + 1);
      } else expectKey = true;
    }
    i++;
  }
  return undefined;
}

function nextNonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/**
 * Where an issue is in the file: the field's own place, else (a missing field) its nearest
 * parent's, as an offset into `text` with its byte order mark removed.
 */
export function issueOffset(text: string, path: readonly PropertyKey[]): number {
  const body = withoutBom(text);
  for (let n = path.length; n >= 0; n--) {
    const at = offsetOfPath(body, path.slice(0, n));
    if (at !== undefined) return at;
  }
  return 0;
}

/**
 * The one line for a file a schema refused: `<what>: missing fields \`a\`, \`b\`; field \`c\`:
 * <problem>; …` (every issue, so one edit fixes the file), placed at the first issue's line and
 * column. `text` is the file's text, `root` its parsed value; `options.base`: where in it the value
 * the schema checked sits (an allowlist's entry `[i]`), the issues' paths being relative to it;
 * `options.style: "plain"` names each field bare and in order (`pr: …; reason: missing`).
 */
export function schemaProblem(
  text: string,
  root: unknown,
  issues: readonly SchemaIssue[],
  what: string,
  options: { base?: readonly PropertyKey[]; style?: "field" | "plain" } = {},
): { problem: string; line: number; column: number } {
  const base = options.base ?? [];
  const value = valueAt(root, base);
  const missing = issues.filter((i) => i.code === "invalid_type" && valueAt(value, i.path) === undefined);
  const others = issues.filter((i) => !missing.includes(i));
  const named = (i: SchemaIssue, problem: string) =>
    i.path.length === 0 ? problem : options.style === "plain" ? `${fieldName(i.path, what)}: ${problem}` : `field \`${fieldName(i.path, what)}\`: ${problem}`;
  const parts =
    options.style === "plain"
      ? issues.map((i) => named(i, missing.includes(i) ? "missing" : plainIssue(i, value)))
      : [
          ...(missing.length > 0 ? [`missing ${missing.length === 1 ? "field" : "fields"} ${missing.map((i) => `\`${fieldName(i.path, what)}\``).join(", ")}`] : []),
          ...others.map((i) => named(i, plainIssue(i, value))),
        ];
  const first = others[0] ?? missing[0];
  const firstPath = [...base, ...(first === undefined ? [] : first.code === "unrecognized_keys" && first.keys?.[0] !== undefined ? [...first.path, first.keys[0]] : first.path)];
  const at = positionOf(withoutBom(text), issueOffset(text, firstPath));
  return { problem: `invalid ${what}: ${parts.join("; ") || "invalid"}`, ...at };
}
