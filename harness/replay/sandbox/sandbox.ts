import { existsSync, statSync } from "node:fs";
import { cp, mkdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { RECORDED_PATHS } from "../../recording/recorded-paths.js";
import { createPathMap, type PathMap } from "./path-map.js";

/** The directory a cell's fixture files live in, below `cells/<cell>/` (harness/runtime/cells.ts). */
export const CELL_FIXTURE_DIR = "workspace";

/**
 * The replay sandbox of one bridge process (docs/design/00-product.md flow 2 and Determinism; spec 10
 * §5.1 g): a fresh workspace per replayed cell standing in for the recorded workspace
 * `RECORDED_PATHS.workspace`, and the two directions of the path mapping between them.
 */
export interface ReplaySandbox {
  /** The live workspace of each cell, in the order the cells were given (absolute). */
  readonly workspaces: readonly string[];
  /** Recorded → live for cell `cell`: applied to every line the replay writes to the bridge. */
  toLive(line: string, cell: number): string;
  /** Live (every cell's workspace) → recorded: applied to every line the bridge emits. */
  toRecorded(line: string): string;
}

/** What {@link createReplaySandbox} needs. */
export interface ReplaySandboxOptions {
  /** A private temporary directory; the workspaces are created below it and removed with it. */
  base: string;
  /** The cell name of each replayed recording (`manifest.cell`). */
  cells: readonly string[];
  /** The cells root holding `<cell>/workspace/` fixtures (the package's `cells/` by default at the caller). */
  cellsRoot: string;
  /** The workspace path the recordings name (default `RECORDED_PATHS.workspace`, harness/recording/recorded-paths.ts). */
  recordedWorkspace?: string;
  /**
   * Per cell, the fixture its recording carries (`<recording>/workspace/`, written by `parity
   * record`): it seeds the cell's workspace instead of `<cellsRoot>/<cell>/workspace/`, so a
   * recording replays in the workspace it was recorded in wherever its cell lives.
   */
  fixtures?: readonly (string | undefined)[];
}

/** True for a cell name that names one directory below the cells root (nothing to escape with). */
function isPlainName(name: string): boolean {
  return /^[\w.-]+$/.test(name) && name !== "." && name !== "..";
}

/**
 * Creates the replay sandbox (docs/design/00-product.md flow 2; spec 10 §5.1 g): for cell `i` a fresh
 * directory `<base>/ws-<i>`, seeded with a copy of `<cellsRoot>/<cell>/workspace/` when
 * that exists (recordings without a fixture get an empty workspace), so what the recorded
 * agent reads and writes through the bridge is the fixture of its own cell, never the host's
 * `/tmp/parity-workspace`. `toLive` maps the recorded workspace to the cell's workspace;
 * `toRecorded` maps every cell's workspace, as created and as its real path (a symlinked
 * temp dir), back to the recorded one, so lanes only ever name the recorded path.
 *
 * @throws Error from the file system (the caller removes `base`)
 */
export async function createReplaySandbox(options: ReplaySandboxOptions): Promise<ReplaySandbox> {
  const recorded = options.recordedWorkspace ?? RECORDED_PATHS.workspace;
  const workspaces: string[] = [];
  const toLive: PathMap[] = [];
  const back: Array<{ from: string; to: string }> = [];
  for (const [index, cell] of options.cells.entries()) {
    const workspace = join(options.base, `ws-${index}`);
    await mkdir(workspace);
    const carried = options.fixtures?.[index];
    const isDir = (dir: string) => existsSync(dir) && statSync(dir).isDirectory();
    const fixture = carried !== undefined && isDir(carried) ? carried : isPlainName(cell) ? join(options.cellsRoot, cell, CELL_FIXTURE_DIR) : "";
    if (fixture !== "" && isDir(fixture)) {
      await cp(fixture, workspace, { recursive: true, errorOnExist: true, force: false });
    }
    workspaces.push(workspace);
    toLive.push(createPathMap([{ from: recorded, to: workspace }]));
    back.push({ from: workspace, to: recorded });
    const real = await realpath(workspace);
    if (real !== workspace) back.push({ from: real, to: recorded });
  }
  const toRecorded = createPathMap(back);
  return {
    workspaces,
    toLive: (line, cell) => toLive[cell]?.mapJsonLine(line) ?? line,
    toRecorded: (line) => toRecorded.mapJsonLine(line),
  };
}
