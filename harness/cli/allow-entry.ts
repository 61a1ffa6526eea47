/**
 * One allowlist entry appended to a file, validated, as `parity allow` and `parity review` both
 * add them (issue 40 build point 4: commands import this module, never each other): the default
 * file of a provider, the check that the provider and cell are recorded, and the append itself.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { recordingIdentity } from "../recording/identity.js";
import { AllowlistEntrySchema, plainEntry, readAllowlistFile } from "../compare/allowlist.js";
import { ALLOWLISTS_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { UsageError } from "../errors.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { listRecordings } from "../recording/reader.js";
import { stablePathForNewEntry } from "./allow-migrate.js";

/** The default allowlist file of a provider: `allowlists/<provider>.json`, `allowlists/all.json` for `*`. */
export function defaultAllowlistFile(provider: string): string {
  return path.join(ALLOWLISTS_DIR, `${provider === "*" ? "all" : provider}.json`);
}

/** Root `allow` checks `--provider`/`--cell` against when no `--recordings` is given. */
export const ALLOW_DEFAULT_ROOT = RECORDINGS_ROOT;

/**
 * Refuses an entry for a (provider, cell) that nothing recorded under the roots in effect
 * (`--recordings`, else `recordings/`, resolved against `cwd`): such an entry could only ever
 * be stale (spec 10 §6.4). `*` matches any provider or cell. When no root in effect exists as
 * a directory there is nothing to check against, and the entry is accepted.
 *
 * @throws UsageError `unknown --provider <p>: …` or `unknown --cell <c>: …`, listing what is recorded.
 */
export async function checkRecordedCell(provider: string, cell: string, recordings: string | undefined, cwd: string): Promise<void> {
  const root = path.resolve(cwd, recordings ?? ALLOW_DEFAULT_ROOT);
  if (!existsSync(root) || !statSync(root).isDirectory()) return;
  const shown = recordings ?? ALLOW_DEFAULT_ROOT;
  const all = await listRecordings([root]);
  const ofProvider = all.filter((l) => provider === "*" || l.provider === provider);
  if (ofProvider.length === 0) {
    const providers = [...new Set(all.map((l) => l.provider))];
    throw new UsageError(`unknown --provider ${provider}: nothing of it is recorded under ${shown} (recorded providers: ${providers.join(", ") || "none"})`);
  }
  if (cell !== "*" && !ofProvider.some((l) => l.cell === cell)) {
    const cells = [...new Set(ofProvider.map((l) => l.cell))].sort();
    const of = provider === "*" ? "any provider" : provider;
    throw new UsageError(`unknown --cell ${cell}: no recording of it for ${of} under ${shown} (recorded cells: ${cells.join(", ")})`);
  }
}

/**
 * Validates `raw` as an allowlist entry (the loader's own schema), checks its provider/cell are
 * recorded ({@link checkRecordedCell}), turns a positional path into the stable selector that
 * masks the same values (`stablePathForNewEntry`), checks the file holds no entry for the same
 * path, and appends it to `file` (default `allowlists/<provider>.json`, relative to `cwd`)
 * atomically. `allow` and `parity review` both add entries through it.
 *
 * @returns the entry as written, the absolute file, the entry's index in it, and a note when the
 *   path was rewritten or stays a position.
 * @throws UsageError naming the field (as `--<field>`), an unknown provider/cell, or a duplicate.
 */
export async function appendAllowlistEntry(
  raw: Record<string, unknown>,
  where: { cwd: string; file?: string },
): Promise<{ entry: ReturnType<typeof plainEntry>; file: string; index: number; note?: string }> {
  const parsed = AllowlistEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`--${String(issue?.path[0] ?? "entry")}: ${issue?.message ?? "invalid entry"}`);
  }
  let entry = plainEntry(parsed.data);
  await checkRecordedCell(entry.provider, entry.cell, entry.recordings, where.cwd);
  // An entry for another recordings root names the recording it is for (recording/identity.ts), so
  // it still applies to those recordings reached by another path (a clone not beside the root).
  if (entry.recordings !== undefined && entry.recordingId === undefined && entry.provider !== "*" && entry.cell !== "*") {
    const recordingId = recordingIdentity(path.resolve(where.cwd, entry.recordings, entry.provider, entry.cell));
    if (recordingId !== undefined) entry = plainEntry({ ...entry, recordingId });
  }
  // A position goes stale when events are added before it: write the selector that masks the same values.
  const stable = await stablePathForNewEntry(entry, where.cwd);
  let note: string | undefined;
  if ("path" in stable) {
    note = `${entry.path} is a position; writing the selector that masks the same values: ${stable.path}`;
    entry = { ...entry, path: stable.path };
  } else if (!/^not a positional path/.test("kept" in stable ? stable.kept : stable.problem)) {
    note = `${entry.path} stays a position (${"kept" in stable ? stable.kept : stable.problem})`;
  }
  const file = path.resolve(where.cwd, where.file ?? defaultAllowlistFile(entry.provider));
  const existing = existsSync(file) ? await readAllowlistFile(file, where.cwd) : [];
  // Entries for different recordings roots are different entries (the same cell name, another recording).
  const duplicate = existing.find((e) => e.provider === entry.provider && e.cell === entry.cell && e.recordings === entry.recordings && e.layer === entry.layer && e.path === entry.path);
  if (duplicate) {
    throw new UsageError(`${path.relative(where.cwd, file)} entry ${duplicate.source.index} already allows ${entry.path} for ${entry.provider}/${entry.cell} (${duplicate.pr})`);
  }
  const entries = [...existing.map(plainEntry), entry];
  await writeFileAtomic(file, `${JSON.stringify(entries, null, 2)}\n`);
  return { entry, file, index: entries.length - 1, ...(note !== undefined ? { note } : {}) };
}
