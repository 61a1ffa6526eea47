/**
 * Line and column of places in a JSON text, for one-line errors about a facts file: where a
 * syntax error sits (from the position `JSON.parse` names), and where the value at a path
 * (`["steps", 0, "exit"]`) starts in a text that parsed.
 */

/** A 1-based line and column. */
export interface TextPosition {
  line: number;
  column: number;
}

/** The 1-based line and column of the 0-based character `offset` of `text` (clamped to its end). */
export function positionAt(text: string, offset: number): TextPosition {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < end; i += 1) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Where `JSON.parse(text)` failed, from its error message (`… at position 42`, `(line 3
 * column 5)`, or the end of the text for "Unexpected end of JSON input"), and the message
 * without V8's position words and excerpt.
 */
export function jsonSyntaxError(text: string, error: unknown): TextPosition & { problem: string } {
  const message = error instanceof Error ? error.message : String(error);
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  const at = /at position (\d+)/.exec(message);
  const where = lineColumn ? { line: Number(lineColumn[1]), column: Number(lineColumn[2]) } : positionAt(text, at ? Number(at[1]) : text.length);
  const problem =
    message
      .replace(/\s*\(line \d+ column \d+\)/, "")
      .replace(/\s*in JSON at position \d+.*$/s, "")
      .replace(/,\s*".*" is not valid JSON$/s, "")
      .trim() || "not valid JSON";
  return { ...where, problem };
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

/**
 * The offset where the value at `path` starts in `text` (valid JSON), or of the deepest
 * existing value along it when the path goes further than the text (a missing field is
 * reported at its object).
 */
export function offsetOfPath(text: string, path: readonly (string | number)[]): number {
  let i = 0;
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i += 1;
  };
  const skipString = (): string => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i += 1;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const skipValue = (): void => {
    skip();
    const c = text[i];
    if (c === '"') return void skipString();
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i += 1;
      skip();
      if (text[i] === close) return void (i += 1);
      for (;;) {
        if (c === "{") {
          skip();
          skipString();
          skip();
          i += 1; // the colon
        }
        skipValue();
        skip();
        if (text[i] === ",") i += 1;
        else return void (i += 1);
      }
    }
    while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i += 1;
  };
  skip();
  for (const key of path) {
    const start = i;
    const c = text[i];
    if (c !== "{" && c !== "[") return start;
    i += 1;
    let found = false;
    for (let index = 0; ; index += 1) {
      skip();
      if (text[i] === "}" || text[i] === "]") break;
      let name: string | number = index;
      if (c === "{") {
        name = skipString();
        skip();
        i += 1;
      }
      skip();
      if (name === key) {
        found = true;
        break;
      }
      skipValue();
      skip();
      if (text[i] === ",") i += 1;
    }
    if (!found) return start;
  }
  return i;
}
