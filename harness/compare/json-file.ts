/**
 * Parsing a whole JSON file (an allowlist, a lane file) with errors a user can act on: one line,
 * `file:line:column: problem` in plain words, never the raw bytes of a binary file. The reader
 * itself is harness/recording/json-text.ts, shared with manifests and cells.
 */
import { parseJsonText } from "../recording/json-text.js";

/**
 * Parses `text` read from `file` as JSON (a leading byte order mark ignored; nesting deeper than
 * `MAX_JSON_DEPTH` refused).
 *
 * @throws InputError `file:line:column: not valid JSON: <where and why>`, `file: not valid JSON:
 *   the file is empty`, `file: binary data (NUL bytes), not JSON`, or `file:line:column: nested
 *   deeper than … levels …`
 */
export function parseJsonFile(text: string, file: string): unknown {
  return parseJsonText(text, file);
}
