/**
 * Where recordings are: the `<root>/<provider>/<cell>/` directories under the recordings roots
 * (spec 10 §4, Layout), found by their lane files' names alone. Nothing here reads a lane or a
 * manifest, and nothing loads a schema: `parity check` selects its cells with this and spawns its
 * bridges before zod is loaded (issue 25; `test/cli/check-spawn-early.test.ts`). Reading and
 * validating a recording is `reader.ts`.
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../errors.js";
import { acceptedAlternateNumbers, ALTERNATES_DIR, alternateCellName } from "./alternates.js";
import { LANE_DIRECTIONS, laneFileName } from "./lane-names.js";

/** What a directory entry is, following a symbolic link (a recordings tree may be linked in). */
export async function kindOf(dir: string, dirent: Dirent): Promise<"file" | "dir" | "other"> {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "dir";
  if (!dirent.isSymbolicLink()) return "other";
  const target = await stat(join(dir, dirent.name)).catch(() => undefined);
  return target?.isFile() ? "file" : target?.isDirectory() ? "dir" : "other";
}

/**
 * The entries of directory `dir`.
 * @throws InputError naming `dir`: directory not found, not a directory, or cannot read (errno code)
 */
export async function listDir(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (thrown) {
    const code = (thrown as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "directory not found" : code === "ENOTDIR" ? "not a directory" : `cannot read (${code ?? String(thrown)})`;
    throw new InputError(reason, { file: dir });
  }
}

/** One recording directory found by {@link listRecordings}. */
export interface RecordingLocation {
  provider: string;
  cell: string;
  /** `<root>/<provider>/<cell>`; for an alternate, `<root>/<provider>/<cell>/alternates/<k>` */
  dir: string;
  /**
   * Set for an alternate path of a cell (alternates.ts): the cell it is an alternate of; `cell`
   * is then `<cell>/alternates/<k>` and `alternate` is `k`.
   */
  alternateOf?: string;
  alternate?: number;
}

/** What {@link listRecordings} lists besides the cells' own recordings. */
export interface ListOptions {
  /** Also each cell's accepted alternates (`<cell>/alternates/<k>/`, alternates.ts), after the cell. Default false. */
  alternates?: boolean;
}

/**
 * Finds the `<root>/<provider>/<cell>/` directories that hold at least one of the four lane
 * files (spec 10 §4, `listRecordedCells`), sorted by provider, cell, then directory. Names
 * starting with `.` are skipped; symbolic links are followed. Nothing is validated here; use
 * `readRecording` (reader.ts).
 *
 * @throws InputError naming a root that does not exist or is not a directory.
 */
export async function listRecordings(roots: string[], options: ListOptions = {}): Promise<RecordingLocation[]> {
  const found: RecordingLocation[] = [];
  const laneFiles = new Set(LANE_DIRECTIONS.map(laneFileName));
  for (const root of roots) {
    for (const providerDirent of await listDir(root)) {
      if (providerDirent.name.startsWith(".") || (await kindOf(root, providerDirent)) !== "dir") continue;
      const providerDir = join(root, providerDirent.name);
      for (const cellDirent of await listDir(providerDir)) {
        if (cellDirent.name.startsWith(".") || (await kindOf(providerDir, cellDirent)) !== "dir") continue;
        const cellDir = join(providerDir, cellDirent.name);
        const files = (await listDir(cellDir)).filter((f) => laneFiles.has(f.name));
        const kinds = await Promise.all(files.map((f) => kindOf(cellDir, f)));
        if (kinds.includes("file")) {
          found.push({ provider: providerDirent.name, cell: cellDirent.name, dir: cellDir });
          if (options.alternates === true) found.push(...(await alternatesOf(providerDirent.name, cellDirent.name, cellDir, laneFiles)));
        }
      }
    }
  }
  const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  // An alternate sorts right after its cell, by number (`resume`, `resume/alternates/2`, …, `resume/alternates/10`).
  const base = (l: RecordingLocation) => l.alternateOf ?? l.cell;
  return found.sort((a, b) => byText(a.provider, b.provider) || byText(base(a), base(b)) || (a.alternate ?? 1) - (b.alternate ?? 1) || byText(a.dir, b.dir));
}

/** The accepted alternates of one cell that hold a lane file, as locations (alternates.ts). */
async function alternatesOf(provider: string, cell: string, cellDir: string, laneFiles: ReadonlySet<string>): Promise<RecordingLocation[]> {
  const out: RecordingLocation[] = [];
  for (const k of await acceptedAlternateNumbers(cellDir)) {
    const dir = join(cellDir, ALTERNATES_DIR, String(k));
    const files = (await listDir(dir)).filter((f) => laneFiles.has(f.name));
    if ((await Promise.all(files.map((f) => kindOf(dir, f)))).includes("file")) out.push({ provider, cell: alternateCellName(cell, k), dir, alternateOf: cell, alternate: k });
  }
  return out;
}
