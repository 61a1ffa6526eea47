/**
 * Which facts files a cells root has (one per `cell.json`, one per provider variant), which one
 * judges a provider's lane, and whether each is fresh: its `source` equals the hash of the cell
 * as it is now (source.ts). Zod-free and cheap — no command runs, a few small files are read —
 * so the gate may ask it of every cell it checks; facts are only ever computed by
 * `parity facts` and `parity record`, never during `check`.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";
import { factsFilePath, factsSource } from "./source.js";

/** One facts file of a cells root: the cell and variant it is of (null: `cell.json`'s). */
export interface FactsTarget {
  cell: string;
  variant: string | null;
}

/** The `parity facts` command that recomputes the facts of `cell` (all its variants with it). */
export function refreshCommand(cell: string): string {
  return `parity facts --cell ${cell}`;
}

/** Cell directories under `cellsRoot` (a `cell.json` or a `providers/*.json`), sorted. */
async function cellDirs(cellsRoot: string): Promise<string[]> {
  if (!existsSync(cellsRoot)) return [];
  const entries = await readdir(cellsRoot, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && (existsSync(path.join(cellsRoot, e.name, "cell.json")) || existsSync(path.join(cellsRoot, e.name, "providers"))))
    .map((e) => e.name)
    .sort();
}

/** The providers with a variant of `cell` (`providers/<provider>.json`), sorted. */
export async function variantsOfCell(cellsRoot: string, cell: string): Promise<string[]> {
  const dir = path.join(cellsRoot, cell, "providers");
  if (!existsSync(dir)) return [];
  return (await readdir(dir))
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/**
 * Every facts file `cellsRoot` should hold, cell by cell: `cell.json`'s (when it exists), then
 * each variant's. `cell` keeps one cell's; `provider` keeps, per cell, the one that judges that
 * provider's lanes ({@link factsTargetFor}).
 */
export async function listFactsTargets(cellsRoot: string, filter: { cell?: string; provider?: string } = {}): Promise<FactsTarget[]> {
  const out: FactsTarget[] = [];
  for (const cell of await cellDirs(cellsRoot)) {
    if (filter.cell !== undefined && cell !== filter.cell) continue;
    if (filter.provider !== undefined) {
      const target = factsTargetFor(cellsRoot, cell, filter.provider);
      if (target !== null) out.push(target);
      continue;
    }
    if (existsSync(path.join(cellsRoot, cell, "cell.json"))) out.push({ cell, variant: null });
    for (const variant of await variantsOfCell(cellsRoot, cell)) out.push({ cell, variant });
  }
  return out;
}

/**
 * The facts that judge `provider`'s lane of `cell`: its variant's (`facts/<provider>.json`) when
 * the cell has `providers/<provider>.json`, else `cell.json`'s (`facts.json`); null when the
 * cell has neither for it.
 */
export function factsTargetFor(cellsRoot: string, cell: string, provider: string): FactsTarget | null {
  if (existsSync(path.join(cellsRoot, cell, "providers", `${provider}.json`))) return { cell, variant: provider };
  return existsSync(path.join(cellsRoot, cell, "cell.json")) ? { cell, variant: null } : null;
}

/** A facts file's freshness: `fresh`, `missing`, `stale` (its source differs) or `unreadable` (no JSON object with a source). */
export interface FactsFreshness extends FactsTarget {
  /** The facts file (absolute when `cellsRoot` is). */
  file: string;
  status: "fresh" | "missing" | "stale" | "unreadable";
  /** The command that writes it anew. */
  command: string;
}

/**
 * Whether the facts file of (cell, variant) under `cellsRoot` is fresh (see the module doc).
 * Validating the rest of the file is the reader's (reader.ts).
 * @throws InputError naming the cell or variant file when the cell cannot be read
 */
export async function checkFactsFresh(cellsRoot: string, cell: string, variant: string | null): Promise<FactsFreshness> {
  const file = factsFilePath(cellsRoot, cell, variant);
  const base = { cell, variant, file, command: refreshCommand(cell) };
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ...base, status: "missing" };
    throw error;
  }
  let recorded: unknown;
  try {
    recorded = (JSON.parse(text) as { source?: unknown }).source;
  } catch {
    return { ...base, status: "unreadable" };
  }
  if (typeof recorded !== "string") return { ...base, status: "unreadable" };
  return { ...base, status: recorded === (await factsSource(cellsRoot, cell, variant)) ? "fresh" : "stale" };
}

/** What each not-fresh status says, for the one line of {@link FactsStaleError}. */
const WHY: Record<Exclude<FactsFreshness["status"], "fresh">, string> = {
  missing: "no facts file",
  stale: "stale facts: the cell (its definition, variant or workspace) changed since they were computed",
  unreadable: "facts file without a readable source",
};

/** The one line of a not-fresh facts file: `<file>: <why>; run \`parity facts --cell X\``. */
export function describeFreshness(f: FactsFreshness, relative: (file: string) => string = (x) => x): string {
  return f.status === "fresh" ? `${relative(f.file)}: fresh` : `${relative(f.file)}: ${WHY[f.status]}; run \`${f.command}\``;
}

/** A facts file that is missing, stale or unreadable (exit 2), in one line naming it and the command that refreshes it. Code `E_FACTS_STALE`. */
export class FactsStaleError extends InputError {
  readonly freshness: FactsFreshness;

  constructor(freshness: FactsFreshness) {
    super(`${WHY[freshness.status as Exclude<FactsFreshness["status"], "fresh">]}; run \`${freshness.command}\``, { file: freshness.file, code: "E_FACTS_STALE" });
    this.freshness = freshness;
  }
}

/**
 * {@link checkFactsFresh}, throwing when the facts are not fresh: what a gate calls before it
 * judges a lane against them.
 * @throws FactsStaleError (exit 2) naming the file and `parity facts --cell X`
 */
export async function requireFreshFacts(cellsRoot: string, cell: string, variant: string | null): Promise<FactsFreshness> {
  const freshness = await checkFactsFresh(cellsRoot, cell, variant);
  if (freshness.status !== "fresh") throw new FactsStaleError(freshness);
  return freshness;
}
