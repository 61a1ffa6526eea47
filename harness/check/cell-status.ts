/**
 * The one table that turns what happened to a checked cell into its status (docs/design/00-product.md flows
 * 2–3; spec 10 §6): the comparison's verdict, the replay's outcome and the oracle's state. Every
 * status `compareCell` reports comes from here.
 */
import type { CellStatus } from "../report/check-report.js";

/** How the replay ended: whole, diverged (the bridge wrote what the recording did not expect), its bridge exited early, or the wall-clock ceiling hit. */
export type ReplayOutcome = "clean" | "diverged" | "bridge-exited" | "timeout";

/**
 * The oracle's state for this cell: `compared` (read and compared), `none` (a recording outside
 * the project: there is no oracle to hold it to), `written` (it was missing and the write policy
 * wrote it in place), `pending` (it was missing and the live lane waits as `<oracle>.pending`),
 * `missing` (it was missing and nothing was written: policy `never`).
 */
export type OracleState = "compared" | "none" | "written" | "pending" | "missing";

/**
 * The truth check's outcome: `true` (no unmasked untruth), `untrue` (an untruth no entry masks, or
 * an expected facts file missing), `unjudged` (no facts yet, or a recording outside the project).
 */
export type TruthOutcome = "true" | "untrue" | "unjudged";

/** What the status depends on. `verdictPassed`: no unmasked difference and no stale allowlist entry. */
export interface CellOutcome {
  verdictPassed: boolean;
  replay: ReplayOutcome;
  oracle: OracleState;
  /** Absent: as `unjudged`. */
  truth?: TruthOutcome;
}

/**
 * The cell's status. A timed-out replay has no verdict (`timeout`), whatever else is true; a
 * missing oracle that was not written in place fails (CI, as snapshot tools do; elsewhere until
 * its pending result is accepted); a divergence or a bridge that exited fails; then the
 * verdict decides; a lane the same as its oracle that contradicts its facts is `untrue`.
 *
 * | replay | oracle | verdict | truth | status |
 * |---|---|---|---|---|
 * | timeout | any | any | any | `timeout` |
 * | clean, diverged, exited | missing, pending | any | any | `fail` |
 * | diverged, exited | compared, none, written | any | any | `fail` |
 * | clean | compared, none, written | failed | any | `fail` |
 * | clean | compared, none, written | passed | untrue | `untrue` |
 * | clean | compared, none, written | passed | true, unjudged | `pass` |
 */
export function cellStatus(outcome: CellOutcome): CellStatus {
  if (outcome.replay === "timeout") return "timeout";
  if (outcome.oracle === "missing" || outcome.oracle === "pending") return "fail";
  if (outcome.replay !== "clean") return "fail";
  if (!outcome.verdictPassed) return "fail";
  return outcome.truth === "untrue" ? "untrue" : "pass";
}
