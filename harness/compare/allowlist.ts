/**
 * Allowlist entries: intended lane differences, each tied to the PR that made it
 * (docs/design/00-product.md, "allowlist entry"; spec 10 §6.4). Files are JSON arrays of entries:
 * `allowlists/*.json` in the checkout plus any `--allowlist <file>`.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { globby } from "globby";
import * as z from "zod";
import { ALLOWLISTS_DIR } from "../defaults.js";
import { InputError } from "../errors.js";
import { isInsideResolved } from "../recording/paths.js";
import { recordingIdentity, RECORDING_ID_PATTERN } from "../recording/identity.js";
import { allowlistPathProblem } from "./pointer.js";
import { parseJsonFile } from "./json-file.js";
import { schemaProblem } from "../recording/schema-issues.js";

/** Pattern a `pr` must match: `#` and the PR number. */
export const PR_PATTERN = /^#\d+$/;

/**
 * Which cells an entry is for, shared by every kind of entry (the event entries here, the truth
 * entries of `truth/truth-allowlist.ts`).
 */
export const ENTRY_SCOPE_FIELDS = {
  /** A provider id, or `*` for every provider. */
  provider: z.string().min(1, 'provider must be a provider id or "*"'),
  /** A cell name, or `*` for every cell. */
  cell: z.string().min(1, 'cell must be a cell name or "*"'),
  /**
   * Optional: the recordings root the entry is for (a directory, relative to the project
   * directory `parity check` runs in, e.g. `../shared/recordings`). The entry then applies only
   * to cells recorded under it: the same `provider/cell` name can be a different recording in
   * another root (this repository's fixture `recordings/acp-cursor/turn-tools` vs the real one).
   * Absent: every root.
   */
  recordings: z
    .string()
    .refine((value) => value.trim() !== "", "recordings must name a recordings root directory")
    .optional(),
  /**
   * Optional, with `recordings` and a named cell: the identity of the recording the entry was made
   * for (harness/recording/identity.ts, `sha256:` and 16 hex digits; `parity allow --recordings`
   * writes it). The entry then also applies to that same recording reached by another path (a clone
   * not beside the root, a copy), never to another recording of the same `provider/cell`.
   */
  recordingId: z.string().regex(RECORDING_ID_PATTERN, 'recordingId must look like "sha256:" and 16 hex digits (the recording\'s identity, as parity allow writes it)').optional(),
};

/**
 * What is wrong with an entry's scope as a whole, or undefined: a `recordingId` names one
 * recording, so it needs the root it was found in (`recordings`) and a cell that is not `*`.
 */
export function scopeProblem(entry: { cell: string; recordings?: string; recordingId?: string }): { field: "recordingId"; problem: string } | undefined {
  if (entry.recordingId === undefined) return undefined;
  if (entry.recordings === undefined) return { field: "recordingId", problem: "recordingId names a recording of a recordings root: give recordings too" };
  if (entry.cell === "*") return { field: "recordingId", problem: 'recordingId names one recording: give its cell, not "*"' };
  return undefined;
}

/** The path prefix of a grammar-layer entry: `/grammarDrops/<rule>:<eventType>`, as the gate prints a drop. */
export const GRAMMAR_DROP_PATH = "/grammarDrops/";

/**
 * The host-grammar drop (`rule:eventType`, as `grammarDropKeys` spells it) a grammar-layer entry's
 * path names, or undefined for a path that names none.
 */
export function grammarDropOf(entryPath: string): string | undefined {
  if (!entryPath.startsWith(GRAMMAR_DROP_PATH)) return undefined;
  const key = entryPath.slice(GRAMMAR_DROP_PATH.length);
  return /^[^:\s]+:[^:\s]+$/.test(key) ? key : undefined;
}

/**
 * One allowlist entry (spec 10 §6.4). Unknown keys are rejected. `layer` is `events` (a path into
 * the normalized lane) or `grammar` (a host-grammar drop one side has and the other lacks:
 * `/grammarDrops/<rule>:<eventType>`, e.g. where our bridge no longer makes a drop the recording's
 * older bridge made). The reference's `rows` layer is not reproduced by this product (spec 10 §6.2).
 */
export const AllowlistEntrySchema = z
  .strictObject({
    ...ENTRY_SCOPE_FIELDS,
    layer: z.enum(["events", "grammar"], { error: 'layer must be "events" or "grammar" (the rows layer is not reproduced)' }),
    /** JSON pointer into the normalized lane (`allowlistPathProblem`), or a grammar drop for the grammar layer. */
    path: z.string(),
    pr: z.string().regex(PR_PATTERN, 'pr must look like "#123" (the PR that made the difference)'),
    reason: z.string().refine((value) => value.trim() !== "", "reason must say why the difference is intended"),
  })
  .superRefine((entry, ctx) => {
    const problem =
      entry.layer === "grammar"
        ? grammarDropOf(entry.path) === undefined
          ? `a grammar entry's path is ${GRAMMAR_DROP_PATH}<rule>:<eventType> (as check prints the drop), not ${entry.path}`
          : undefined
        : allowlistPathProblem(entry.path);
    if (problem !== undefined) ctx.addIssue({ code: "custom", path: ["path"], message: problem });
    const scope = scopeProblem(entry);
    if (scope !== undefined) ctx.addIssue({ code: "custom", path: [scope.field], message: scope.problem });
  });

