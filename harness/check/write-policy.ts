/**
 * "May this run write?", answered once per run (00-product.md, CLI: "In CI (`CI=true`) nothing
 * writes oracles or recordings"; the update behaviours of cargo-insta, whose `.snap.new` files
 * are the model for `.pending`):
 *
 * - `never`: nothing is written; a missing oracle fails its cell (CI, `bridge-parity/vitest`,
 *   `allow --migrate`, `allow --prune`, the benchmarks);
 * - `pending`: what a cell's replay would make its oracle (and its current bridge lane) is
 *   written beside the accepted file as `<file>.pending`; `parity review` and `check --update`
 *   accept it by renaming and reject it by deleting, without replaying again;
 * - `in-place`: the pending results are accepted as soon as they are written (`check --update`).
 */
import { rename, rm } from "node:fs/promises";
import { fileState } from "../recording/file-state.js";

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
 * The one place a write policy is worked out from CI, `--update` and the command: under CI
 * nothing writes; `check --update` writes in place; `check` and `review` write pending results.
 * `--update` under CI is refused before this is asked (harness/cli/check.ts).
 */
export function resolveWritePolicy(input: { ci: boolean; update: boolean; command: GateCommand }): WritePolicy {
  if (input.ci) return "never";
  return input.command === "check" && input.update ? "in-place" : "pending";
}

/** The pending file beside an accepted one (absolute in, absolute out): `<file>.pending`. */
export function pendingFile(file: string): string {
  return `${file}${PENDING_SUFFIX}`;
}

/**
 * Accepts the pending results of `files` (accepted paths): each `<file>.pending` that exists is
 * renamed over `<file>` (atomic on one filesystem). Returns the accepted files that changed.
 * @throws what `rename` throws (the caller reports it as an I/O error)
 */
export async function acceptPending(files: readonly string[]): Promise<string[]> {
  const accepted: string[] = [];
  for (const file of files) {
    if ((await fileState(pendingFile(file))) !== "file") continue;
    await rename(pendingFile(file), file);
    accepted.push(file);
  }
  return accepted;
}

/** Rejects the pending results of `files` (accepted paths): each `<file>.pending` is deleted. */
export async function rejectPending(files: readonly string[]): Promise<void> {
  for (const file of files) await rm(pendingFile(file), { force: true });
}
