/**
 * `parity record --repeat N --keep-alternates` (issue 41, "When the agent itself varies"): after
 * the runs, each run's thread lane is held to the project's committed oracle of its cell as a
 * fresh re-record is (the run-to-run rules with the cell's facts, built by check/cross-run.ts, and
 * the project's allowlists), then to each accepted alternate's oracle, then to each pending one's.
 * A run that matches none took a path the project does not have: it is written once per distinct
 * path as a PENDING alternate (harness/recording/alternates.ts) — its recording into
 * `recordings/<p>/<cell>/alternates/.<k>.pending/`, its manifest naming the cell, why and the
 * runs that took each path; its oracle and version sidecar as `lanes/<p>/<cell>/alternates/<k>.json.pending`
 * and `<k>.version.pending` — for `parity review` to show and accept or reject. Nothing accepted
 * is overwritten (a new number is never one on disk); a cell the project has no oracle of keeps
 * nothing (record it first: `parity record --cell`).
 */
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import type { ParityLeg } from "../compare/parity.js";
import { loadCrossRunFacts } from "../check/cross-run.js";
import { pendingFile, pendingRecordingDir } from "../check/write-policy.js";
import { ALTERNATES_DIR, nextAlternateNumber, type AlternateOf } from "../recording/alternates.js";
import { fileState } from "../recording/file-state.js";
import { MANIFEST_FILE } from "../recording/manifest.js";
import { oracleVersionFile } from "../recording/oracle-version.js";
import { holdRunsToKnownPaths, sameRunPath } from "./run-paths.js";

/** What {@link keepAlternates} is given: the provider, its cells, the runs (as the repeat report has them) and the project. */
export interface KeepAlternatesRequest {
  provider: string;
  cells: readonly string[];
  /** Each run's number, recordings root (`<out>/run-<k>`, with its `lanes/`) and the cells it recorded. */
  runs: ReadonlyArray<{ run: number; root: string; recorded: readonly string[] }>;
  /** The project's recordings root and oracles root (absolute). */
  recordingsRoot: string;
  lanesDir: string;
  /** The cell definitions root (absolute): each cell's facts are the run-to-run rules' reference (check/cross-run.ts). */
  cellsRoot: string;
  allowlist: readonly LoadedAllowlistEntry[];
}

/** Which path each run of one cell took, and what was written (`--json`: `keptAlternates`). */
export interface CellPaths {
  cell: string;
  /** Path 1: the cell's committed oracle; k ≥ 2: an alternate (accepted, pending before, or kept now). */
  paths: Array<{ path: number; runs: number[]; state: "committed" | "accepted" | "pending" | "kept" }>;
  /** What this run wrote for the cell (paths relative to neither; absolute). */
  wrote: string[];
  /** Why nothing was compared (no committed oracle). */
  skipped?: string;
}

/** A path being collected: its lane, the runs that took it, where it came from. */
interface Path {
  path: number;
  lane: ParityLeg;
  runs: number[];
  state: CellPaths["paths"][number]["state"];
}

/**
 * Classifies every run of every cell and writes the new paths pending (see the module comment).
 * @throws InputError for an oracle that cannot be read; what `cp`/`rename` throw
 */
export async function keepAlternates(req: KeepAlternatesRequest): Promise<CellPaths[]> {
  const out: CellPaths[] = [];
  // Each run is another live run than every known path: compared as check compares a fresh
  // re-record, its input from the one builder (cross-run.ts) with the cell's facts.
  const facts = await loadCrossRunFacts(
    req.cellsRoot,
    req.cells.map((cell) => ({ provider: req.provider, cell })),
  );
  for (const cell of req.cells) {
    const cellDir = path.join(req.recordingsRoot, req.provider, cell);
    // The committed oracle, the accepted and the pending alternates, in that order (run-paths.ts).
    const held = await holdRunsToKnownPaths(req.provider, cell, req.runs, req, facts, true);
    if (held.skipped !== undefined) {
      out.push({ cell, paths: [], wrote: [], skipped: held.skipped });
      continue;
    }
    const known: Path[] = held.known;
    const fresh: Array<Path & { from: string }> = [];
    let next = await nextAlternateNumber(cellDir, req.lanesDir, req.provider, cell);
    // The runs no known path explains, grouped by the path they took among themselves.
    for (const run of held.unknown) {
      const recordingDir = path.join(run.root, req.provider, cell);
      const found = fresh.find((p) => sameRunPath(req.provider, cell, req.allowlist, recordingDir, run.lane, p.lane, facts));
      if (found !== undefined) found.runs.push(run.run);
      else fresh.push({ path: next++, lane: run.lane, runs: [run.run], state: "kept", from: recordingDir });
    }
    const all = [...known, ...fresh];
    const evidence = { runs: req.runs.filter((r) => r.recorded.includes(cell)).length, paths: all.filter((p) => p.runs.length > 0).map((p) => ({ path: p.path, runs: p.runs })) };
    const wrote: string[] = [];
    for (const p of fresh) wrote.push(...(await writePendingAlternate(req, cell, cellDir, p.path, p.from, evidence)));
    out.push({ cell, paths: all.filter((p) => p.runs.length > 0).map(({ path: k, runs, state }) => ({ path: k, runs, state })), wrote });
  }
  return out;
}

