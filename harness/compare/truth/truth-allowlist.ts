/**
 * Known limits of agents, allowlisted like differences (issue 37, build point 3): an entry of
 * layer `truth` masks the untruths its fact selector names for its provider and cell, tied to a
 * PR with a reason. Only what the agent or its adapter lost or made up can be masked: an untruth
 * whose cause is our bridge is fixed, never allowed, so an entry never masks one (and an entry
 * written for one is stale).
 *
 * Entries live in `allowlists/truth/*.json` (their own files, so `parity allow` and
 * `allow --prune`, which rewrite the event entries' files, never touch them):
 *
 *     { "provider": "acp-gemini", "cell": "*", "layer": "truth", "fact": "command.exit",
 *       "pr": "#37", "reason": "gemini's ACP adapter reports no exit code" }
 *
 * `fact` is a selector `<kind>[#n].<field>`: kind `command`, `read`, `edit`, `write`, `turn` or `*`;
 * `#n` the n-th step of that kind in the script (1-based; `+n` an n-th item no step made); field
 * `output`, `exit`, `approval`, `item`, `path`, `content`, `created`, `diff`, `applied`, `end`,
 * `error` or `*`. An entry is stale when it masks nothing over the whole selection of cells it
 * applies to and whose facts have a fact it selects.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { globby } from "globby";
import * as z from "zod";
import { InputError } from "../../errors.js";
import { appliesTo, ENTRY_SCOPE_FIELDS, PR_PATTERN, scopeProblem } from "../allowlist.js";
import { parseJsonFile } from "../json-file.js";
import type { JudgedFact, TruthFinding } from "./judge.js";

/** Directory of the truth entries, relative to the project (beside the event entries of `allowlists/`). */
export const TRUTH_ALLOWLIST_DIR = "allowlists/truth";

