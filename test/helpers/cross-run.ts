/**
 * What `parity check --recordings <fresh> --lanes lanes` says of a fresh live recording's oracle
 * held against the committed oracle of the same cell: the cross-run comparison of
 * harness/check/compare-cell.ts (`compareParity` with the one cross-run input,
 * harness/check/cross-run.ts: the run-to-run rules with the cell's facts), for the live tests that
 * record a cell again. A live agent's scheduling decides what the rules name (chunks, the order
 * of tools that run together, where a token count lands); everything else must be equal.
 * Stricter than the check in one way: no allowlist entry applies.
 */
import path from "node:path";
import { oracleFromAnotherRun, readOracleOnly } from "../../harness/check/compare-cell.js";
import { crossRunInput, loadCrossRunFacts } from "../../harness/check/cross-run.js";
import { compareParity, type ParityLeg, type ParityVerdict } from "../../harness/compare/parity.js";
import { repoRoot } from "./run-cli.js";

/** A fresh recording (`record --out <root>`: `<root>/<provider>/<cell>`) and the oracle `record` wrote for it. */
export interface FreshRecording {
  dir: string;
  oracleFile: string;
}

/**
 * The cross-run verdict of a fresh recording's oracle against `lanes/<provider>/<cell>.json`.
 * @throws Error when the check would not hold the fresh recording to the committed oracle across
 *   runs (its folder pairs with the project's lanes), so the rules would not apply
 */
export async function crossRunVerdict(provider: string, cell: string, fresh: FreshRecording): Promise<ParityVerdict> {
  const lanes = path.join(repoRoot, "lanes");
  if (!oracleFromAnotherRun(path.resolve(fresh.dir), lanes)) throw new Error(`${fresh.dir}: parity check pairs it with ${lanes}, not another run's oracle`);
  const facts = await loadCrossRunFacts(path.join(repoRoot, "cells"), [{ provider, cell }]);
  const leg = async (file: string): Promise<ParityLeg> => readOracleOnly(file);
  return compareParity({
    provider,
    cell,
    allowlist: [],
    recordingDir: fresh.dir,
    live: await leg(fresh.oracleFile),
    oracle: await leg(path.join(lanes, provider, `${cell}.json`)),
    ...crossRunInput(facts, provider, cell),
  });
}
