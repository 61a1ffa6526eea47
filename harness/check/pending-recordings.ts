/**
 * New recordings the project does not have yet, waiting for `parity review` (issue 41): a pending
 * whole recording (write-policy.ts `pendingRecordingDir`) with nothing accepted in its place —
 *
 * - a pending new cell, `recordings/<p>/.<cell>.pending/` with no `recordings/<p>/<cell>/`
 *   (`parity drift --accept` of a cell the project lacks);
 * - a pending alternate path of a cell, `recordings/<p>/<cell>/alternates/.<k>.pending/`
 *   (`parity record --repeat N --keep-alternates`, harness/recording/alternates.ts).
 *
 * Each is returned as the location it will have once accepted, so the review walks it like any
 * cell with pending results (harness/cli/review-pending.ts) and accepts it by renaming. The gate
 * never replays them (the recordings listing skips dot folders), and `check -u` does not accept
 * them: accepting a new recording is a decision about the agent, not a refresh of what the bridge
 * makes from recordings the project already has, so it is `parity review`'s (the notice below).
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { alternateCellName, ALTERNATES_DIR, acceptedAlternateNumbers, pendingAlternateNumbers } from "../recording/alternates.js";
import type { RecordingLocation } from "../recording/locations.js";
import { shownPath } from "../recording/paths.js";
import type { CellFilter } from "../recording/select.js";
import { PENDING_SUFFIX } from "./write-policy.js";

/** True when `name` is an existing folder's name in `names`. */
const has = (names: readonly string[], name: string) => names.includes(name);

/**
 * The pending new recordings under `roots` (see the module comment), narrowed by `filter`
 * (`--cell resume` keeps the cell's pending alternates), sorted by provider, cell, then number.
 * A root or folder that cannot be read has none.
 */
export async function listPendingRecordings(roots: readonly string[], filter: CellFilter = {}): Promise<RecordingLocation[]> {
  const found: RecordingLocation[] = [];
  const form = new RegExp(`^\\.(.+)${PENDING_SUFFIX.replace(".", "\\.")}$`);
  for (const root of roots) {
    for (const provider of await readdir(root).catch(() => [] as string[])) {
      if (provider.startsWith(".") || (filter.provider !== undefined && provider !== filter.provider)) continue;
      const providerDir = path.join(root, provider);
      const names = await readdir(providerDir).catch(() => [] as string[]);
      for (const name of names) {
        const pendingCell = form.exec(name)?.[1];
        if (pendingCell !== undefined && !has(names, pendingCell) && (filter.cell === undefined || filter.cell === pendingCell)) {
          found.push({ provider, cell: pendingCell, dir: path.join(providerDir, pendingCell) });
        }
        if (name.startsWith(".") || (filter.cell !== undefined && filter.cell !== name)) continue;
        const cellDir = path.join(providerDir, name);
        const accepted = await acceptedAlternateNumbers(cellDir);
        for (const k of await pendingAlternateNumbers(cellDir)) {
          if (accepted.includes(k)) continue;
          found.push({ provider, cell: alternateCellName(name, k), dir: path.join(cellDir, ALTERNATES_DIR, String(k)), alternateOf: name, alternate: k });
        }
      }
    }
  }
  const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return found.sort((a, b) => byText(a.provider, b.provider) || byText(a.alternateOf ?? a.cell, b.alternateOf ?? b.cell) || (a.alternate ?? 1) - (b.alternate ?? 1));
}

/**
 * The line `check -u` (and a plain `check`) prints when new recordings wait (see the module
 * comment), "" for none: how many, the first few by name, and that `parity review` accepts them.
 */
export function pendingRecordingsNotice(pending: readonly RecordingLocation[], cwd: string): string {
  if (pending.length === 0) return "";
  const names = pending.slice(0, 3).map((l) => `${l.provider}/${l.cell}`);
  const more = pending.length > names.length ? ` and ${pending.length - names.length} more` : "";
  const shown = shownPath(path.dirname(pending[0]!.dir), cwd);
  return `parity: ${pending.length} new ${pending.length === 1 ? "recording waits" : "recordings wait"} for parity review (${names.join(", ")}${more}; e.g. under ${shown}); check -u accepts only oracles of recordings the project has, parity review shows and accepts or rejects a new one\n`;
}
