/**
 * vitest global setup: the whole run's temporary files in one directory, removed at its end
 * (issue 42: `npm test` left a dozen directories in TMPDIR — tests that make a temp dir and never
 * remove it, bridges killed before they could remove theirs, the agents' own files). Runs in
 * vitest's main process before any worker is forked: `TMPDIR` points at a fresh
 * `parity-test-run-*` directory under the one the run was given, which every worker and every
 * process a test spawns inherits, and the teardown removes it whatever the outcome (pass, fail, a
 * test timed out, a bridge holding a long timer). This is what `parity` itself does for a run
 * (README: "each run keeps its temp files … in one directory under TMPDIR"). A test that sets its
 * own TMPDIR for what it checks is unaffected.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The prefix of a run's directory; a second setup in the same run (one per project) reuses the first's. */
export const RUN_TMPDIR_PREFIX = "parity-test-run-";

/** Points `TMPDIR` at a fresh run directory; returns the teardown that removes it and restores `TMPDIR`. */
export default function setup(): (() => void) | undefined {
  const parent = process.env.TMPDIR;
  if (parent !== undefined && path.basename(parent).startsWith(RUN_TMPDIR_PREFIX)) return undefined;
  const dir = mkdtempSync(path.join(parent ?? os.tmpdir(), RUN_TMPDIR_PREFIX));
  process.env.TMPDIR = dir;
  return () => {
    if (parent === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = parent;
    rmSync(dir, { recursive: true, force: true });
  };
}
