/**
 * The alternate paths of a cell (issue 41, "When the agent itself varies"): a cell whose agent
 * genuinely takes more than one path from run to run (gemini-cli's `resume` that finds no
 * previous session in some runs) keeps, besides its recording and oracle, accepted alternate
 * recordings, each with its own oracle and version sidecar. The cell's own recording is path 1;
 * alternates are numbered from 2. Every path of an alternate is the cell's path with
 * `/alternates/<k>` appended, so the one rule "the oracle of `recordings/<p>/<X>/` is
 * `lanes/<p>/<X>.json`" holds for both:
 *
 *     recordings/<p>/<cell>/alternates/<k>/      (manifest.json with `alternateOf`, lanes, workspace/)
 *     lanes/<p>/<cell>/alternates/<k>.json       (+ `<k>.version`)
 *
 * Nothing that enumerated `recordings/<p>/<cell>/` or `lanes/<p>/*.json` before sees them (a
 * recording's reader skips subfolders; `lanes/<p>/<cell>/` is a folder, not a `.json`): a listing
 * asks for them (`listRecordings(roots, { alternates: true })`), and then an alternate is a
 * location of its own whose `cell` is `<cell>/alternates/<k>` (its report name and its key) and
 * whose `alternateOf` is the cell (its manifest's `cell`, its facts, its runtime script).
 *
 * A pending alternate (`parity record --repeat N --keep-alternates`) is the hidden folder
 * `alternates/.<k>.pending/` with `lanes/<p>/<cell>/alternates/<k>.json.pending`: the pending form
 * of a whole recording (harness/check/write-policy.ts `pendingRecordingDir`), which
 * `parity review` accepts by renaming and rejects by deleting.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";

/** The folder of a cell's recording (and of its oracles' folder) that holds its alternates. */
export const ALTERNATES_DIR = "alternates";

/** The first alternate's number: path 1 is the cell's own recording. */
export const FIRST_ALTERNATE = 2;

/** The name an alternate is checked and reported under: `<cell>/alternates/<k>`. */
export function alternateCellName(cell: string, k: number): string {
  return `${cell}/${ALTERNATES_DIR}/${k}`;
}

/** `{cell, path}` of an alternate's name (`resume/alternates/2` → `{cell: "resume", path: 2}`), or undefined for a cell's own name. */
export function parseAlternateCellName(name: string): { cell: string; path: number } | undefined {
  const match = /^(.+)\/alternates\/(\d+)$/.exec(name);
  if (match === null) return undefined;
  return { cell: match[1]!, path: Number(match[2]) };
}

/** The cell a location's manifest names: the cell an alternate is of, else the location's cell. */
export function manifestCellOf(location: { cell: string; alternateOf?: string | undefined }): string {
  return location.alternateOf ?? location.cell;
}

/**
 * The alternate numbers whose name is a folder `<k>` (accepted) or `.<k>.pending` (pending) in
 * `alternatesDir`, each once, ascending; none when the folder is not there.
 */
async function numbersIn(dir: string, form: RegExp): Promise<number[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return [...new Set(names.flatMap((n) => (form.exec(n) ? [Number(form.exec(n)![1])] : [])))].filter((k) => k >= FIRST_ALTERNATE).sort((a, b) => a - b);
}

/** The accepted alternates' numbers in a cell's recording folder (`<cellDir>/alternates/<k>/`). */
export function acceptedAlternateNumbers(cellDir: string): Promise<number[]> {
  return numbersIn(path.join(cellDir, ALTERNATES_DIR), /^(\d+)$/);
}

/** The pending alternates' numbers in a cell's recording folder (`<cellDir>/alternates/.<k>.pending/`). */
export function pendingAlternateNumbers(cellDir: string): Promise<number[]> {
  return numbersIn(path.join(cellDir, ALTERNATES_DIR), /^\.(\d+)\.pending$/);
}

/** The oracle files of a cell's accepted alternates (`<lanesDir>/<p>/<cell>/alternates/<k>.json`), by number ascending. */
export async function alternateOracles(lanesDir: string, provider: string, cell: string): Promise<Array<{ path: number; file: string }>> {
  const dir = path.join(lanesDir, provider, cell, ALTERNATES_DIR);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .flatMap((n) => {
      const match = /^(\d+)\.json$/.exec(n);
      return match !== null && Number(match[1]) >= FIRST_ALTERNATE ? [{ path: Number(match[1]), file: path.join(dir, n) }] : [];
    })
    .sort((a, b) => a.path - b.path);
}

/**
 * The next free alternate number of a cell: one more than any accepted or pending alternate's,
 * in its recording folder or its oracles folder, never below {@link FIRST_ALTERNATE}. A number
 * is never reused while anything of it is on disk, so nothing is overwritten.
 */
export async function nextAlternateNumber(cellDir: string, lanesDir: string, provider: string, cell: string): Promise<number> {
  const taken = [
    ...(await acceptedAlternateNumbers(cellDir)),
    ...(await pendingAlternateNumbers(cellDir)),
    ...(await numbersIn(path.join(lanesDir, provider, cell, ALTERNATES_DIR), /^(\d+)\.(?:json|version)(?:\.pending)?$/)),
  ];
  return Math.max(FIRST_ALTERNATE - 1, ...taken) + 1;
}

/** What an alternate's manifest says of the cell it is an alternate of (manifest.ts `alternateOf`). */
export interface AlternateOf {
  /** The cell (its manifest's `cell` is the same). */
  cell: string;
  /** Its number: path 1 is the cell's own recording. */
  path: number;
  /** Why it was kept, in words. */
  why: string;
  /** The `--repeat` evidence: how many runs, and which runs took which path (path 1: the cell's committed oracle). */
  evidence?: { runs: number; paths: Array<{ path: number; runs: number[] }> };
}

/**
 * The recordings root of a recording folder: two folders up for a cell's own
 * (`<root>/<p>/<cell>`), four for an alternate (`<root>/<p>/<cell>/alternates/<k>`, told by its
 * last two names). Absolute in, absolute out.
 */
export function recordingsRootOf(recordingDir: string): string {
  const dir = path.resolve(recordingDir);
  const isAlternate = /^\d+$/.test(path.basename(dir)) && path.basename(path.dirname(dir)) === ALTERNATES_DIR;
  return path.resolve(dir, ...Array<string>(isAlternate ? 4 : 2).fill(".."));
}
