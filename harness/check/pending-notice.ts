/**
 * What a gate run says about its pending results, aloud (as cargo-insta says "stored new
 * snapshots"): one line with how many `.pending` files it wrote and where, and for the changed
 * cells that got none, one line per reason (a read-only directory, CI=true). Text only; the
 * notice for oracles outside the project is `nothingWrittenNotice` (write-policy.ts).
 */
import path from "node:path";
import type { CellResult } from "../report/check-report.js";
import { shownPath } from "../recording/paths.js";
import type { PendingResult } from "./pending.js";
import { PENDING_SUFFIX, pendingFile, type WritePolicy } from "./write-policy.js";

/** What {@link pendingNotice} reads from a gate run. */
export interface PendingNoticeInput {
  cells: readonly CellResult[];
  /** The run's pending results by `provider/cell` (gate.ts `GateRun.pending`). */
  pending: ReadonlyMap<string, PendingResult>;
  write: WritePolicy;
  /** CI=true: nothing was written because of it. */
  ci: boolean;
  /** The project: paths are shown relative to it. */
  cwd: string;
}

/** At most this many directories are named in the "stored" line; more are counted. */
const SHOWN_DIRS = 3;

/** `1 file`, `2 files`. */
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The lines (each ending in a newline; "" for none) a gate run under `input.write` prints about
 * pending results: under `pending`, `parity: stored N pending files (.pending) for M changed
 * cells in <dirs>; …` when it wrote any, and `parity: not written (no .pending results) for
 * <cells>: <why>` per reason for changed cells that got none; under `never` because of CI, one
 * line saying so when a changed cell would have had some. `in-place` (`check -u`) says what it
 * accepted itself.
 */
export function pendingNotice(input: PendingNoticeInput): string {
  const changed = input.cells.filter((c) => c.status === "fail" && c.divergences.length === 0 && (c.diffs.length > 0 || c.detail?.missingOracle === true));
  if (input.write === "never") {
    return input.ci && changed.length > 0
      ? `parity: nothing written (no ${PENDING_SUFFIX} results) for ${plural(changed.length, "changed cell")}: CI=true, and under CI nothing writes oracles or recordings; run parity check locally, then parity review\n`
      : "";
  }
  if (input.write !== "pending") return "";
  let out = "";
  const written = [...input.pending.values()].flatMap((p) => p.files);
  if (written.length > 0) {
    const cells = [...input.pending.values()].filter((p) => p.files.length > 0).length;
    const dirs = [...new Set(written.map((f) => shownPath(path.dirname(f), input.cwd)))];
    const more = dirs.length - SHOWN_DIRS;
    const where = more <= 0 ? dirs.join(", ") : `${dirs.slice(0, SHOWN_DIRS).join(", ")} and ${more} more ${more === 1 ? "directory" : "directories"}`;
    const example = shownPath(pendingFile(written[0]!), input.cwd);
    out += `parity: stored ${plural(written.length, "pending file")} (${PENDING_SUFFIX}) for ${plural(cells, "changed cell")} in ${where} (e.g. ${example}); review them with parity review, or accept them all with parity check -u\n`;
  }
  const byReason = new Map<string, string[]>();
  for (const [name, result] of input.pending) {
    if (result.problem === undefined) continue;
    byReason.set(result.problem, [...(byReason.get(result.problem) ?? []), name]);
  }
  for (const [why, names] of byReason) out += `parity: not written (no ${PENDING_SUFFIX} results) for ${names.join(", ")}: ${why}\n`;
  return out;
}
