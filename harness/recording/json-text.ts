/**
 * The one reader of a whole JSON file's text (a manifest, a `cell.json`, an allowlist, an oracle):
 * errors a user can act on, in one line, `file:line:column: problem` in plain words — where the
 * text stops being JSON and why (an unclosed `[` names where it was opened), never the parser's
 * own wording or the file's bytes. A UTF-8 byte order mark at the start is ignored, as Node's own
 * `require` of a JSON file and RFC 8259 §8.1 allow. Nesting deeper than {@link MAX_JSON_DEPTH}
 * arrays and objects is refused as input: no recording, oracle or allowlist nests so deep, and the
 * comparison walks values recursively (an oracle nested 5,000 deep ended `parity` with "Maximum
 * call stack size exceeded", issue 42). Iterative scanning only: no input can overflow the stack here.
 */
import { InputError } from "../errors.js";

/** Deepest nesting of arrays and objects accepted in a JSON file (serde_json's default limit is 128). */
export const MAX_JSON_DEPTH = 512;

/** Where a JSON text goes wrong: the 0-based character offset and the problem in words. */
export interface JsonProblem {
  offset: number;
  problem: string;
  /** `depth`: valid JSON nested deeper than the limit; `syntax`: not JSON. */
  kind: "syntax" | "depth";
}

/**
 * The offset of the first `[` or `{` opened deeper than `maxDepth` in a text already known to be
 * valid JSON, or -1. One pass tracking strings; cheaper than {@link jsonProblem}.
 */
export function tooDeepAt(text: string, maxDepth: number = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** Text without a leading UTF-8 byte order mark. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** 1-based line and column of character `offset` of `text`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: Math.min(offset, text.length) - lineStart + 1 };
}

/** The words for nesting past the limit. */
function depthProblem(maxDepth: number): string {
  return `nested deeper than ${maxDepth} levels of arrays and objects (parity reads at most ${maxDepth})`;
}

/** A character shown in a message: printable ASCII as is, anything else as its code point. */
function shown(c: string | undefined): string {
  if (c === undefined) return "the end of the file";
  const code = c.codePointAt(0)!;
  if (c === '"') return `'"'`;
  return code > 0x20 && code < 0x7f ? `"${c}"` : `character U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The offset just past the JSON string that starts at `start` (a `"`), or where and why it is not one. */
function stringEnd(text: string, start: number): number | JsonProblem {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = text[i + 1];
      if (e === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return { offset: i, problem: "a \\u escape needs four hexadecimal digits", kind: "syntax" };
        i += 6;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
      else return { offset: i, problem: `${e === undefined ? "the file ends in an escape" : `unknown escape \\${e}`} in a string`, kind: "syntax" };
      continue;
    }
    if (c < 0x20) return { offset: i, problem: "a control character (a line break or tab) inside a string; write it as an escape such as \\n", kind: "syntax" };
    i++;
  }
  const at = positionOf(text, start);
  return { offset: text.length, problem: `the file ends inside the string opened at line ${at.line}, column ${at.column}`, kind: "syntax" };
}

/**
 * The first place `text` is not JSON (RFC 8259), or where it nests deeper than `maxDepth`, or
 * undefined when it is valid. A single pass with an explicit stack of open brackets.
 */
