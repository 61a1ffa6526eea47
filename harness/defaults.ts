/**
 * Every default of the harness and the `parity` command in one place (docs/design/00-product.md, Layout
 * and CLI). Paths are relative to the working directory unless said otherwise; times are in ms.
 * A flag, an option of the public API or a test overrides each of them.
 */

/** Recordings root read (and written by `record`) when no `--recordings` / `--out` is given. */
export const RECORDINGS_ROOT = "recordings";

/** The committed oracles' directory (`--lanes`). */
export const ORACLES_DIR = "lanes";

/** Cells root, relative to the package root: `<cell>/cell.json` and the `workspace/` fixtures (`--cells`). */
export const CELLS_ROOT = "cells";

/** Directory whose `*.json` files are the project's allowlists (and where `parity allow` appends). */
export const ALLOWLISTS_DIR = "allowlists";

/**
 * Whether an untruth whose cause is our bridge fails `parity check` (`fail`) or is listed and
 * counted without failing it (`warn`; `check --strict-truth` makes it fail). Untruths of agents
 * and their adapters always fail unless a truth entry allows them (allowlists/truth/); our
 * bridges' are never allowed, so they fail: the committed matrix has none (issue 37's bridge
 * fixes landed). `warn` is for a branch that is fixing several at once.
 */
export const BRIDGE_UNTRUTHS: "fail" | "warn" = "fail";

/** Unchanged lines shown around each change of a lane (`diff --context`). */
export const DIFF_CONTEXT_LINES = 3;

/** The reporter of `check` and `review` (`--reporter`). */
export const REPORTER = "text";

/** Wall-clock ceiling of one cell's replay (`--timeout` of check, review, replay, rerecord); a batch gets it once per cell. */
export const CELL_CEILING_MS = 120_000;

/** Longest wait for one answer or event of the cell script while recording (`record --timeout`; divergence detection only). */
export const RECORD_STEP_TIMEOUT_MS = 90_000;

/** Longest wait for one answer or event in the conformance scenarios (`conform --timeout`; spec 10 §7 `timeoutMs=5000`). */
export const CONFORMANCE_TIMEOUT_MS = 5_000;

/**
 * Longest wait for an agent's `initialize` answer (`probe --timeout`): an agent starting on a busy
 * machine (a Node CLI loading its bundle) can take well over the 10 s a quiet one needs; the
 * timeout only bounds an agent that will never answer.
 */
export const PROBE_TIMEOUT_MS = 60_000;

/** Longest a user's bridge module may take to load when `--module` is checked. */
export const MODULE_LOAD_TIMEOUT_MS = 60_000;

/**
 * Least free space, in bytes, a run's temp directory and a writing command's output directory
 * must have before any work starts (1 MiB): below it the disk is taken as full, and the run stops
 * at once instead of after a recording or replay whose result could not be written.
 */
export const MIN_FREE_BYTES = 1024 * 1024;

/**
 * What `parity compare` does with a difference caused by our bridge (issue 39): `"warn"` lists
 * and counts it, and only `parity compare --strict` fails on it; `"fail"` always fails. No pair
 * entry ever allows one. `"fail"` since the ACP bridge fixes of issues 37 and 39 landed (the four
 * pairs show no bridge-caused difference), so the gate in `.ci/run` fails on a new one.
 */
export const PAIR_BRIDGE_CAUSES: "warn" | "fail" = "fail";
