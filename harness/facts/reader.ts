/**
 * Reading a facts file (schema.ts): one clear line for anything wrong with it — the file, the
 * JSON line:column of a syntax error, or the field (with its line) and the problem.
 */
import { readFile } from "node:fs/promises";
import { InputError, IoError } from "../errors.js";
import { jsonSyntaxError, offsetOfPath, positionAt } from "./json-position.js";
import { CellFactsSchema, type CellFacts } from "./schema.js";

/**
 * A facts file that does not read (exit 2): `<file>:<line>:<column>: <problem>` (position
 * omitted when it does not apply). Code `E_FACTS`.
 */
export class FactsFileError extends InputError {
  readonly column: number | undefined;

  constructor(file: string, problem: string, where: { line?: number; column?: number } = {}) {
    super(problem, { file, ...(where.line !== undefined ? { line: where.line } : {}), code: "E_FACTS" });
    this.column = where.column;
    if (where.line !== undefined && where.column !== undefined) this.message = `${file}:${where.line}:${where.column}: ${problem}`;
  }
}

/** A zod issue path as the field name users read: `steps.0.exit.code`. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(facts)" : path.map(String).join(".");
}

/**
 * Parses and validates a facts file's text. `file` names the file in errors.
 * @returns the facts, fields in schema order
 * @throws FactsFileError `<file>:<line>:<col>: not valid JSON: <problem>`, or
 *   `<file>:<line>:<col>: invalid facts: field \`steps.0.exit\`: <problem>` (the first offending field, at its value)
 */
export function parseFactsText(text: string, file: string): CellFacts {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const at = jsonSyntaxError(text, error);
    throw new FactsFileError(file, `not valid JSON: ${at.problem}`, at);
  }
  const parsed = CellFactsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = positionAt(text, offsetOfPath(text, issue.path as (string | number)[]));
  const hint =
    value !== null && typeof value === "object" && "facts" in value && (value as { facts: unknown }).facts !== 1 && issue.path[0] === "facts"
      ? " (this harness reads facts version 1; run `parity facts` to rewrite it)"
      : "";
  throw new FactsFileError(file, `invalid facts: field \`${fieldName(issue.path)}\`: ${issue.message}${hint}`, where);
}

/**
 * Reads and validates a facts file.
 * @throws FactsFileError (exit 2) for a missing file (`… not found; run \`parity facts --cell X\``
 *   is the caller's to add), bad JSON or a bad field; IoError (exit 5) for a machine's read failure.
 */
export async function readFactsFile(file: string): Promise<CellFacts> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new FactsFileError(file, "no facts file");
    if (code === "EISDIR") throw new FactsFileError(file, "is a directory, not a facts file");
    throw new IoError(file, code ?? "EIO", { cause: error });
  }
  return parseFactsText(text, file);
}
