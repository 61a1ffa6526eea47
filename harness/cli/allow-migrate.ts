/**
 * `parity allow --migrate <file>` and the stable form of a positional `parity allow --path`
 * (allowlists/README.md, "Selectors"): each positional entry is replaced by the selector that
 * masks exactly the same values on the cell's lanes — the live lane replayed today, the
 * recording's own lane and the oracle, as `parity check` compares them (spec 10 §6.4).
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { entryApplies, loadAllowlists, type AllowlistEntry, type LoadedAllowlistEntry } from "../compare/allowlist.js";
import { isPositionalPath, stablePathFor, type StablePathResult } from "../compare/migrate.js";
import { runGate } from "../check/gate.js";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { recordingIdentity } from "../recording/identity.js";
import { MANIFEST_FILE } from "../recording/manifest.js";

/** One cell's normalized lanes as `parity check` holds them (live, recording, and the oracle when compared). */
export interface CellLanes {
  provider: string;
  cell: string;
  dir: string;
  lanes: unknown[][];
}

/**
 * Replays the given cells of one recordings root (absolute) and returns their unmasked,
 * normalized lanes (none when the root is not a directory). Nothing is written outside a
 * temporary directory (no oracle is created).
 */
async function replayCellLanes(root: string, cells: ReadonlyArray<{ provider: string; cell: string }>, cwd: string): Promise<CellLanes[]> {
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) return [];
  const only = new Set(cells.map((c) => `${c.provider}/${c.cell}`));
  const dumpDir = await mkdtemp(path.join(tmpdir(), "parity-migrate-"));
  try {
    const { locations } = await runGate(
      {
        jobs: availableParallelism(),
        selection: { roots: [root], filter: {} },
        only,
        allowlistFiles: [],
        // Unmasked lanes: no allowlist applies while the stable paths are worked out.
        allowlist: [],
        lanesDir: path.resolve(cwd, ORACLES_DIR),
        lanesGiven: false,
        dumpDir: { value: dumpDir, dir: dumpDir },
        batch: true,
        replay: {},
        // A cell without an oracle is never given one by this run.
        write: "never",
        keepCellTimes: false,
      },
      { cwd, ci: false },
    );
    if (locations.length === 0) return [];
    const out: CellLanes[] = [];
    for (const location of locations) {
      const lanes: unknown[][] = [];
      for (const side of ["live", "recording", "oracle"]) {
        const file = path.join(dumpDir, `${location.provider}-${location.cell}.${side}.events.json`);
        const text = await readFile(file, "utf8").catch(() => undefined);
        if (text !== undefined) lanes.push(JSON.parse(text) as unknown[]);
      }
      out.push({ provider: location.provider, cell: location.cell, dir: location.dir, lanes });
    }
    return out;
  } finally {
    await rm(dumpDir, { recursive: true, force: true });
  }
}

/** What happened to one entry of a migrated file. */
export interface MigratedEntry {
  index: number;
  from: string;
  result: StablePathResult | { kept: string };
}

/**
 * Computes the stable path of every positional entry of `entries` (loaded from one file):
 * entries for one provider and cell only (a `*` entry names no single lane and is kept), each
 * checked against its cell's lanes replayed under its recordings root (`recordings`, else
 * `recordings/` of `cwd`) — or, when that root holds no recording of the cell and the entry names
 * its recording (`recordingId`), under the first of `searchRoots` whose recording of the cell is
 * that one, as `parity check` applies such an entry wherever its recording is
 * (compare/allowlist.ts `entryApplies`; a clone not beside `shared/`). Whole-event entries of every
 * loaded allowlist (`allowlists/*.json` plus `entries`) that apply to the cell are applied first,
 * as `parity check` applies them.
 * @param searchRoots recordings roots (absolute) to find an entry's recording in by its `recordingId`
 */
export async function migrateEntries(entries: readonly LoadedAllowlistEntry[], cwd: string, defaultRoot = RECORDINGS_ROOT, searchRoots: readonly string[] = []): Promise<MigratedEntry[]> {
  const all = [...(await loadAllowlists({ cwd })), ...entries];
  const results: MigratedEntry[] = [];
  const byRoot = new Map<string, Array<{ index: number; entry: LoadedAllowlistEntry }>>();
  entries.forEach((entry, index) => {
    if (!isPositionalPath(entry.path)) return;
    if (entry.provider === "*" || entry.cell === "*") {
      results.push({ index, from: entry.path, result: { kept: "applies to several cells, so no single lane says which event it meant" } });
      return;
    }
    const root = recordingsRootOfEntry(entry, entry.recordingsRoot ?? path.resolve(cwd, entry.recordings ?? defaultRoot), searchRoots);
    byRoot.set(root, [...(byRoot.get(root) ?? []), { index, entry }]);
  });
  for (const [root, group] of byRoot) {
    const cells = await replayCellLanes(
      root,
      group.map((g) => g.entry),
      cwd,
    );
    for (const { index, entry } of group) {
      const found = cells.find((c) => c.provider === entry.provider && c.cell === entry.cell);
      if (found === undefined || found.lanes.length === 0) {
        const byId =
          entry.recordingId !== undefined
            ? `, nor its recording ${entry.recordingId} under ${searchRoots.length > 0 ? searchRoots.map((r) => path.relative(cwd, r) || ".").join(", ") : "a --recordings root"}`
            : "";
        results.push({ index, from: entry.path, result: { kept: `no replayable recording of ${entry.provider}/${entry.cell} under ${path.relative(cwd, root) || "."}${byId}` } });
        continue;
      }
      const applying = all.filter((other) => other !== entry && entryApplies(other, entry.provider, entry.cell, found.dir));
      results.push({ index, from: entry.path, result: stablePathFor(entry, applying, found.lanes) });
    }
  }
  return results.sort((a, b) => a.index - b.index);
}

/**
 * The recordings root an entry's cell is replayed under: its own root when that holds a recording
 * of the cell (or the entry names no recording), else the first search root whose recording of the
 * cell has the entry's `recordingId`, else its own root (nothing found: the entry is kept).
 */
function recordingsRootOfEntry(entry: LoadedAllowlistEntry, own: string, searchRoots: readonly string[]): string {
  if (entry.recordingId === undefined || existsSync(path.join(own, entry.provider, entry.cell, MANIFEST_FILE))) return own;
  return searchRoots.find((root) => recordingIdentity(path.join(root, entry.provider, entry.cell)) === entry.recordingId) ?? own;
}

/** The stable path of one new entry's positional `path`, or why it stays positional. */
export async function stablePathForNewEntry(entry: AllowlistEntry, cwd: string): Promise<StablePathResult | { kept: string }> {
  const loaded: LoadedAllowlistEntry = {
    ...entry,
    source: { file: "(--path)", index: 0 },
    ...(entry.recordings !== undefined ? { recordingsRoot: path.resolve(cwd, entry.recordings) } : {}),
  };
  const [migrated] = await migrateEntries([loaded], cwd);
  return migrated?.result ?? { problem: "not a positional path" };
}
