/**
 * The `github` reporter: GitHub Actions workflow commands that attach to the PR's files.
 *
 * - A failing cell gives one short `::error` per difference group (a run of adjacent changed
 *   events, see {@link differenceGroups}) on its oracle file, with `line=` at the first differing
 *   event of the group; stale allowlist entries and divergences one each.
 * - A cell whose input could not be read gives one `::error` on that file and line.
 * - A skipped cell gives one `::notice`.
 * - Then the summary as a plain line.
 *
 * `file=` is relative to `cwd` (the project root, where CI checks the repository out) whenever
 * the file is inside it, because GitHub attaches annotations only to repository-relative paths.
 * Messages stay short (at most {@link MAX_ANNOTATION_CHARS} characters): the full diff is in
 * the text reporter.
 */
import path from "node:path";
import type { AllowlistEntry, LoadedAllowlistEntry } from "../compare/allowlist.js";
import type { ParityDifference } from "../compare/parity.js";
import type { CellResult, CheckRunResult } from "./check-report.js";
import { toCheckReport } from "./check-report.js";
import { diffHunks, truncate } from "./text.js";
import { shownPath } from "../recording/paths.js";
import { visible } from "./visible.js";

/** Longest annotation message, in characters, before escaping. */
export const MAX_ANNOTATION_CHARS = 400;

/** Differences named per annotation before "… N more". */
const NAMED_PER_GROUP = 3;

/**
 * Most annotations of one kind GitHub shows for a step (it keeps 10 errors, 10 warnings and 10
 * notices per step, 50 per job): past it, the last error annotation names the rest.
 */
export const MAX_ANNOTATIONS_PER_STEP = 10;

/** Options of {@link renderGithubReport}. */
export interface GithubOptions {
  /** Where the run was started; relative file names resolve against it (default: the process working directory). */
  cwd?: string;
  /**
   * The repository root annotations are relative to: `GITHUB_WORKSPACE` under Actions, so a
   * package in a subdirectory still annotates its files (default: `cwd`).
   */
  workspace?: string;
}

