/**
 * `parity allow --prune`: runs the gate over the selected cells and removes every allowlist
 * entry that is stale (it masks no difference, harness/compare/parity.ts) in each cell it applies
 * to, printing each entry it removed. Only from complete verdicts: a timed-out or unreadable cell
 * prunes nothing; an entry that also applies to a recorded cell outside the selection is kept
 * (its difference may live there).
 */
import path from "node:path";
import { entryApplies, loadAllowlists, plainEntry, readAllowlistFile, type LoadedAllowlistEntry } from "../compare/allowlist.js";
import { EXIT_CODES } from "../errors.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { listRecordings } from "../recording/reader.js";
import type { CellResult } from "../report/check-report.js";
import type { RecordingLocation } from "../recording/locations.js";
import { runGate } from "../check/gate.js";
import { gateContextOf, resolveGateOptions } from "./gate-flags.js";
import { hintPath } from "../report/suggest.js";
import { allowJson } from "./allow-json.js";
import type { CliContext } from "./context.js";
import { stringsFlag, type ParsedFlags } from "./options.js";

/** An entry's key across loads: its file and index. */
const keyOf = (entry: LoadedAllowlistEntry) => `${entry.source.file}#${entry.source.index}`;

/**
 * The entries to remove: each applies to at least one checked cell, is stale in every checked
 * cell it applies to, and applies to no recorded cell left unchecked.
 */
export function prunable(
  entries: readonly LoadedAllowlistEntry[],
  checked: ReadonlyArray<{ cell: CellResult; dir: string }>,
  unchecked: ReadonlyArray<{ provider: string; cell: string; dir: string }>,
): LoadedAllowlistEntry[] {
  return entries.filter((entry) => {
    const applying = checked.filter(({ cell, dir }) => entryApplies(entry, cell.provider, cell.cell, dir));
    if (applying.length === 0) return false;
    if (unchecked.some((l) => entryApplies(entry, l.provider, l.cell, l.dir))) return false;
    return applying.every(({ cell }) => cell.stale.some((s) => keyOf(s as LoadedAllowlistEntry) === keyOf(entry)));
  });
}

/**
 * The entries of `entries` a gate run's verdicts let go ({@link prunable}): `cells` are the run's
 * checked cells (skipped ones left out), `locations` their recordings; every recorded cell beside
 * them (under the same roots) that the run did not check keeps the entries that apply to it.
 */
export async function prunableInRun(entries: readonly LoadedAllowlistEntry[], cells: readonly CellResult[], locations: readonly RecordingLocation[]): Promise<LoadedAllowlistEntry[]> {
  const dirOf = new Map(locations.map((l) => [`${l.provider}/${l.cell}`, l.dir]));
  const checked = cells.filter((c) => c.status !== "skip" && dirOf.has(`${c.provider}/${c.cell}`)).map((cell) => ({ cell, dir: dirOf.get(`${cell.provider}/${cell.cell}`)! }));
  const checkedDirs = new Set(checked.map((c) => path.resolve(c.dir)));
  const roots = [...new Set(locations.map((l) => path.dirname(path.dirname(l.dir))))];
  const unchecked = (await listRecordings(roots)).filter((l) => !checkedDirs.has(path.resolve(l.dir)));
  return prunable(entries, checked, unchecked);
}

/**
 * Removes `removed` from their allowlist files (each file rewritten atomically, the other entries
 * kept in order) and prints one line per entry removed unless `say` is false (`--json` says it
 * its own way); returns the files written (absolute).
 */
export async function removeEntries(removed: readonly LoadedAllowlistEntry[], ctx: CliContext, say = true): Promise<string[]> {
  const byFile = new Map<string, Set<number>>();
  for (const entry of removed) byFile.set(entry.source.file, (byFile.get(entry.source.file) ?? new Set()).add(entry.source.index));
  for (const [file, indices] of byFile) {
    const kept = (await readAllowlistFile(file, ctx.cwd)).filter((e) => !indices.has(e.source.index)).map(plainEntry);
    await writeFileAtomic(file, `${JSON.stringify(kept, null, 2)}\n`);
    ctx.wrote?.(file);
  }
  const rel = (file: string) => path.relative(ctx.cwd, file) || file;
  if (!say) return [...byFile.keys()];
  for (const entry of removed) {
    ctx.out(`pruned ${rel(entry.source.file)} entry ${entry.source.index}: ${entry.provider}/${entry.cell} ${entry.path} (${entry.pr}): masks no difference in any cell it applies to\n`);
  }
  return [...byFile.keys()];
}

/**
 * Runs the prune (see the module comment). Exit 0 when the gate then has nothing else failing,
 * 1 when cells still fail for other reasons, 4 (nothing removed) when a cell timed out, 2 when one
 * was unreadable. With `json`, one object instead of text (harness/cli/allow-json.ts).
 */
export async function pruneAllowlists(args: ParsedFlags, ctx: CliContext, json = false): Promise<number> {
  // Pruning reads verdicts only: this gate run never writes an oracle (write-policy.ts).
  const options = await resolveGateOptions(args, ctx.cwd);
  const gate = await runGate({ ...options, write: "never" }, gateContextOf(ctx));
  const incomplete = gate.run.cells.filter((c) => c.status === "timeout" || c.status === "error");
  if (incomplete.length > 0) {
    if (json) ctx.out(allowJson({ action: "prune", written: [], pruned: [], incomplete: incomplete.map((c) => ({ provider: c.provider, cell: c.cell, status: c.status })) }));
    else ctx.out(`nothing pruned: no complete verdict for ${incomplete.map((c) => `${c.provider}/${c.cell} (${c.status})`).join(", ")}\n`);
    return incomplete.some((c) => c.status === "error") ? EXIT_CODES.inputError : EXIT_CODES.infrastructureTimeout;
  }
  const entries = await loadAllowlists({ cwd: ctx.cwd, files: stringsFlag(args, "allowlist") });
  const removed = await prunableInRun(entries, gate.run.cells, gate.locations);
  const files = await removeEntries(removed, ctx, !json);
  const rel = (file: string) => path.relative(ctx.cwd, file) || file;
  if (json) {
    const shown = (file: string) => hintPath(file, ctx.cwd);
    const pruned = removed.map((e) => ({ file: shown(e.source.file), index: e.source.index, entry: plainEntry(e) }));
    ctx.out(allowJson({ action: "prune", written: files.map(shown), pruned, incomplete: [] }));
  } else {
    ctx.out(removed.length === 0 ? "no stale allowlist entry\n" : `to commit:\n  git add ${files.map(rel).join(" ")}\n`);
  }
  const prunedKeys = new Set(removed.map(keyOf));
  const stillFailing = gate.run.cells.some((c) => c.status === "fail" && (c.diffs.length > 0 || c.divergences.length > 0 || c.stale.some((s) => !prunedKeys.has(keyOf(s as LoadedAllowlistEntry)))));
  return stillFailing ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
}
