/**
 * What a facts file was computed from, as one hash (the `source` field): the resolved cell
 * definition (`cell.json`, with a provider variant's fields replacing its own, as
 * runtime/cells.ts `loadCell` merges them) and every file of the cell's workspace fixture (path
 * and bytes). When the hash of the cell as it is now differs from the file's, the facts are
 * stale. Zod-free and cheap (a few small files read and hashed), so a gate can ask it of every
 * cell it checks.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";
import { FACTS_VERSION } from "./facts-version.js";

/** File name of a cell's facts inside `cells/<cell>/` (the cell as `cell.json` defines it). */
export const FACTS_FILE = "facts.json";
/** Directory of a cell's per-provider facts inside `cells/<cell>/` (`<provider>.json`, one per variant). */
export const FACTS_VARIANT_DIR = "facts";

/** `cells/<cell>/facts.json` (variant null) or `cells/<cell>/facts/<provider>.json`. */
export function factsFilePath(cellsRoot: string, cell: string, variant: string | null): string {
  return variant === null ? path.join(cellsRoot, cell, FACTS_FILE) : path.join(cellsRoot, cell, FACTS_VARIANT_DIR, `${variant}.json`);
}

/** One workspace file as hashed: its path relative to the workspace (`/`-separated) and bytes (a symlink: its target's text). */
export interface SourceFile {
  path: string;
  bytes: Uint8Array;
}

/** The inputs of a facts file: the resolved definition (raw JSON) and the workspace files, sorted by path. */
export interface CellSource {
  definition: Record<string, unknown>;
  files: SourceFile[];
}

/** `value` as JSON with every object's keys sorted, so key order and whitespace never change a hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The `source` hash of a cell's facts: `sha256:<64 hex>` over the facts version, the canonical
 * JSON of `definition` and each file's path, length and bytes in path order.
 */
export function hashFactsSource(source: CellSource): string {
  const hash = createHash("sha256");
  hash.update(`parity-facts-source ${FACTS_VERSION}\n`);
  hash.update(`definition ${canonicalJson(source.definition)}\n`);
  for (const file of [...source.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`file ${JSON.stringify(file.path)} ${file.bytes.length}\n`);
    hash.update(file.bytes);
    hash.update("\n");
  }
  return `sha256:${hash.digest("hex")}`;
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined) throw error;
    throw new InputError(`not valid JSON: ${(error as Error).message}`, { file });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new InputError("expected a JSON object", { file });
  return value as Record<string, unknown>;
}

/** Every file below `dir` (relative `/`-separated paths with bytes), sorted; [] when `dir` does not exist. */
export async function workspaceFiles(dir: string): Promise<SourceFile[]> {
  if (!existsSync(dir)) return [];
  const out: SourceFile[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const full = path.join(dir, relPath);
      if (entry.isDirectory()) await walk(relPath);
      else if (entry.isSymbolicLink()) out.push({ path: relPath, bytes: Buffer.from(`symlink ${await readlink(full)}`) });
      else out.push({ path: relPath, bytes: await readFile(full) });
    }
  };
  await walk("");
  return out;
}

/**
 * The inputs of a cell's facts as they are now: `cells/<cell>/cell.json` (absent for a cell of
 * one provider only) with `providers/<variant>.json`'s fields replacing its own, and
 * `cells/<cell>/workspace/`.
 * @throws InputError naming the file when neither exists or one is not a JSON object.
 */
export async function readCellSource(cellsRoot: string, cell: string, variant: string | null): Promise<CellSource> {
  const cellFile = path.join(cellsRoot, cell, "cell.json");
  const variantFile = variant === null ? null : path.join(cellsRoot, cell, "providers", `${variant}.json`);
  if (variantFile !== null && !existsSync(variantFile)) throw new InputError(`no variant of cell ${cell} for ${variant}`, { file: variantFile });
  if (variantFile === null && !existsSync(cellFile)) throw new InputError(`no cell definition`, { file: cellFile });
  const base = existsSync(cellFile) ? await readJsonObject(cellFile) : {};
  const definition = variantFile === null ? base : { ...base, ...(await readJsonObject(variantFile)) };
  return { definition, files: await workspaceFiles(path.join(cellsRoot, cell, "workspace")) };
}

/** The `source` a facts file of (cell, variant) must carry now ({@link hashFactsSource} of {@link readCellSource}). */
export async function factsSource(cellsRoot: string, cell: string, variant: string | null): Promise<string> {
  return hashFactsSource(await readCellSource(cellsRoot, cell, variant));
}