export function jsonProblem(text: string, maxDepth: number = MAX_JSON_DEPTH): JsonProblem | undefined {
  const opened: Array<{ char: string; offset: number }> = [];
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
  };
  /** Reads one value that is not an array or object (or opens one); a problem, or undefined. */
  const value = (): JsonProblem | "opened" | undefined => {
    skipSpace();
    const c = text[i];
    if (c === "[" || c === "{") {
      if (opened.length >= maxDepth) return { offset: i, problem: depthProblem(maxDepth), kind: "depth" };
      opened.push({ char: c, offset: i });
      i++;
      return "opened";
    }
    if (c === '"') return string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return undefined;
      }
    }
    if (c === undefined) return endProblem("a value");
    return { offset: i, problem: `expected a value, found ${shown(c)}${c === "'" ? " (JSON strings take double quotes)" : ""}`, kind: "syntax" };
  };
  const string = (): JsonProblem | undefined => {
    const end = stringEnd(text, i);
    if (typeof end !== "number") return end;
    i = end;
    return undefined;
  };
  const number = (): JsonProblem | undefined => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (match === null || match[0] === "" || match[0] === "-") return { offset: i, problem: "not a valid number", kind: "syntax" };
    i += match[0].length;
    return undefined;
  };
  const endProblem = (wanted: string): JsonProblem => {
    const open = opened[opened.length - 1];
    if (open === undefined) return { offset: n, problem: `the file ends where ${wanted} was expected`, kind: "syntax" };
    const at = positionOf(text, open.offset);
    return { offset: n, problem: `the file ends before the "${open.char}" opened at line ${at.line}, column ${at.column} is closed`, kind: "syntax" };
  };

  skipSpace();
  if (i >= n) return { offset: 0, problem: "the file is empty", kind: "syntax" };
  // `expect`: what may come next inside the innermost open bracket.
  let expect: "value" | "after-value" | "key" | "first" = "value";
  for (;;) {
    if (expect === "value" || expect === "first") {
      const top = opened[opened.length - 1];
      skipSpace();
      if (expect === "first" && top !== undefined && text[i] === (top.char === "[" ? "]" : "}")) {
        opened.pop();
        i++;
        expect = "after-value";
        continue;
      }
      if (expect === "first" && top?.char === "{") {
        expect = "key";
        continue;
      }
      const got = value();
      if (got === "opened") {
        expect = "first";
        continue;
      }
      if (got !== undefined) return got;
      expect = "after-value";
      continue;
    }
    if (expect === "key") {
      skipSpace();
      if (text[i] !== '"') return i >= n ? endProblem("a property name") : { offset: i, problem: `expected a property name in double quotes, found ${shown(text[i])}`, kind: "syntax" };
      const bad = string();
      if (bad !== undefined) return bad;
      skipSpace();
      if (text[i] !== ":") return i >= n ? endProblem('":"') : { offset: i, problem: `expected ":" after the property name, found ${shown(text[i])}`, kind: "syntax" };
      i++;
      expect = "value";
      continue;
    }
    // after a value
    skipSpace();
    const top = opened[opened.length - 1];
    if (top === undefined) {
      if (i < n) return { offset: i, problem: `unexpected ${shown(text[i])} after the end of the JSON value`, kind: "syntax" };
      return undefined;
    }
    const close = top.char === "[" ? "]" : "}";
    if (text[i] === ",") {
      i++;
      skipSpace();
      if (text[i] === close) return { offset: i, problem: `a trailing comma before "${close}"`, kind: "syntax" };
      expect = top.char === "[" ? "value" : "key";
      continue;
    }
    if (text[i] === close) {
      opened.pop();
      i++;
      continue;
    }
    if (i >= n) return endProblem(`"," or "${close}"`);
    const at = positionOf(text, top.offset);
    return { offset: i, problem: `expected "," or "${close}" (closing the "${top.char}" opened at line ${at.line}, column ${at.column}), found ${shown(text[i])}`, kind: "syntax" };
  }
}

/**
 * Parses the text of `file` as JSON (see the module comment). `what` names the file's kind in
 * the message (`manifest`, `cell.json`); default none.
 * @throws InputError `file:line:column: [what is ]not valid JSON: <problem>`, `file: binary data
 *   (NUL bytes), not JSON`, or `file: [what is ]not valid JSON: the file is empty`
 */
export function parseJsonText(text: string, file: string, what?: string): unknown {
  const prefix = what === undefined ? "" : `${what} is `;
  if (text.includes("\u0000")) throw new InputError("binary data (NUL bytes), not JSON", { file });
  const body = withoutBom(text);
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch {
    if (body.trim() === "") throw new InputError(`${prefix}not valid JSON: the file is empty`, { file });
    const problem = jsonProblem(body) ?? { offset: 0, problem: "not JSON", kind: "syntax" as const };
    const at = positionOf(body, problem.offset);
    throw new InputError(problem.kind === "depth" ? problem.problem : `${prefix}not valid JSON: ${problem.problem}`, { file, line: at.line, column: at.column });
  }
  const deep = tooDeepAt(body);
  if (deep >= 0) {
    const at = positionOf(body, deep);
    throw new InputError(depthProblem(MAX_JSON_DEPTH), { file, line: at.line, column: at.column });
  }
  return value;
}
