/**
 * A recording with a cut in it passes its own check (issue 37, build point 7). Redaction keeps a
 * string over `TRIM_OVER_CHARS` characters as its head, a mark and its tail
 * (harness/recording/redact.ts); it does so in each lane line on its own, so the bridge's recorded
 * output was cut from the whole text while, in a replay, the bridge sees only the cut input and
 * writes what it makes of that: a bridge that strips or joins output writes something else, and the
 * fresh recording failed `parity check` for several agents. The cut is made once, in the inputs the
 * replay feeds, and the bridge's lane is taken from a replay of them: right after `record` writes a
 * recording holding a mark, it is rerecorded in place (`bridge→runtime.current.ndjson` beside it
 * when its own bridge lane no longer assembles to the live lane, and its oracle), exactly as
 * `parity rerecord` would. The mark stays in the lanes, so the cut is visible wherever it shows.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LANE_DIRECTIONS, laneFileName } from "../recording/lane-entry.js";
import { countTrimMarkers, type Redactor } from "../recording/redact.js";
import { rerecordCells, type RerecordOutcome } from "../rerecord/rerecord-cells.js";

/** What {@link replayCutRecording} did: how many cut marks the recording holds, and the rerecord's outcome when there were any. */
export interface CutReplay {
  cut: number;
  outcome?: RerecordOutcome;
}

/**
 * Counts the cut marks of the recording at `dir` (its four lanes) and, when there are any,
 * rerecords it in place with its oracle in `lanesDir` (see the module comment).
 */
export async function replayCutRecording(location: { provider: string; cell: string; dir: string }, lanesDir: string, redactor: Redactor): Promise<CutReplay> {
  let cut = 0;
  for (const direction of LANE_DIRECTIONS) {
    const text = await readFile(path.join(location.dir, laneFileName(direction)), "utf8").catch(() => "");
    cut += countTrimMarkers(text);
  }
  if (cut === 0) return { cut };
  const [outcome] = await rerecordCells({ locations: [location], lanesDir, redactor });
  return { cut, ...(outcome !== undefined ? { outcome } : {}) };
}
