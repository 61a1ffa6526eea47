/**
 * A fresh re-record held to a cell whose agent takes more than one path (issue 41, "When the agent
 * itself varies"; harness/recording/alternates.ts): when the live lane does not match the cell's
 * oracle made from another run (after the run-to-run rules), it is compared, the same way, with
 * each accepted alternate's oracle (`<lanes>/<p>/<cell>/alternates/<k>.json`), in order. The
 * first that matches is the cell's verdict, named ("agent took alternate path 2 of cell resume");
 * when none does, the closest (fewest differences) is named and the cell fails on its own oracle
 * as before. Only for an oracle from another run: a recording replayed against its own oracle is
 * the bridge's regression test, and another path of the agent is no excuse there.
 */
import { relative, sep } from "node:path";
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import { compareParity, type CompareParityInput, type ParityLeg, type ParityVerdict } from "../compare/parity.js";
import { alternateOracles } from "../recording/alternates.js";
import type { AlternatePath } from "../report/check-report.js";

/** What {@link matchAlternate} found: the matching alternate with its verdict, or the closest one. */
export type AlternateOutcome = { matched: AlternatePath; verdict: ParityVerdict<LoadedAllowlistEntry> } | { matched?: undefined; closest?: AlternatePath & { differences: number }; tried: number };

/**
 * Compares the live lane with each accepted alternate oracle of `cell` (see the module comment).
 * @param base the cell's comparison input (its `oracle` is replaced by each alternate's; `oracleFromAnotherRun` is set)
 * @param lanesDir the oracles root, absolute
 * @param projectDir the project: each alternate's oracle is named relative to it (absolute outside it)
 * @param readLeg reads an oracle file as a leg (compare-cell.ts `readOracleLeg`, passed in: that module calls this one)
 * @throws InputError for an alternate oracle that cannot be read (as the cell's own oracle)
 */
export async function matchAlternate(
  base: Omit<CompareParityInput<LoadedAllowlistEntry>, "oracle"> & { live: ParityLeg; recorded: ParityLeg },
  lanesDir: string,
  cell: string,
  projectDir: string,
  readLeg: (file: string) => Promise<ParityLeg>,
): Promise<AlternateOutcome> {
  const oracles = await alternateOracles(lanesDir, base.provider, cell);
  let closest: (AlternatePath & { differences: number }) | undefined;
  for (const { path, file } of oracles) {
    const oracle = await readLeg(file);
    const verdict = compareParity({ ...base, oracle, oracleFromAnotherRun: true });
    const inProject = relative(projectDir, file);
    const against = { path, of: cell, oracle: inProject.startsWith("..") ? file : inProject.split(sep).join("/") };
    if (verdict.passed) return { matched: against, verdict };
    const differences = verdict.diffs.filter((d) => d.against === "oracle").length;
    if (closest === undefined || differences < closest.differences) closest = { ...against, differences };
  }
  return { ...(closest !== undefined ? { closest } : {}), tried: oracles.length };
}
