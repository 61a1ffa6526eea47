/**
 * "May this run write?", answered once per run (docs/design/00-product.md, CLI: "In CI (`CI=true`) nothing
 * writes oracles or recordings"; the update behaviours of cargo-insta, whose `.snap.new` files
 * are the model for `.pending`):
 *
 * - `never`: nothing is written; a missing oracle fails its cell (CI, `bridge-parity/vitest`,
 *   `allow --migrate`, `allow --prune`, the benchmarks);
 * - `pending`: what a cell's replay would make its oracle (and its current bridge lane) is
 *   written beside the accepted file as `<file>.pending`; `parity review` and `check --update`
 *   accept it by renaming and reject it by deleting, without replaying again;
 * - `in-place`: the pending results are accepted as soon as they are written (`check --update`).
 *
 * A local `check` writes pending results only into the project it runs in (the working
 * directory), as cargo-insta writes `.snap.new` files only in its workspace and jest writes
 * snapshots only in the project's own snapshot directories: a check pointed at oracles or
 * recordings outside it (`--lanes ../shared/reference-lanes`, `--recordings ../shared/recordings`)
 * is a reader of lanes it does not own, so its policy is `never`, and it says so in one line
 * ({@link nothingWrittenNotice}). `--update` is the explicit request to write them in place.
 */
import { existsSync } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fileState, isReadOnlyDir } from "../recording/file-state.js";
import { isInside, realPathOf, shownPath } from "../recording/paths.js";

/** The write policy of a gate run (see the module comment). */
export type WritePolicy = "never" | "pending" | "in-place";

/**
 * The commands whose policy depends on the run. Every other gate caller (the vitest helper,
 * `allow --migrate` and `--prune`, the benchmarks) asks for `never` itself.
 */
export type GateCommand = "check" | "review";

/** The suffix of a pending result beside its accepted file. */
export const PENDING_SUFFIX = ".pending";

/**
 * The one place a write policy is worked out from CI, `--update`, the command and where the run
 * would write: under CI nothing writes; `check --update` writes in place; `check` writes pending
 * results when the oracles and recordings it would write lie in the project, else nothing
 * (`outsideProject`, from {@link firstOutsideProject}); `review` (whose purpose is to accept)
 * writes pending results. `--update` under CI is refused before this is asked (harness/cli/check.ts).
 */
export function resolveWritePolicy(input: { ci: boolean; update: boolean; command: GateCommand; outsideProject?: ProjectOutsider | undefined }): WritePolicy {
  if (input.ci) return "never";
  if (input.command === "check" && input.update) return "in-place";
  if (input.command === "check" && input.outsideProject !== undefined) return "never";
  return "pending";
}

/**
 * A directory a run would write that lies outside the project: the flag that named it, or none
 * when it is the default (`lanes`, `recordings`) and only a symbolic link takes it outside.
 */
export interface ProjectOutsider {
  /** `--lanes` or `--recordings`, when the user gave that flag; absent for the default directory. */
  flag?: string | undefined;
  /** The directory, absolute, as the flag (or the default) resolved it. */
  dir: string;
  /** Where it really is, symbolic links resolved (set by {@link firstOutsideProject}). */
  real?: string;
}

/**
 * The first of `dirs` (the oracles directory, then the recordings roots; absolute) that does not
 * lie in the project `cwd` once symbolic links are resolved, with its resolved path, or undefined
 * when all do.
 */
export async function firstOutsideProject(cwd: string, dirs: readonly ProjectOutsider[]): Promise<ProjectOutsider | undefined> {
  const project = await realPathOf(cwd);
  for (const entry of dirs) {
    const real = await realPathOf(entry.dir);
    if (!isInside(project, real)) return { ...entry, real };
  }
  return undefined;
}

/**
 * The one line a local `check` prints when its cells failed and it wrote nothing because of
 * `outsider`; it names the flag only when the user gave it (a default directory that is a
 * symbolic link out of the project is named as the link and where it points). `cwd` shows the
 * default directory relative to the project.
 */
