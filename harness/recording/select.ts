import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { InputError, UsageError } from "../errors.js";
import { listRecordings, type ListOptions, type RecordingLocation } from "./locations.js";

/**
 * Resolves `--recordings` values against `cwd` (docs/design/00-product.md, CLI). With no values, the
 * `defaults` that exist as directories are used (a default that does not exist is skipped);
 * an explicitly named root must exist.
 *
 * @throws UsageError naming an explicit root that is missing or not a directory.
 */
export function resolveRecordingRoots(values: readonly string[], cwd: string, defaults: readonly string[]): string[] {
  if (values.length === 0) {
    return defaults.map((d) => path.resolve(cwd, d)).filter((d) => existsSync(d) && statSync(d).isDirectory());
  }
  return values.map((value) => {
    const dir = path.resolve(cwd, value);
    if (!existsSync(dir)) throw new UsageError(`--recordings ${value}: directory not found (${dir})`);
    if (!statSync(dir).isDirectory()) throw new UsageError(`--recordings ${value}: not a directory (${dir})`);
    return dir;
  });
}

/** Flags that narrow a command to some cells (docs/design/00-product.md, CLI: `--provider`, `--cell`). */
export interface CellFilter {
  provider?: string | undefined;
  cell?: string | undefined;
}

/**
 * Finds the recordings under `roots` (with their cells' accepted alternates when
 * `options.alternates`) and keeps those matching `filter`; `--cell <cell>` keeps the cell and its
 * alternates, `--cell <cell>/alternates/<k>` that alternate alone.
 *
 * @throws UsageError (exit 2) when `--provider` or `--cell` names nothing recorded; the
 *   message lists the valid values.
 * @throws InputError when the same provider/cell is recorded under two roots (which one
 *   is meant would be a guess).
 */
export async function selectRecordings(roots: readonly string[], filter: CellFilter, options: ListOptions = {}): Promise<RecordingLocation[]> {
  const all = await listRecordings([...roots], options);
  const seen = new Map<string, string>();
  for (const location of all) {
    const key = `${location.provider}/${location.cell}`;
    const other = seen.get(key);
    if (other !== undefined) {
      throw new InputError(`${key} is recorded twice (also in ${other}); pass one --recordings root`, { file: location.dir });
    }
    seen.set(key, location.dir);
  }
  const providers = [...new Set(all.map((l) => l.provider))];
  if (filter.provider !== undefined && !providers.includes(filter.provider)) {
    throw new UsageError(`unknown --provider ${filter.provider}; recorded providers: ${providers.join(", ") || "(none)"}`);
  }
  const ofProvider = all.filter((l) => filter.provider === undefined || l.provider === filter.provider);
  // `--cell resume` names the cell with its alternates (`resume/alternates/<k>`, alternates.ts) or one alternate by its name.
  const baseOf = (l: RecordingLocation) => l.alternateOf ?? l.cell;
  const cells = [...new Set(ofProvider.map(baseOf))];
  const named = (l: RecordingLocation) => filter.cell === undefined || baseOf(l) === filter.cell || l.cell === filter.cell;
  if (filter.cell !== undefined && ofProvider.some((l) => l.cell === filter.cell)) return ofProvider.filter(named);
  if (filter.cell !== undefined && !cells.includes(filter.cell)) {
    const scope = filter.provider === undefined ? "" : ` of ${filter.provider}`;
    throw new UsageError(`unknown --cell ${filter.cell}; recorded cells${scope}: ${cells.join(", ") || "(none)"}`);
  }
  return ofProvider.filter(named);
}
