/**
 * `checkCell`: the parity gate over one recorded cell, for a user's own test suite (the
 * `bridge-parity/vitest` entry; README "Use it from your tests"). It never writes: a missing
 * oracle fails the cell, as under `CI=true`.
 */
import path from "node:path";
import { UsageError } from "../errors.js";
import type { CellResult } from "../report/check-report.js";
import type { RunFlags } from "../report/advice.js";
import { renderCellText } from "../report/text.js";
import { runGate } from "../check/gate.js";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { withTempSession } from "./temp-session.js";

/** Which cell to check and against what. Relative paths resolve against `cwd`. */
export interface CheckCellOptions {
  /** Provider id, e.g. `"acp-opencode"` (the `<provider>` directory of the recording). */
  provider: string;
  /** Cell name (the `<cell>` directory of the recording). */
  cell: string;
  /** Recordings root holding `<provider>/<cell>/` (default `recordings`). */
  recordings?: string;
  /** Oracles directory holding `<provider>/<cell>.json` (default `lanes`). */
  lanes?: string;
  /** Allowlist files besides `<cwd>/allowlists/*.json`. */
  allowlists?: string[];
  /** Your bridge module to replay through instead of the provider's shipped one. */
  module?: string;
  /** Wall-clock ceiling of the replay in ms (default as `parity check --timeout`): beyond it the cell is an infrastructure timeout. */
  timeoutMs?: number;
  /** Directory relative paths resolve against (default `process.cwd()`). */
  cwd?: string;
}

/** The cell's result (as `parity check --json` reports it, with detail) and its text report. */
export interface CheckCellResult extends CellResult {
  /** The text reporter's block for this cell: summary, diff, what to do (no colour). */
  text: string;
}

/**
 * Replays one recorded cell through its bridge (or `module`), compares the live thread lane
 * with its oracle and its recording under the allowlists, and returns the cell's result;
 * `status` is `pass`, `fail`, `untrue` (the same as its oracle, contradicting its cell's facts in
 * `cells/`, see README "Truth"), `skip` (process-scoped), `timeout` (the replay hit its
 * wall-clock ceiling: no verdict) or `error` (an unreadable input).
 *
 * @throws UsageError when the recordings root does not hold `<provider>/<cell>`.
 */
export async function checkCell(options: CheckCellOptions): Promise<CheckCellResult> {
  const cwd = options.cwd ?? process.cwd();
  const root = path.resolve(cwd, options.recordings ?? RECORDINGS_ROOT);
  // The gate every caller runs, asked never to write: a missing oracle fails, as under CI.
  // Inside the process's temp session (temp-session.ts): nothing is left in TMPDIR, even by a timed-out test.
  const { run } = await withTempSession(() =>
    runGate(
      {
        jobs: 1,
        selection: { roots: [root], filter: { provider: options.provider, cell: options.cell } },
        allowlistFiles: (options.allowlists ?? []).map((f) => path.resolve(cwd, f)),
        lanesDir: path.resolve(cwd, options.lanes ?? ORACLES_DIR),
        lanesGiven: true,
        batch: true,
        write: "never",
        // A user's test run leaves no cell-time cache in their node_modules.
        keepCellTimes: false,
        replay: {
          ...(options.timeoutMs !== undefined ? { timeouts: { ceilingMs: options.timeoutMs } } : {}),
          ...(options.module !== undefined ? { modulePath: path.resolve(cwd, options.module) } : {}),
        },
      },
      { cwd, ci: false },
    ),
  );
  if (run.cells.length !== 1) throw new UsageError(`no recording ${options.provider}/${options.cell} under ${root}`);
  const cell = run.cells[0]!;
  // The advice repeats what this call was given, as paths relative to the test's cwd: without
  // them it named the package's defaults, which from a user's project resolve into node_modules.
  const relative = (p: string) => path.relative(cwd, path.resolve(cwd, p)) || ".";
  const flags: RunFlags = {
    recordings: [relative(root)],
    lanes: relative(options.lanes ?? ORACLES_DIR),
    ...(options.module !== undefined ? { module: relative(options.module) } : {}),
    ...(options.allowlists !== undefined && options.allowlists.length > 0 ? { allowlist: options.allowlists.map(relative) } : {}),
  };
  return { ...cell, text: renderCellText(cell, { color: false, flags }) };
}