export function nothingWrittenNotice(outsider: ProjectOutsider, cwd: string): string {
  const rel = path.relative(cwd, outsider.dir) || ".";
  const where =
    outsider.flag !== undefined
      ? `${outsider.flag} ${outsider.dir} lies outside the working directory`
      : `${rel}/ is a symbolic link to ${outsider.real ?? outsider.dir}, outside the working directory`;
  return `parity: nothing written (no ${PENDING_SUFFIX} results): ${where}, and a check writes only the project's own oracles and recordings; run it from the project that owns them, or pass --update to write them in place\n`;
}

/**
 * Why a run may not write into `dirs` (absolute directories it would write a file into, created
 * if missing), or undefined when it may: the first whose nearest existing directory is read-only
 * (`isReadOnlyDir`: no permission, or no write bit at all, as a directory made read-only on
 * purpose is treated even by the superuser), as `<dir> is read-only`, shown relative to `cwd`.
 * Asked before anything is written, so a cell is written whole or not at all.
 */
export async function readOnlyReason(dirs: readonly string[], cwd: string): Promise<string | undefined> {
  for (const dir of dirs) {
    let at = path.resolve(dir);
    while (!(await exists(at)) && path.dirname(at) !== at) at = path.dirname(at);
    if (await isReadOnlyDir(at)) return `${shownPath(at, cwd)} is read-only`;
  }
  return undefined;
}

/** True when something is at `file` (a link is followed; a dangling one counts as nothing). */
async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The pending file beside an accepted one (absolute in, absolute out): `<file>.pending`. */
export function pendingFile(file: string): string {
  return `${file}${PENDING_SUFFIX}`;
}

/**
 * The pending form of a whole recording folder (`parity drift --accept`, harness/cli/drift-accept.ts):
 * `<provider dir>/.<cell>.pending/`, hidden so the recordings listing (which skips dot folders)
 * never replays it before it is accepted.
 */
export function pendingRecordingDir(recordingDir: string): string {
  return path.join(path.dirname(recordingDir), `.${path.basename(recordingDir)}${PENDING_SUFFIX}`);
}

/** True when `recordingDir` has a pending recording beside it ({@link pendingRecordingDir}). */
export async function hasPendingRecording(recordingDir: string): Promise<boolean> {
  return (await stat(pendingRecordingDir(recordingDir)).catch(() => undefined))?.isDirectory() ?? false;
}

/**
 * Accepts the pending results of `files` (accepted paths): each `<file>.pending` that exists is
 * renamed over `<file>` (atomic on one filesystem); a recording folder with a pending recording
 * ({@link pendingRecordingDir}) is replaced by it (the old folder renamed aside, the pending one
 * into place, the old one removed). Returns the accepted files that changed.
 * @throws what `rename` throws (the caller reports it as an I/O error)
 */
export async function acceptPending(files: readonly string[]): Promise<string[]> {
  const accepted: string[] = [];
  for (const file of files) {
    if (await hasPendingRecording(file)) {
      const aside = path.join(path.dirname(file), `.${path.basename(file)}.replaced-${process.pid}`);
      if (existsSync(file)) await rename(file, aside);
      await rename(pendingRecordingDir(file), file);
      await rm(aside, { recursive: true, force: true });
      accepted.push(file);
      continue;
    }
    if ((await fileState(pendingFile(file))) !== "file") continue;
    await rename(pendingFile(file), file);
    accepted.push(file);
  }
  return accepted;
}

/** Rejects the pending results of `files` (accepted paths): each `<file>.pending` is deleted, and a pending recording folder. */
export async function rejectPending(files: readonly string[]): Promise<void> {
  for (const file of files) {
    await rm(pendingFile(file), { force: true });
    await rm(pendingRecordingDir(file), { recursive: true, force: true });
  }
}