/** A validated allowlist entry. */
export type AllowlistEntry = z.infer<typeof AllowlistEntrySchema>;

/**
 * An entry plus where it was read from: `file` as given (resolved), `index` 0-based in its array;
 * `recordingsRoot` is `recordings` resolved against the project directory (absolute).
 */
export interface LoadedAllowlistEntry extends AllowlistEntry {
  source: { file: string; index: number };
  recordingsRoot?: string;
}

/** The schema of a whole allowlist file: a JSON array (validated entry by entry for better errors). */
const AllowlistFileSchema = z.array(z.unknown());

/**
 * Validates one parsed allowlist value and returns its entries; a `recordings` root resolves
 * against `cwd` (the project directory; default the process's).
 * @throws InputError `"<file>: entry <i>: <problem>"` for the first bad entry, or naming the file
 *   when it is not an array.
 */
export function parseAllowlist(value: unknown, file: string, cwd: string = process.cwd(), text?: string): LoadedAllowlistEntry[] {
  const list = AllowlistFileSchema.safeParse(value);
  if (!list.success) throw new InputError("an allowlist file must be a JSON array of entries", { file });
  return list.data.map((raw, index) => {
    const entry = AllowlistEntrySchema.safeParse(raw);
    if (!entry.success) {
      // In plain words, at the entry's field when the file's text is known (harness/recording/schema-issues.ts).
      const { problem, line, column } = schemaProblem(text ?? "", value, entry.error.issues, "entry", { base: [index], style: "plain" });
      throw new InputError(`entry ${index}: ${problem.replace(/^invalid entry: /, "")}`, text !== undefined ? { file, line, column } : { file });
    }
    const loaded: LoadedAllowlistEntry = { ...entry.data, source: { file, index } };
    if (entry.data.recordings !== undefined) loaded.recordingsRoot = path.resolve(cwd, entry.data.recordings);
    return loaded;
  });
}

/**
 * Reads and validates one allowlist file (`cwd` as in {@link parseAllowlist}).
 * @throws InputError when it cannot be read, is not JSON, or holds a bad entry.
 */
export async function readAllowlistFile(file: string, cwd: string = process.cwd()): Promise<LoadedAllowlistEntry[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(code === "ENOENT" ? "allowlist file not found" : `cannot read allowlist file (${code})`, { file });
  }
  return parseAllowlist(parseJsonFile(text, file), file, cwd, text);
}

/** Options of {@link loadAllowlists}. Paths resolve against `cwd`. */
export interface LoadAllowlistsOptions {
  cwd: string;
  /** Directories whose `*.json` files are allowlists; default `["allowlists"]`. Missing ones are fine. */
  dirs?: string[];
  /** Extra files (`--allowlist`); each must exist. */
  files?: string[];
}

/**
 * Loads every allowlist: `<dir>/*.json` for each dir (sorted, so the order is stable) and then the
 * explicit files. A file named twice is read once.
 * @throws InputError for a missing explicit file or any bad file (naming file and entry index).
 */
export async function loadAllowlists(options: LoadAllowlistsOptions): Promise<LoadedAllowlistEntry[]> {
  const files: string[] = [];
  for (const dir of options.dirs ?? [ALLOWLISTS_DIR]) {
    const found = await globby("*.json", { cwd: path.resolve(options.cwd, dir), absolute: true, onlyFiles: true });
    files.push(...found.sort());
  }
  for (const file of options.files ?? []) files.push(path.resolve(options.cwd, file));
  const entries: LoadedAllowlistEntry[] = [];
  for (const file of [...new Set(files)]) entries.push(...(await readAllowlistFile(file, options.cwd)));
  return entries;
}

/**
 * True when `entry` applies to `(provider, cell)`: each field equal or `*` (spec 10 §6.4). An
 * entry with a `recordings` root applies only when `recordingDir` (the cell's recording
 * directory, absolute) is given and is one of the recordings the entry is for:
 * - it lies under that root (`recordingsRoot` when loaded, else `recordings` resolved against the
 *   process's cwd), symbolic links resolved when the names differ (`isInsideResolved`: a root named
 *   through a link covers the recordings reached by their real path); or
 * - it is the very recording the entry names by `recordingId` (harness/recording/identity.ts),
 *   wherever it is: the same recordings passed by another path (`--recordings /abs/shared/recordings`
 *   from a clone not beside `shared/`, where the entry's root is not there) are the same recordings.
 */
