/**
 * Which known path of its cell each run of `parity record --repeat N` took (README "When the agent
 * itself varies"): each run's thread lane held to the project's committed oracle of the cell
 * (path 1) and to each accepted alternate's oracle (k ≥ 2), in that order, as `parity check`
 * holds a fresh re-record — two live runs, so with the run-to-run rules and the cell's facts
 * (check/cross-run.ts, the one builder of that comparison) and the project's allowlists. A run
 * that matches none is unknown. `--keep-alternates` also holds runs to the pending alternates
 * (`includePending`) and keeps the unknown ones as new paths (keep-alternates.ts);
 * `--repeat`'s verdict counts only the committed and accepted paths (record-repeat.ts): runs
 * that took two accepted paths of a cell vary, but as the project already knows the agent does.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import { compareParity, type ParityLeg } from "../compare/parity.js";
import { readOracleOnly } from "../check/compare-cell.js";
import { crossRunInput, type CrossRunFacts } from "../check/cross-run.js";
import { pendingFile } from "../check/write-policy.js";
import { alternateOracles, ALTERNATES_DIR, pendingAlternateNumbers } from "../recording/alternates.js";
import { fileState } from "../recording/file-state.js";
import { MANIFEST_FILE } from "../recording/manifest.js";

/** The project a cell's runs are held to: its recordings and oracles roots (absolute) and its allowlists. */
export interface KnownPathsProject {
  recordingsRoot: string;
  lanesDir: string;
  allowlist: readonly LoadedAllowlistEntry[];
}

/** One known path of a cell: 1 the committed oracle, k ≥ 2 an alternate; its oracle file (absolute) and lane, and the runs that took it. */
export interface KnownPath {
  path: number;
  state: "committed" | "accepted" | "pending";
  oracle: string;
  lane: ParityLeg;
  runs: number[];
}

/** How one cell's runs went: the known paths (each with the runs that took it) and the runs that matched none, or why none was held. */
export type CellRuns =
  { cell: string; known: KnownPath[]; unknown: Array<{ run: number; root: string; lane: ParityLeg }>; skipped?: undefined } | { cell: string; skipped: string; known?: undefined; unknown?: undefined };

/**
 * Holds each run of `cell` to the cell's known paths (see the module comment).
 * @param runs each run's number, its recordings root (`<out>/run-<k>`, with `lanes/`) and the cells it recorded
 * @param facts the cells' facts (check/cross-run.ts `loadCrossRunFacts`): rule 5's reference
 * @param includePending also hold runs to the cell's pending alternates (`--keep-alternates`)
 * @returns `skipped` when the project has no recording and oracle of the cell
 * @throws InputError for an oracle (the project's or a run's) that cannot be read
 */
export async function holdRunsToKnownPaths(
  provider: string,
  cell: string,
  runs: ReadonlyArray<{ run: number; root: string; recorded: readonly string[] }>,
  project: KnownPathsProject,
  facts: CrossRunFacts | undefined,
  includePending: boolean,
): Promise<CellRuns> {
  const oracleFile = path.join(project.lanesDir, provider, `${cell}.json`);
  const cellDir = path.join(project.recordingsRoot, provider, cell);
  if ((await fileState(oracleFile)) !== "file" || !existsSync(path.join(cellDir, MANIFEST_FILE))) {
    return { cell, skipped: `the project has no recording and oracle of ${provider}/${cell}: record it first (parity record --cell ${cell})` };
  }
  const known: KnownPath[] = [{ path: 1, state: "committed", oracle: oracleFile, lane: await readOracleOnly(oracleFile), runs: [] }];
  for (const { path: k, file } of await alternateOracles(project.lanesDir, provider, cell)) known.push({ path: k, state: "accepted", oracle: file, lane: await readOracleOnly(file), runs: [] });
  if (includePending) {
    const altLanes = path.join(project.lanesDir, provider, cell, ALTERNATES_DIR);
    for (const k of await pendingAlternateNumbers(cellDir)) {
      const file = pendingFile(path.join(altLanes, `${k}.json`));
      if ((await fileState(file)) === "file" && !known.some((p) => p.path === k)) known.push({ path: k, state: "pending", oracle: file, lane: await readOracleOnly(file), runs: [] });
    }
  }
  const unknown: Array<{ run: number; root: string; lane: ParityLeg }> = [];
  for (const run of runs) {
    if (!run.recorded.includes(cell)) continue;
    const lane = await readOracleOnly(path.join(run.root, "lanes", provider, `${cell}.json`));
    const found = known.find((p) => sameRunPath(provider, cell, project.allowlist, path.join(run.root, provider, cell), lane, p.lane, facts));
    if (found !== undefined) found.runs.push(run.run);
    else unknown.push({ run: run.run, root: run.root, lane });
  }
  return { cell, known, unknown };
}

/**
 * True when a run's lane is the path `oracle` is, compared as check compares a fresh re-record
 * (the cross-run input with the cell's facts, and the allowlists).
 * @param recordingDir the run's recording of the cell (entries tied to a root or recording match against it)
 */
export function sameRunPath(
  provider: string,
  cell: string,
  allowlist: readonly LoadedAllowlistEntry[],
  recordingDir: string,
  live: ParityLeg,
  oracle: ParityLeg,
  facts: CrossRunFacts | undefined,
): boolean {
  return compareParity({ provider, cell, allowlist, recordingDir, live, oracle, ...crossRunInput(facts, provider, cell) }).passed;
}