/** `<kind>[#n|+n].<field>` (see the module comment). */
export const FACT_SELECTOR = /^(command|read|edit|write|turn|\*)([#+]\d+)?\.([a-z]+|\*)$/;

/** One truth allowlist entry. Unknown keys are rejected. */
export const TruthEntrySchema = z.strictObject({
  ...ENTRY_SCOPE_FIELDS,
  layer: z.literal("truth", { error: 'layer must be "truth" in allowlists/truth/' }),
  fact: z.string().regex(FACT_SELECTOR, "fact must be a selector <kind>[#n].<field>, e.g. command.exit or read#1.content"),
  pr: z.string().regex(PR_PATTERN, 'pr must look like "#123" (the PR that made the limit known)'),
  reason: z.string().refine((value) => value.trim() !== "", "reason must say why the agent's limit is allowed"),
});

/** A validated truth entry. */
export type TruthEntry = z.infer<typeof TruthEntrySchema>;

/** A truth entry with where it was read from (`recordingsRoot`: `recordings` resolved against the project). */
export interface LoadedTruthEntry extends TruthEntry {
  source: { file: string; index: number };
  recordingsRoot?: string;
}

/**
 * Validates a parsed truth allowlist file.
 * @throws InputError `"<file>: entry <i>: <problem>"` for the first bad entry, or naming the file when it is not an array.
 */
export function parseTruthAllowlist(value: unknown, file: string, cwd: string): LoadedTruthEntry[] {
  if (!Array.isArray(value)) throw new InputError("a truth allowlist file must be a JSON array of entries", { file });
  return value.map((raw, index) => {
    const entry = TruthEntrySchema.safeParse(raw);
    if (!entry.success) {
      const issue = entry.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      throw new InputError(`entry ${index}: ${where}${issue?.message ?? "invalid entry"}`, { file });
    }
    const scope = scopeProblem(entry.data);
    if (scope !== undefined) throw new InputError(`entry ${index}: ${scope.field}: ${scope.problem}`, { file });
    return { ...entry.data, source: { file, index }, ...(entry.data.recordings !== undefined ? { recordingsRoot: path.resolve(cwd, entry.data.recordings) } : {}) };
  });
}

/**
 * Loads `<cwd>/allowlists/truth/*.json` (sorted; none is fine).
 * @throws InputError for a file that is not JSON or holds a bad entry.
 */
export async function loadTruthAllowlist(cwd: string, dir: string = TRUTH_ALLOWLIST_DIR): Promise<LoadedTruthEntry[]> {
  const files = (await globby("*.json", { cwd: path.resolve(cwd, dir), absolute: true, onlyFiles: true })).sort();
  const out: LoadedTruthEntry[] = [];
  for (const file of files) out.push(...parseTruthAllowlist(parseJsonFile(await readFile(file, "utf8"), file), file, cwd));
  return out;
}

/** True when the selector `selector` names the fact `fact` (`command#1.exit`, `command+1.item`). */
export function factMatches(selector: string, fact: string): boolean {
  const s = FACT_SELECTOR.exec(selector);
  const f = FACT_SELECTOR.exec(fact);
  if (s === null || f === null) return false;
  if (s[1] !== "*" && s[1] !== f[1]) return false;
  if (s[2] !== undefined && s[2] !== f[2]) return false;
  return s[3] === "*" || s[3] === f[3];
}

/** The findings of one cell after masking: those left, and per applying entry how many it masked and whether the cell has a fact it selects. */
export interface MaskedTruth {
  findings: TruthFinding[];
  masked: TruthFinding[];
  entries: Array<{ entry: LoadedTruthEntry; masked: number; selects: boolean }>;
}

/**
 * Masks a cell's findings with the entries that apply to it (`appliesTo`, as event entries
 * apply). A finding caused by the bridge is never masked.
 */
export function maskTruth(
  findings: readonly TruthFinding[],
  judged: readonly JudgedFact[],
  entries: readonly LoadedTruthEntry[],
  at: { provider: string; cell: string; recordingDir?: string },
): MaskedTruth {
  const applies = appliesTo(at.provider, at.cell, at.recordingDir);
  const applying = entries.filter((e) => applies({ ...e, layer: "events", path: "/*/x" }));
  const counts = new Map<LoadedTruthEntry, number>(applying.map((e) => [e, 0]));
  const kept: TruthFinding[] = [];
  const masked: TruthFinding[] = [];
  for (const finding of findings) {
    const entry = finding.cause === "bridge" ? undefined : applying.find((e) => factMatches(e.fact, finding.fact));
    if (entry === undefined) kept.push(finding);
    else {
      masked.push(finding);
      counts.set(entry, counts.get(entry)! + 1);
    }
  }
  return {
    findings: kept,
    masked,
    entries: applying.map((entry) => ({ entry, masked: counts.get(entry)!, selects: judged.some((j) => factMatches(entry.fact, j.fact)) })),
  };
}

/**
 * Entries stale over a whole run: each entry that applied to at least one judged cell having a
 * fact it selects, and masked nothing in any of them.
 */
export function staleTruthEntries(perCell: ReadonlyArray<MaskedTruth["entries"]>): LoadedTruthEntry[] {
  const seen = new Map<LoadedTruthEntry, { selects: boolean; masked: number }>();
  for (const cell of perCell) {
    for (const { entry, masked, selects } of cell) {
      const sum = seen.get(entry) ?? { selects: false, masked: 0 };
      seen.set(entry, { selects: sum.selects || selects, masked: sum.masked + masked });
    }
  }
  return [...seen].filter(([, s]) => s.selects && s.masked === 0).map(([entry]) => entry);
}

/** An entry's fields in their canonical order, without its source (for output and files). */
export function plainTruthEntry(entry: TruthEntry): TruthEntry {
  return {
    provider: entry.provider,
    cell: entry.cell,
    ...(entry.recordings !== undefined ? { recordings: entry.recordings } : {}),
    ...(entry.recordingId !== undefined ? { recordingId: entry.recordingId } : {}),
    layer: entry.layer,
    fact: entry.fact,
    pr: entry.pr,
    reason: entry.reason,
  };
}