export function entryApplies(entry: AllowlistEntry, provider: string, cell: string, recordingDir?: string): boolean {
  return appliesTo(provider, cell, recordingDir)(entry);
}

/**
 * {@link entryApplies} for one cell as a predicate over entries: the recording's identity is read
 * at most once however many entries ask for it (`input.allowlist.filter(appliesTo(…))`).
 */
export function appliesTo(provider: string, cell: string, recordingDir?: string): (entry: AllowlistEntry) => boolean {
  let identity: { id: string | undefined } | undefined;
  return (entry) => {
    if (!((entry.provider === "*" || entry.provider === provider) && (entry.cell === "*" || entry.cell === cell))) return false;
    if (entry.recordings === undefined) return true;
    if (recordingDir === undefined) return false;
    if (isInsideResolved(entryRecordingsRoot(entry)!, path.resolve(recordingDir))) return true;
    if (entry.recordingId === undefined) return false;
    identity ??= { id: recordingIdentity(recordingDir) };
    return identity.id === entry.recordingId;
  };
}

/** The recordings root an entry names, absolute (`recordingsRoot` when loaded, else resolved against the process's cwd); undefined without `recordings`. */
export function entryRecordingsRoot(entry: Pick<AllowlistEntry, "recordings">): string | undefined {
  if (entry.recordings === undefined) return undefined;
  return (entry as Partial<LoadedAllowlistEntry>).recordingsRoot ?? path.resolve(entry.recordings);
}

/**
 * The fields of an entry in their canonical order (`recordings` only when set), without
 * `source` or `recordingsRoot` (for output and files).
 */
export function plainEntry(entry: AllowlistEntry): AllowlistEntry {
  return {
    provider: entry.provider,
    cell: entry.cell,
    ...(entry.recordings !== undefined ? { recordings: entry.recordings } : {}),
    ...(entry.recordingId !== undefined ? { recordingId: entry.recordingId } : {}),
    layer: entry.layer,
    path: entry.path,
    pr: entry.pr,
    reason: entry.reason,
  };
}

/**
 * The entries for one cell tied to one recordings root that did not apply to the cell's recording
 * (`--reporter json`: each cell's `unappliedEntries`, schema 7), with the sentence the text
 * report says.
 */
export interface UnappliedRootEntries {
  /** The root as the entries write it (`../shared/recordings`). */
  recordings: string;
  /** The root resolved (absolute), and whether it is there. */
  root: string;
  rootThere: boolean;
  /** How many entries, and how many of them name a recording (`recordingId`: all another one than this). */
  entries: number;
  identifying: number;
  /** This recording's identity (harness/recording/identity.ts), null when it has no lane it covers. */
  recordingId: string | null;
  /** Why they did not apply, one sentence: `2 allowlist entries for acp-cursor/resume did not apply: …`. */
  note: string;
}

/**
 * Why the entries for `(provider, cell)` tied to a recordings root did not apply to the recording
 * in `recordingDir`, one group per root (none when every such entry applied, or there is none):
 * the root each names (as written, and resolved, saying when it is not there) and whether they
 * identify another recording or none. For a failing cell's report: an entry that silently does
 * not apply reads as a regression.
 * @param recordingDir the cell's recording (absolute)
 */
export function unappliedRootEntryGroups(entries: readonly AllowlistEntry[], provider: string, cell: string, recordingDir: string): UnappliedRootEntries[] {
  const byRoot = new Map<string, { written: string; count: number; identified: number }>();
  for (const entry of entries) {
    if (entry.recordings === undefined || !entryApplies({ ...entry, recordings: undefined }, provider, cell) || entryApplies(entry, provider, cell, recordingDir)) continue;
    const root = entryRecordingsRoot(entry)!;
    const seen = byRoot.get(root) ?? { written: entry.recordings, count: 0, identified: 0 };
    seen.count += 1;
    if (entry.recordingId !== undefined) seen.identified += 1;
    byRoot.set(root, seen);
  }
  if (byRoot.size === 0) return [];
  const id = recordingIdentity(recordingDir);
  return [...byRoot].map(([root, { written, count, identified }]) => {
    const there = existsSync(root);
    const where = there ? `${written} (${root})` : `${written}, which is not there (${root})`;
    const which =
      identified === count
        ? `they identify another recording than this one (${id ?? "no recorded lane"})`
        : identified === 0
          ? "they name no recording (recordingId), so only a recording under that root is theirs"
          : `${identified} identify another recording than this one (${id ?? "no recorded lane"}), ${count - identified} name none (recordingId)`;
    const note = `${count} allowlist ${count === 1 ? "entry" : "entries"} for ${provider}/${cell} did not apply: ${count === 1 ? "it is" : "they are"} for the recordings under ${where}; ${which}`;
    return { recordings: written, root, rootThere: there, entries: count, identifying: identified, recordingId: id ?? null, note };
  });
}
