/**
 * The one builder of a cross-run comparison: a thread lane held to a lane of ANOTHER live run of
 * the same cell (harness/compare/run-to-run.ts). Every caller that compares two runs builds its
 * input here, so none of them loses a rule's reference:
 *
 * - `parity check` of a fresh re-record against the committed oracles (gate.ts, compare-cell.ts,
 *   and the accepted alternates, alternate-match.ts);
 * - `parity record --repeat N --keep-alternates`, each run held to the cell's known paths
 *   (cli/keep-alternates.ts);
 * - `parity record --repeat N`'s "what varies" and `parity drift`'s sides (cli/drift-report.ts);
 * - `parity review` of a new alternate path against its cell's oracle (cli/review-pending.ts).
 *
 * Rule 5 (a terminal's window of a long output) needs what the cell's facts say each command
 * printed; without it a qwen-code long-output window is a difference in every run (the bug this
 * module closes: keep-alternates kept each window as a new path). The facts are the cell's
 * (`cells/<cell>/facts.json` or its provider variant; an alternate uses its cell's), read once per
 * file, never judged here: facts that cannot be read or are stale leave rule 5 without a reference,
 * which makes it inert, never a reason to stop.
 */
import type { PrintedOutputs } from "../compare/run-to-run.js";
import { printedOutputs } from "../compare/run-to-run.js";
import { loadCellFacts, type CellFactsState } from "./cell-facts.js";

/** What the cross-run rules need of the cells compared: each cell's facts by `provider/cell` (absent: none readable). */
export type CrossRunFacts = ReadonlyMap<string, CellFactsState>;

/** The fields of a `compareParity` input (compare/parity.ts) that make it a cross-run comparison. */
export interface CrossRunInput {
  oracleFromAnotherRun: true;
  /** Rule 5's reference; absent when the cell has no readable facts. */
  printed?: PrintedOutputs;
}

/**
 * The facts of `cells` for {@link crossRunInput}, each file read and checked fresh once.
 * Never throws: facts that cannot be read (or are stale) give an empty map (rule 5 inert).
 * @param cellsRoot the cell definitions root (absolute)
 * @param cells `provider` and the manifest's cell (an alternate's is its cell's)
 */
export async function loadCrossRunFacts(cellsRoot: string, cells: ReadonlyArray<{ provider: string; cell: string }>): Promise<CrossRunFacts> {
  if (cells.length === 0) return new Map();
  return loadCellFacts(cellsRoot, cells).catch(() => new Map<string, CellFactsState>());
}

/**
 * The cross-run part of one cell's comparison input, to spread into `compareParity`'s input (or
 * to fold lanes with, `foldRunToRun(events, input.printed)`).
 * @param facts from {@link loadCrossRunFacts} (undefined: none)
 * @param provider the provider
 * @param cell the manifest's cell (an alternate's is its cell's)
 */
export function crossRunInput(facts: CrossRunFacts | undefined, provider: string, cell: string): CrossRunInput {
  const state = facts?.get(`${provider}/${cell}`);
  return { oracleFromAnotherRun: true, ...(state?.state === "judged" ? { printed: printedOutputs(state.facts) } : {}) };
}
