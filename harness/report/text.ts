/**
 * The `text` reporter for people (spec 40 point 9; spec 10 §6.5): per cell a summary line, then
 * for a failing cell the diff with context and a legend, stale entries and divergences, then what
 * to do — the `parity allow …` that would accept each maskable difference and the
 * `parity rerecord …` that would refresh the cell. Colour only when `color` is true.
 */
import { Chalk, type ChalkInstance } from "chalk";
import type { AllowlistEntry, LoadedAllowlistEntry } from "../compare/allowlist.js";
import type { LaneDiffLine } from "../compare/lane-diff.js";
import type { ParityComparison, ParityDifference } from "../compare/parity.js";
import type { CellResult, CheckRunResult } from "./check-report.js";
import { toCheckReport } from "./check-report.js";
import { allowCommand, cellAllowPaths, rerecordCommand } from "./suggest.js";

/** Options of the text renderers. `context` is the number of unchanged events shown around a change. */
export interface TextOptions {
  color: boolean;
  context?: number;
  /** Longest event text shown on one line, in characters (default 160, as the reference prints). */
  width?: number;
  /** Most differences listed per comparison before "… N more" (default 20). */
  maxDiffs?: number;
  /** Most diff lines (events) shown per comparison before "… N more lines" (default 80). */
  maxLines?: number;
}

