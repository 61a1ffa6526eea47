/**
 * Pair entries (issue 39): budgets of one pair's known differences for `parity compare`, each
 * tied to a PR with a reason, e.g.
 *
 *     { "pair": "codex/acp-codex", "class": "usage", "cell": "*", "kind": "lost",
 *       "pr": "#39", "reason": "codex-acp 0.16.0 sends no token breakdown" }
 *
 * An entry masks the differences of its pair and class (and `kind`, `field` when given) in the
 * cells it names, and only those an adapter causes: a difference our bridge causes is fixed,
 * never budgeted. Entries live in `allowlists/pairs/*.json`, their own files (as truth entries
 * live in `allowlists/truth/`), so `parity check`, `parity allow` and `allow --prune`, which read
 * and rewrite the event entries of `allowlists/*.json`, never see them.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { globby } from "globby";
import * as z from "zod";
import { InputError } from "../../errors.js";
import { PR_PATTERN } from "../allowlist.js";
import { parseJsonFile } from "../json-file.js";
import { DIFFERENCE_CLASSES } from "./pair-diff.js";

/** Directory of the pair entries, relative to the project (beside `allowlists/truth/`). */
export const PAIR_ALLOWLIST_DIR = "allowlists/pairs";

/** One pair entry. Unknown keys are rejected. */
export const PairEntrySchema = z.strictObject({
  /** `<native>/<adapter>`, as `parity compare` names the pair. */
  pair: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'pair must be "<native>/<adapter>"'),
  class: z.enum(DIFFERENCE_CLASSES, { error: `class must be one of ${DIFFERENCE_CLASSES.join(", ")}` }),
  /** A cell name, or `*` for every cell both providers have. */
  cell: z.string().min(1, 'cell must be a cell name or "*"'),
  /** Optional: only differences of this kind. */
  kind: z.enum(["lost", "changed", "invented"], { error: "kind must be lost, changed or invented" }).optional(),
  /** Optional: only differences of this field (`cwd`, `inputTokens`, `change.hunks`, `item`). */
  field: z.string().min(1, "field must name a compared field").optional(),
  pr: z.string().regex(PR_PATTERN, 'pr must look like "#123" (the PR that made the difference known)'),
  reason: z.string().refine((value) => value.trim() !== "", "reason must say why the adapter's difference is allowed"),
});

/** A validated pair entry plus where it was read from (`index` 0-based in its file's array). */
export type PairEntry = z.infer<typeof PairEntrySchema> & { source: { file: string; index: number } };

/**
 * Validates a parsed pair allowlist file.
 * @throws InputError `"<file>: entry <i>: <field>: <problem>"` for the first bad entry, or naming
 *   the file when it is not an array.
 */
export function parsePairAllowlist(value: unknown, file: string): PairEntry[] {
  if (!Array.isArray(value)) throw new InputError("a pair allowlist file must be a JSON array of entries", { file });
  return value.map((raw, index) => {
    const entry = PairEntrySchema.safeParse(raw);
    if (!entry.success) {
      const issue = entry.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      throw new InputError(`entry ${index}: ${where}${issue?.message ?? "invalid entry"}`, { file });
    }
    return { ...entry.data, source: { file, index } };
  });
}

/**
 * Loads `<cwd>/allowlists/pairs/*.json` (sorted; none is fine) and then `files` (each must
 * exist), a file named twice read once.
 * @throws InputError for a missing explicit file, or a file that is not JSON or holds a bad entry.
 */
export async function loadPairAllowlists(options: { cwd: string; dir?: string; files?: readonly string[] }): Promise<PairEntry[]> {
  const found = (await globby("*.json", { cwd: path.resolve(options.cwd, options.dir ?? PAIR_ALLOWLIST_DIR), absolute: true, onlyFiles: true })).sort();
  const files = [...new Set([...found, ...(options.files ?? []).map((file) => path.resolve(options.cwd, file))])];
  const entries: PairEntry[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new InputError(code === "ENOENT" ? "pair allowlist file not found" : `cannot read pair allowlist file (${code})`, { file });
    }
    entries.push(...parsePairAllowlist(parseJsonFile(text, file), file));
  }
  return entries;
}
