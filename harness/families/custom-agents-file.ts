/**
 * A user's `customAgents` file (spec 30 §2.2) as the record flow reads it: a JSON array of
 * entries, each driven by a bridge family. An entry names its family with `family` (the ACP
 * family when it names none); each family reads only its own entries (family.ts `customAgents`).
 * An entry may also carry a `record` agent profile, which only `parity record` uses.
 */
import { readFile } from "node:fs/promises";
import { InputError } from "../errors.js";
import { withoutCounterparts } from "./pairs.js";

/** The family an entry without `family` belongs to. */
export const DEFAULT_CUSTOM_AGENT_FAMILY = "acp";

/**
 * Reads the file's text.
 * @throws InputError naming the file when it cannot be read.
 */
export async function readCustomAgentsText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new InputError(`cannot read the custom agents file (${(error as NodeJS.ErrnoException).code ?? "error"})`, { file });
  }
}

/**
 * The entries of each family, as the text that family's reader gets: when no entry has a
 * `family` field (or the text is not a JSON array, for the default family's reader to report),
 * the whole text goes unchanged to {@link DEFAULT_CUSTOM_AGENT_FAMILY}; otherwise each family
 * gets a JSON array of its entries, without their `family` field.
 *
 * @throws InputError naming `file` and the entry when `family` is not a string or not one of `known`.
 */
export function customAgentsByFamily(text: string, file: string, known: readonly string[]): Map<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return new Map([[DEFAULT_CUSTOM_AGENT_FAMILY, text]]);
  }
  const named = (entry: unknown): entry is { family: unknown } => typeof entry === "object" && entry !== null && "family" in entry;
  if (!Array.isArray(raw)) return new Map([[DEFAULT_CUSTOM_AGENT_FAMILY, text]]);
  // `counterpart` (pairs.ts) is the harness's field: no family reader sees it.
  const paired = raw.some((entry: unknown) => typeof entry === "object" && entry !== null && "counterpart" in entry);
  if (paired) raw = withoutCounterparts(raw);
  if (!(raw as unknown[]).some(named)) return new Map([[DEFAULT_CUSTOM_AGENT_FAMILY, paired ? JSON.stringify(raw) : text]]);
  const groups = new Map<string, unknown[]>();
  (raw as unknown[]).forEach((entry: unknown, index) => {
    let family = DEFAULT_CUSTOM_AGENT_FAMILY;
    let rest = entry;
    if (named(entry)) {
      const { family: value, ...others } = entry;
      if (typeof value !== "string" || !known.includes(value)) {
        throw new InputError(`entry ${index}: field \`family\`: ${JSON.stringify(value)} is not a bridge family that records custom agents (${known.join(", ")})`, { file });
      }
      family = value;
      rest = others;
    }
    groups.set(family, [...(groups.get(family) ?? []), rest]);
  });
  return new Map([...groups].map(([family, entries]) => [family, JSON.stringify(entries)]));
}

/**
 * The customAgents file's text without the entries' `record` objects (unvalidated), for
 * commands that launch the agents but record nothing (`parity probe`). Text that is not a JSON
 * array is returned unchanged, for the setting's own reader to report.
 */
export function withoutRecordProfiles(text: string): string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return text;
  }
  if (!Array.isArray(raw)) return text;
  return JSON.stringify(
    raw.map((entry: unknown) => {
      if (typeof entry !== "object" || entry === null || !("record" in entry)) return entry;
      const { record: _record, ...rest } = entry as { record: unknown };
      return rest;
    }),
  );
}