/**
 * Writes one run's recording as pending alternate `k` of `cell`: the recording copied beside its
 * final place and renamed in (so a pending folder is whole or absent), its manifest given
 * `alternateOf`; its oracle and version sidecar as `.pending`. Returns the files and folder written.
 * @throws Error when anything of `k` is already there (never overwritten)
 */
async function writePendingAlternate(req: KeepAlternatesRequest, cell: string, cellDir: string, k: number, from: string, evidence: NonNullable<AlternateOf["evidence"]>): Promise<string[]> {
  const dir = pendingRecordingDir(path.join(cellDir, ALTERNATES_DIR, String(k)));
  const oracle = path.join(req.lanesDir, req.provider, cell, ALTERNATES_DIR, `${k}.json`);
  const runs = evidence.paths.find((p) => p.path === k)?.runs ?? [];
  const others = evidence.paths.filter((p) => p.path !== k).map((p) => `path ${p.path} in ${p.runs.length}`);
  const alternateOf: AlternateOf = {
    cell,
    path: k,
    why: `parity record --repeat ${evidence.runs} --keep-alternates: the thread lane of ${runs.length === 1 ? "run" : "runs"} ${runs.join(", ")} of ${evidence.runs} matched neither the cell's committed oracle nor an accepted alternate (after the run-to-run rules)${others.length > 0 ? `; ${others.join(", ")} of ${evidence.runs} runs` : ""}`,
    evidence,
  };
  const staging = `${dir}.tmp-${process.pid}`;
  await mkdir(path.dirname(dir), { recursive: true });
  await cp(from, staging, { recursive: true, errorOnExist: true, force: false });
  try {
    const manifestFile = path.join(staging, MANIFEST_FILE);
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as Record<string, unknown>;
    await writeFile(manifestFile, `${JSON.stringify({ ...manifest, alternateOf }, null, 2)}\n`);
    if (existsSync(dir)) throw new Error(`${dir} is already there: an alternate is never overwritten`);
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const wrote = [dir];
  await mkdir(path.dirname(oracle), { recursive: true });
  const sourceLanes = path.join(path.dirname(path.dirname(from)), "lanes", req.provider);
  await cp(path.join(sourceLanes, `${cell}.json`), pendingFile(oracle), { errorOnExist: true, force: false });
  wrote.push(pendingFile(oracle));
  const version = path.join(sourceLanes, `${cell}.version`);
  if ((await fileState(version)) === "file") {
    await cp(version, pendingFile(oracleVersionFile(oracle)), { errorOnExist: true, force: false });
    wrote.push(pendingFile(oracleVersionFile(oracle)));
  }
  return wrote;
}

/** The text of what `--keep-alternates` found and wrote, one line per cell and per file written. */
export function renderKeptText(cells: readonly CellPaths[], cwd: string): string {
  const out = ["kept alternates (--keep-alternates):"];
  const words = { committed: "the committed oracle", accepted: "an accepted alternate", pending: "a pending alternate", kept: "new, kept pending" };
  for (const c of cells) {
    if (c.skipped !== undefined) {
      out.push(`  ${c.cell}: nothing kept: ${c.skipped}`);
      continue;
    }
    const paths = c.paths.map((p) => `path ${p.path} (${p.path === 1 ? words.committed : words[p.state]}): ${p.runs.length === 1 ? "run" : "runs"} ${p.runs.join(", ")}`);
    out.push(`  ${c.cell}: ${paths.join("; ")}`);
    for (const file of c.wrote) out.push(`    wrote ${path.relative(cwd, file)}`);
  }
  const written = cells.reduce((n, c) => n + c.wrote.length, 0);
  out.push(
    written > 0
      ? "review them with parity review (accept or reject each new path); check -u does not accept new recordings"
      : "no new path: every run matched the committed oracle or an accepted or pending alternate",
  );
  return `${out.join("\n")}\n`;
}
