import * as z from "zod";
import { InputError } from "../errors.js";
import { isRecord } from "../../stack/protocol/json-value.js";
import { LANE_DIRECTIONS, type Direction } from "./lane-names.js";

// The lanes' names live in lane-names.ts (no zod there: finding recordings needs only them);
// they are exported here too, beside the entry they name.
export { CURRENT_BRIDGE_LANE_FILE, LANE_DIRECTIONS, laneFileName, type Direction } from "./lane-names.js";

/** zod schema of a {@link Direction}. */
export const DirectionSchema = z.enum(LANE_DIRECTIONS);

/**
 * One lane entry (spec 10 §4, "Entry fields"): `ts` (ms since the epoch when the line was
 * recorded), `run` (the recorder's creation time in ms; absent in old entries, read as 0),
 * `seq` (process-wide counter across the four lanes; fractional in a current lane), `dir`,
 * and `line` (the raw line without its terminator). Unknown keys are dropped.
 */
export const LaneEntrySchema = z.object({
  ts: z.number().finite(),
  run: z.number().finite().default(0),
  seq: z.number().finite(),
  dir: DirectionSchema,
  line: z.string(),
});

/** A validated lane entry; `run` is always present (0 for old entries). */
export type LaneEntry = z.output<typeof LaneEntrySchema>;

/** Longest excerpt of bad input an error message may quote, in characters. */
export const MAX_ERROR_EXCERPT_CHARS = 60;

/**
 * A short, single-line, printable excerpt of `text` for an error message: at most
 * {@link MAX_ERROR_EXCERPT_CHARS} characters of the input, JSON-quoted so control
 * characters and newlines cannot break the one-line error format.
 */
export function excerpt(text: string): string {
  const head = text.length > MAX_ERROR_EXCERPT_CHARS ? `${text.slice(0, MAX_ERROR_EXCERPT_CHARS)}…` : text;
  const suffix = text.length > MAX_ERROR_EXCERPT_CHARS ? ` (${text.length} chars)` : "";
  return `${JSON.stringify(head)}${suffix}`;
}

/** Describes the first zod issue as `field \`x\`: message`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid entry";
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(entry)";
  return `field \`${field}\`: ${issue.message}`;
}

/**
 * The entry {@link LaneEntrySchema} would return for `value`, checked by hand, when `value` is a
 * valid entry of the `expected` lane; otherwise undefined, and the caller asks the schema, which
 * names what is wrong. Every line of every lane is read through here (the check reads thousands),
 * and zod's `safeParse` per line was the largest part of reading a recording. Same output as the
 * schema: keys in the schema's order, unknown keys dropped, `run` 0 when absent
 * (`test/recording/lane-entry-fast.test.ts` holds the two together over every committed lane).
 */
export function commonLaneEntry(value: Record<string, unknown>, expected: Direction): LaneEntry | undefined {
  const { ts, run, seq, dir, line } = value;
  if (typeof ts !== "number" || !Number.isFinite(ts) || typeof seq !== "number" || !Number.isFinite(seq)) return undefined;
  if (run !== undefined && (typeof run !== "number" || !Number.isFinite(run))) return undefined;
  if (dir !== expected || typeof line !== "string") return undefined;
  return { ts, run: run ?? 0, seq, dir: expected, line };
}

/**
 * Parses and validates one line of a lane file (spec 10 §4, Reading): a JSON object with a
 * numeric `ts` and `seq`, an optional numeric `run`, a string `line`, and a `dir` equal to
 * `expected` (the lane the file is named for).
 *
 * @param text the line without its terminator
 * @param where `file` (as it should be printed) and 1-based `line` number
 * @throws InputError naming `file:line` when the line is not JSON, not an entry, or in the
 *   wrong lane; the message quotes at most {@link MAX_ERROR_EXCERPT_CHARS} characters of it.
 */
export function parseLaneEntry(text: string, expected: Direction, where: { file: string; line: number }): LaneEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`not a JSON lane entry (truncated or garbled line): ${excerpt(text)}`, where);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError(`a lane entry must be a JSON object, got ${excerpt(text)}`, where);
  }
  const entry = commonLaneEntry(value as Record<string, unknown>, expected);
  if (entry !== undefined) return entry;
  const parsed = LaneEntrySchema.safeParse(value);
  if (!parsed.success) throw new InputError(`invalid lane entry: ${describeIssue(parsed.error)}`, where);
  if (parsed.data.dir !== expected) {
    throw new InputError(`entry has dir "${parsed.data.dir}" but the file is the "${expected}" lane`, where);
  }
  return parsed.data;
}

/** Orders entries by `(run, seq)` (spec 10 §4: exact within a process, chronological across). */
export function compareLaneEntries(a: LaneEntry, b: LaneEntry): number {
  return a.run - b.run || a.seq - b.seq;
}

/**
 * The JSON object one lane line holds (a JSON-RPC message, as a rule), or undefined when the
 * line is not JSON or not a JSON object: lanes keep every line a side wrote, protocol or not
 * (spec 10 §4).
 */
export function parseLineObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