/** Escapes a workflow-command message (`%`, CR, LF). */
export function escapeCommandData(text: string): string {
  // Then made visible (harness/report/visible.ts): any other control character from a file reaches the log as `\uXXXX`.
  return visible(text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A"));
}

/** Escapes a workflow-command property value (message escapes plus `:` and `,`). */
export function escapeCommandProperty(text: string): string {
  return escapeCommandData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `file` relative to `cwd` with `/` separators when inside it, else as given. */
export function repoRelative(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file.split(path.sep).join("/");
  return shownPath(file, cwd).split(path.sep).join("/");
}

interface Annotation {
  kind: "error" | "notice";
  file: string;
  line?: number;
  title: string;
  message: string;
}

function render(a: Annotation, cwd: string, workspace: string): string {
  const props = a.file === "" ? [] : [`file=${escapeCommandProperty(repoRelative(path.resolve(cwd, a.file), workspace))}`];
  if (a.line !== undefined) props.push(`line=${a.line}`);
  props.push(`title=${escapeCommandProperty(a.title)}`);
  return `::${a.kind} ${props.join(",")}::${escapeCommandData(truncate(a.message.replace(/\n+$/, ""), MAX_ANNOTATION_CHARS))}`;
}

/** One group of differences of one comparison: adjacent changed events, or the counters. */
export interface DifferenceGroup {
  against: string;
  /** Position of the first differing event in the expected lane (oracle or recording), if any. */
  expectedIndex?: number;
  diffs: ParityDifference[];
}

/**
 * Splits a verdict's differences into groups: per comparison, one group per hunk of adjacent
 * changed events (the text reporter's hunks without context), plus one group for differences
 * that name no event (unhandled count, grammar drops). Groups come in lane order.
 */
export function differenceGroups(cell: CellResult): DifferenceGroup[] {
  const verdict = cell.detail?.verdict;
  if (!verdict) return cell.diffs.length === 0 ? [] : [{ against: cell.diffs[0]!.against, diffs: [] }];
  const groups: DifferenceGroup[] = [];
  // When the recording differs from the live lane exactly as the oracle does, its groups would
  // repeat the oracle's: they are annotated once, on the oracle.
  const key = (d: ParityDifference) => JSON.stringify([d.layer, d.op, d.path, d.old ?? null, d.new ?? null]);
  const onOracle = new Set(verdict.diffs.filter((d) => d.against === "oracle").map(key));
  for (const comparison of verdict.comparisons) {
    const diffs = verdict.diffs.filter((d) => d.against === comparison.against);
    if (diffs.length === 0) continue;
    if (comparison.against !== "oracle" && onOracle.size > 0 && diffs.every((d) => onOracle.has(key(d)))) continue;
    const taken = new Set<ParityDifference>();
    for (const hunk of diffHunks(comparison.lines, 0)) {
      const olds = new Set(hunk.flatMap((l) => (l.kind === "added" ? [] : [l.oldIndex])));
      const news = new Set(hunk.flatMap((l) => (l.kind === "removed" ? [] : [l.newIndex])));
      const mine = diffs.filter((d) => !taken.has(d) && (d.oldIndex !== undefined ? olds.has(d.oldIndex) : d.newIndex !== undefined && news.has(d.newIndex)));
      if (mine.length === 0) continue;
      for (const d of mine) taken.add(d);
      const at = comparison.lines.indexOf(hunk[0]!);
      const next = comparison.lines.slice(at).find((l) => l.kind !== "added");
      const expectedIndex = next === undefined ? comparison.expectedEvents : next.oldIndex;
      groups.push({ against: comparison.against, expectedIndex, diffs: mine });
    }
    const rest = diffs.filter((d) => !taken.has(d));
    if (rest.length > 0) groups.push({ against: comparison.against, diffs: rest });
  }
  return groups;
}

function describeDiff(d: ParityDifference): string {
  const value = (v: unknown) => (v === undefined ? "(absent)" : truncate(JSON.stringify(v) ?? "null", 40));
  const values = d.op === "replace" ? `${value(d.old)} → ${value(d.new)}` : d.op === "add" ? value(d.new) : value(d.old);
  return d.address !== undefined ? `${d.op} ${d.address} ${values} (${d.path})` : `${d.op} ${d.path} ${values}`;
}

function groupMessage(cell: CellResult, group: DifferenceGroup): string {
  const where = group.expectedIndex === undefined ? "" : ` at ${group.against} event ${group.expectedIndex}`;
  const head = `${group.diffs.length} ${group.diffs.length === 1 ? "difference" : "differences"}${where}`;
  const named = group.diffs.slice(0, NAMED_PER_GROUP).map(describeDiff);
  const more = group.diffs.length > NAMED_PER_GROUP ? [`… ${group.diffs.length - NAMED_PER_GROUP} more`] : [];
  return [`${head}:`, ...named, ...more, `full diff: parity check --provider ${cell.provider} --cell ${cell.cell}`].join("\n");
}

function oracleFileOf(cell: CellResult): string {
  return cell.detail?.oracleFile ?? `lanes/${cell.provider}/${cell.cell}.json`;
}

function cellAnnotations(cell: CellResult): Annotation[] {
  const title = `parity ${cell.provider}/${cell.cell}`;
  if (cell.status === "skip") {
    return [{ kind: "notice", file: oracleFileOf(cell), title, message: `skipped: ${cell.detail?.skipReason ?? "not replayable"}` }];
  }
  if (cell.status === "timeout") {
    return [{ kind: "error", file: oracleFileOf(cell), title, message: cell.detail?.error ?? "infrastructure timeout" }];
  }
  if (cell.status === "error") {
    const at = cell.detail?.errorAt;
    return [{ kind: "error", file: at?.file ?? oracleFileOf(cell), ...(at?.line !== undefined ? { line: at.line } : {}), title, message: cell.detail?.error ?? "unreadable input" }];
  }
  if (cell.status !== "fail") return [];
  const out: Annotation[] = [];
  const lines = cell.detail?.oracleEventLines;
  const fieldLines = cell.detail?.oracleFieldLines;
  const verdictDiffs = cell.detail?.verdict?.diffs ?? [];
  for (const group of differenceGroups(cell)) {
    const onOracle = group.against === "oracle";
    // The changed field's own line when known (an added event has none: the event it precedes).
    const field = onOracle && fieldLines !== undefined ? group.diffs.map((d) => fieldLines[verdictDiffs.indexOf(d)]).find((l) => l !== undefined) : undefined;
    const line = field ?? (onOracle && group.expectedIndex !== undefined && lines !== undefined ? lines[Math.min(group.expectedIndex, lines.length - 1)] : undefined);
    out.push({ kind: "error", file: oracleFileOf(cell), ...(line !== undefined ? { line } : {}), title, message: groupMessage(cell, group) });
  }
  for (const entry of cell.stale) {
    const source = (entry as Partial<LoadedAllowlistEntry>).source;
    out.push({
      kind: "error",
      file: source?.file ?? oracleFileOf(cell),
      title,
      message: `stale allowlist entry${source ? ` ${source.index}` : ""}: ${(entry as AllowlistEntry).path} (${entry.pr}) masks no difference in this cell (every value it selects is equal on both sides); remove it: parity allow --prune`,
    });
  }
  if (cell.divergences.length > 0) {
    const first = cell.divergences[0]!;
    out.push({
      kind: "error",
      file: oracleFileOf(cell),
      title,
      message: `${cell.divergences.length} replay ${cell.divergences.length === 1 ? "divergence" : "divergences"}; first at seq ${first.seq}: expected ${truncate(first.expected, 120)}`,
    });
  }
  if (out.length === 0) out.push({ kind: "error", file: oracleFileOf(cell), title, message: cell.detail?.error ?? "failed" });
  return out;
}

/** `X passed, Y failed, Z skipped[, N unreadable] (C cells)`. */
function counts(run: CheckRunResult): string {
  const report = toCheckReport(run);
  const errors = report.errors > 0 ? `, ${report.errors} unreadable` : "";
  return `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped${errors} (${run.cells.length} ${run.cells.length === 1 ? "cell" : "cells"})`;
}

/**
 * Renders a run as workflow commands (see the module comment), newline-terminated. GitHub shows
 * {@link MAX_ANNOTATIONS_PER_STEP} annotations of a kind per step, so at most that many errors are
 * written, the last of them the summary annotation (`title=parity summary`: the counts, and the
 * cells whose annotations did not fit); notices (skipped cells) are capped the same way. Then
 * the counts as a plain line.
 */
export function renderGithubReport(run: CheckRunResult, options: GithubOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  const workspace = options.workspace ?? cwd;
  const all = run.cells.flatMap((cell) => cellAnnotations(cell));
  const errors = all.filter((a) => a.kind === "error");
  const notices = all.filter((a) => a.kind === "notice");
  const room = MAX_ANNOTATIONS_PER_STEP - 1;
  const shown = [...errors.slice(0, room), ...notices.slice(0, errors.length > 0 ? MAX_ANNOTATIONS_PER_STEP : room)];
  const left = [...errors.slice(room), ...notices.slice(errors.length > 0 ? MAX_ANNOTATIONS_PER_STEP : room)];
  const leftCells = [...new Set(left.map((a) => a.title.replace(/^parity /, "")))];
  const rest =
    left.length === 0
      ? ""
      : `; ${left.length} more ${left.length === 1 ? "annotation" : "annotations"} left out (GitHub shows ${MAX_ANNOTATIONS_PER_STEP} per step), for ${leftCells.join(", ")}: the job summary lists every cell`;
  const lines = shown.map((a) => render(a, cwd, workspace));
  lines.push(`::${errors.length > 0 ? "error" : "notice"} title=${escapeCommandProperty("parity summary")}::${escapeCommandData(truncate(`parity: ${counts(run)}${rest}`, 2000))}`);
  lines.push(`parity: ${counts(run)}`);
  return `${lines.join("\n")}\n`;
}

/** Escapes text for a Markdown table cell (pipes, newlines, HTML). */
function markdownCell(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
}

/**
 * The job summary GitHub shows on the run's page (`$GITHUB_STEP_SUMMARY`, Markdown): the counts,
 * then one table row per cell that did not pass — its status, what failed, and the command that
 * shows its whole diff. Newline-terminated.
 */
export function renderGithubStepSummary(run: CheckRunResult): string {
  const out = ["### parity check", "", counts(run), ""];
  const notPassing = run.cells.filter((cell) => cell.status !== "pass");
  if (notPassing.length === 0) return `${out.join("\n")}\n`;
  out.push("| cell | status | what | full diff |", "|---|---|---|---|");
  for (const cell of notPassing) {
    const what = cell.status === "skip" ? (cell.detail?.skipReason ?? "skipped") : cellSummary(cell);
    out.push(`| ${markdownCell(`${cell.provider}/${cell.cell}`)} | ${cell.status} | ${markdownCell(what)} | \`parity check --provider ${cell.provider} --cell ${cell.cell}\` |`);
  }
  return `${out.join("\n")}\n`;
}

/** One line on what failed in a cell: differences, stale entries, divergences, or its error's first line. */
function cellSummary(cell: CellResult): string {
  const parts: string[] = [];
  const distinct = new Set(cell.diffs.map((d) => JSON.stringify([d.layer, d.op, d.path, d.old ?? null, d.new ?? null]))).size;
  if (distinct > 0) parts.push(`${distinct} ${distinct === 1 ? "difference" : "differences"}`);
  if (cell.stale.length > 0) parts.push(`${cell.stale.length} stale allowlist ${cell.stale.length === 1 ? "entry" : "entries"}`);
  if (cell.divergences.length > 0) parts.push(`${cell.divergences.length} ${cell.divergences.length === 1 ? "divergence" : "divergences"}`);
  if (parts.length === 0 && cell.detail?.error) parts.push(cell.detail.error.split("\n")[0]!);
  return parts.join(", ") || cell.status;
}
