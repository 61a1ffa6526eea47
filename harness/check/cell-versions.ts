/**
 * The CLI versions of each checked cell (issue 41 build point 4): its recording's (the manifest's
 * `cliVersion`) and the one its oracle was accepted from (the oracle's version sidecar,
 * harness/recording/oracle-version.ts), read once the cells are checked and any oracle written,
 * so every reporter can say them in its header and name a cell whose two versions differ.
 */
import type { CellResult } from "../report/check-report.js";
import { readOracleVersion, recordingCliVersion } from "../recording/oracle-version.js";
import type { RecordingLocation } from "../recording/reader.js";

/**
 * Sets `versions` on each cell of `cells` that has a location in `locations` and was replayed
 * (not `error`, `skip` or `timeout`): the oracle's is read only where the cell was held against an
 * oracle file (`detail.oracleFile`), else null.
 * @throws InputError for a version sidecar that is there but malformed (readOracleVersion)
 */
export async function attachCellVersions(cells: CellResult[], locations: readonly RecordingLocation[]): Promise<void> {
  const byName = new Map(locations.map((l) => [`${l.provider}/${l.cell}`, l]));
  for (const cell of cells) {
    const location = byName.get(`${cell.provider}/${cell.cell}`);
    if (location === undefined || (cell.status !== "pass" && cell.status !== "fail" && cell.status !== "untrue")) continue;
    const recording = (await recordingCliVersion(location.dir)) ?? null;
    const oracleFile = cell.detail?.oracleFile;
    const oracle = oracleFile !== undefined ? await readOracleVersion(oracleFile) : null;
    cell.versions = { recording, oracle, differ: recording !== null && oracle !== null && recording !== oracle };
  }
}
