/**
 * Parsing a whole JSON file (an allowlist, a lane file) with errors a user can act on: one line,
 * `file:line: problem`, never the raw bytes of a binary file.
 */
import { InputError } from "../errors.js";

/**
 * Parses `text` read from `file` as JSON.
 *
 * @throws InputError `file:line: not valid JSON (…)` with the 1-based line of the syntax error
 *   (line omitted for empty input), or `file: binary data (NUL bytes), not JSON`. Control and
 *   replacement characters of the parser's message are shown as `?`.
 */
export function parseJsonFile(text: string, file: string): unknown {
  if (text.includes("\u0000")) throw new InputError("binary data (NUL bytes), not JSON", { file });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = (error as Error).message;
    const reason = message.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, "?");
    if (text.trim() === "") throw new InputError("not valid JSON (the file is empty)", { file });
    const position = /at position (\d+)/.exec(message);
    const line = position ? lineOf(text, Number(position[1])) : undefined;
    throw new InputError(`not valid JSON (${reason})`, line === undefined ? { file } : { file, line });
  }
}

/** The 1-based line holding character `offset` of `text`. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