/** Shortens `text` to `width` characters with an ellipsis. */
export function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** Formats milliseconds for people: `850 ms`, `1.2 s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function sourceOf(entry: AllowlistEntry): string {
  const source = (entry as Partial<LoadedAllowlistEntry>).source;
  return source ? ` (${source.file} entry ${source.index})` : "";
}

/**
 * The text of an event line: its JSON without the blank `threadId`/`providerThreadId` pair that
 * normalization leaves on every event (the legend says so).
 */
function eventText(text: string, width: number): string {
  return truncate(text.replace(/^(\{"type":"[^"\\]*",)"threadId":"","providerThreadId":"",/, "$1"), width);
}

function preview(value: unknown, width: number): string {
  return value === undefined ? "(absent)" : truncate(JSON.stringify(value) ?? "null", width);
}

/** Groups a diff script into hunks: changed lines plus `context` equal lines around them. */
export function diffHunks(lines: readonly LaneDiffLine[], context: number): LaneDiffLine[][] {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((line, index) => {
    if (line.kind === "equal") return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) keep[k] = true;
  });
  const hunks: LaneDiffLine[][] = [];
  let current: LaneDiffLine[] = [];
  lines.forEach((line, index) => {
    if (keep[index]) current.push(line);
    else if (current.length > 0) {
      hunks.push(current);
      current = [];
    }
  });
  if (current.length > 0) hunks.push(current);
  return hunks;
}

function renderComparison(
  comparison: ParityComparison,
  diffs: readonly ParityDifference[],
  c: ChalkInstance,
  options: Required<Omit<TextOptions, "color">>,
): string[] {
  const out: string[] = [];
  const pad = String(Math.max(comparison.expectedEvents, comparison.liveEvents)).length;
  const num = (value: number | undefined) => (value === undefined ? "".padStart(pad) : String(value).padStart(pad));
  out.push(c.bold(`  against ${comparison.against}: ${plural(diffs.length, "difference")}`));
  const hunks = diffHunks(comparison.lines, options.context);
  let budget = options.maxLines;
  for (const [hunkIndex, hunk] of hunks.entries()) {
    if (budget <= 0) {
      const rest = hunks.slice(hunkIndex).reduce((sum, h) => sum + h.length, 0);
      out.push(c.dim(`    … ${rest} more lines in ${hunks.length - hunkIndex} more hunk(s) (--dump-dir writes both lanes)`));
      break;
    }
    budget -= hunk.length;
    const firstOld = hunk.find((l): l is Exclude<LaneDiffLine, { kind: "added" }> => l.kind !== "added");
    const firstNew = hunk.find((l): l is Exclude<LaneDiffLine, { kind: "removed" }> => l.kind !== "removed");
    const oldAt = firstOld ? firstOld.oldIndex : "";
    const newAt = firstNew ? firstNew.newIndex : "";
    out.push(c.cyan(`    @@ -${oldAt} +${newAt} @@`));
    for (const line of hunk) {
      const text = eventText(line.text, options.width);
      if (line.kind === "equal") out.push(c.dim(`      ${num(line.oldIndex)} ${num(line.newIndex)}   ${text}`));
      else if (line.kind === "removed") out.push(c.red(`    - ${num(line.oldIndex)} ${num(undefined)}   ${text}`));
      else out.push(c.green(`    + ${num(undefined)} ${num(line.newIndex)}   ${text}`));
    }
  }
  const listed = diffs.slice(0, options.maxDiffs);
  for (const diff of listed) {
    const values = diff.op === "replace" ? `${preview(diff.old, 60)} → ${preview(diff.new, 60)}` : diff.op === "add" ? preview(diff.new, 60) : preview(diff.old, 60);
    out.push(`    ${c.yellow(diff.op.padEnd(7))} ${c.bold(diff.path)}  ${c.dim(values)}`);
  }
  if (diffs.length > listed.length) out.push(c.dim(`    … ${diffs.length - listed.length} more`));
  return out;
}

function summaryLine(cell: CellResult, c: ChalkInstance): string {
  const label =
    cell.status === "pass" ? c.green("PASS") : cell.status === "fail" ? c.red("FAIL") : cell.status === "error" ? c.red("ERROR") : c.yellow("SKIP");
  if (cell.status === "error") return `${label} ${c.bold(`${cell.provider}/${cell.cell}`)}  ${cell.detail?.error ?? "unreadable input"}`;
  const parts = [`live ${plural(cell.events, "event")}`];
  const verdict = cell.detail?.verdict;
  for (const comparison of verdict?.comparisons ?? []) {
    const u = comparison.unhandled;
    const g = comparison.grammarDrops;
    let text = `${comparison.against} ${comparison.expectedEvents}`;
    if (cell.status === "fail") text += comparison.expectedEvents === 1 ? " event" : " events";
    if (u.expected !== undefined && u.live !== undefined) text += `, unhandled ${u.expected}→${u.live}`;
    if (g.expected && g.live) text += `, grammar drops ${g.expected.length}→${g.live.length}`;
    parts.push(text);
  }
  if (cell.diffs.length > 0) parts.push(plural(cell.diffs.length, "difference"));
  if (cell.stale.length > 0) parts.push(plural(cell.stale.length, "stale entry").replace("entrys", "entries"));
  if (cell.divergences.length > 0) parts.push(plural(cell.divergences.length, "divergence"));
  const reason = cell.detail?.skipReason ? ` — ${cell.detail.skipReason}` : "";
  return `${label} ${c.bold(`${cell.provider}/${cell.cell}`)}  ${parts.join("; ")}  (${formatMs(cell.ms)})${reason}`;
}

/**
 * Renders one cell: the summary line, and for a failing cell its details and what to do.
 * Lines are newline-terminated.
 */
export function renderCellText(cell: CellResult, options: TextOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const resolved = {
    context: options.context ?? 2,
    width: options.width ?? 160,
    maxDiffs: options.maxDiffs ?? 20,
    maxLines: options.maxLines ?? 80,
  };
  const out = [summaryLine(cell, c)];
  if (cell.status !== "fail") return `${out.join("\n")}\n`;
  if (cell.detail?.error) out.push(`  ${c.red(cell.detail.error)}`);

  const verdict = cell.detail?.verdict;
  const failing = verdict?.comparisons.filter((cmp) => verdict.diffs.some((d) => d.against === cmp.against)) ?? [];
  if (verdict && failing.length > 0) {
    out.push(c.dim(`  legend: ${c.red("-")} only in the expected lane (oracle or recording)  ${c.green("+")} only in the live lane  unmarked: unchanged context; columns: expected and live event positions; blank threadId/providerThreadId omitted`));
    for (const comparison of failing) {
      out.push(...renderComparison(comparison, verdict.diffs.filter((d) => d.against === comparison.against), c, resolved));
    }
  } else {
    for (const diff of cell.diffs) out.push(`  ${c.yellow(diff.op.padEnd(7))} ${c.bold(diff.path)}  (against ${diff.against})`);
  }
  for (const entry of cell.stale) {
    out.push(`  ${c.red("stale")} allowlist entry${sourceOf(entry)}: ${entry.path} (${entry.pr}) masks nothing in this cell — delete it or narrow its provider/cell`);
  }
  for (const divergence of cell.divergences) {
    out.push(`  ${c.red("divergence")} at seq ${divergence.seq}: expected ${truncate(divergence.expected, resolved.width)}`);
    out.push(`    got ${divergence.actual === null ? "nothing before the timeout" : truncate(divergence.actual, resolved.width)}`);
  }

  // Without the verdict (a hand-built result) there are no event values, so no selector is offered.
  const diffsWithPositions: Array<{ path: string; op?: string; oldIndex?: number; newIndex?: number; old?: unknown; new?: unknown; layer?: string }> =
    verdict?.diffs ?? cell.diffs;
  const { paths, unmaskable } = cellAllowPaths(diffsWithPositions);
  if (paths.length > 0 || cell.diffs.length > 0 || cell.divergences.length > 0) {
    out.push(c.bold("  what to do:"));
    for (const path of paths.slice(0, 5)) out.push(`    accept it:  ${allowCommand(cell.provider, cell.cell, path, cell.detail?.recordingsRoot)}`);
    if (paths.length > 5) out.push(c.dim(`    … ${paths.length - 5} more paths (see --reporter json)`));
    if (unmaskable) {
      out.push(c.dim("    (key order, counters and events without a selectable type cannot be allowlisted; refresh the oracle instead)"));
    }
    out.push(`    refresh it: ${rerecordCommand(cell.provider, cell.cell, cell.detail?.rerecord)}`);
  }
  return `${out.join("\n")}\n`;
}

/** Renders a whole run: every cell, then `X passed, Y failed, Z skipped (N cells) in T`. */
export function renderTextReport(run: CheckRunResult, options: TextOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const report = toCheckReport(run);
  const body = run.cells.map((cell) => renderCellText(cell, options)).join("");
  const errors = report.errors > 0 ? `, ${report.errors} unreadable` : "";
  const summary = `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped${errors} (${plural(run.cells.length, "cell")}) in ${formatMs(run.ms)}`;
  return `${body}${report.failed + report.errors > 0 ? c.red(summary) : c.green(summary)}\n`;
}
