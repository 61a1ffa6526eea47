/**
 * How long each cell took in earlier `parity check` runs, so the next run starts its longest
 * batches first (as jest orders test files by their last durations). Which batch runs first never
 * changes a verdict; it only decides when the workers finish: a provider whose bridge waits on its
 * own timers (an agent turn's quiet period) for seconds, started last, would leave every other
 * worker idle while it waits.
 *
 * The times live in `<project>/node_modules/.cache/bridge-parity/cell-times.json`
 * (`{"<provider>/<cell>": ms}`), the cache directory tools keep beside a project's packages;
 * a project without `node_modules/` keeps none. A missing or unreadable file is no history.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../recording/atomic-write.js";

/** Milliseconds per `<provider>/<cell>` from earlier runs. */
export type CellTimes = ReadonlyMap<string, number>;

/** The history file of the project at `projectDir`, or undefined when it has no `node_modules/`. */
export function cellTimesFile(projectDir: string): string | undefined {
  const modules = path.join(projectDir, "node_modules");
  return existsSync(modules) ? path.join(modules, ".cache", "bridge-parity", "cell-times.json") : undefined;
}

/** Reads the history; an absent, unreadable or malformed file gives an empty one. */
export async function readCellTimes(file: string | undefined): Promise<CellTimes> {
  if (file === undefined) return new Map();
  try {
    const value: unknown = JSON.parse(await readFile(file, "utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return new Map();
    return new Map(Object.entries(value).filter((e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1]) && e[1] >= 0));
  } catch {
    return new Map();
  }
}

/**
 * Merges this run's times into the history and writes it (temp file and rename, so concurrent
 * runs never leave half a file). Best effort: a cache that cannot be written is skipped silently.
 */
export async function writeCellTimes(file: string | undefined, earlier: CellTimes, now: ReadonlyMap<string, number>): Promise<void> {
  if (file === undefined || now.size === 0) return;
  const merged = Object.fromEntries([...new Map([...earlier, ...now])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, `${JSON.stringify(merged, null, 1)}\n`);
  } catch {
    // a read-only or vanished cache directory: no history next time
  }
}
