/**
 * The `text` reporter for people (spec 40 point 9; spec 10 §6.5): per cell a summary line, then
 * for a failing cell the diff with context and a legend, stale entries and divergences, then what
 * to do — the `parity allow …` that would accept each maskable difference and the
 * `parity rerecord …` that would refresh the cell. Colour only when `color` is true.
 */
import { Chalk, type ChalkInstance } from "chalk";
import type { AllowlistEntry, LoadedAllowlistEntry } from "../compare/allowlist.js";
import type { LaneDiffLine } from "../compare/lane-diff.js";
import { keyedListChange } from "../compare/lane-drift.js";
import { catalogChangeOf, type CatalogChange } from "./catalog-changes.js";
import { isClassWide, type ParityComparison, type ParityDifference } from "../compare/parity.js";
import type { CellReport, CellResult, CheckRunResult } from "./check-report.js";
import { alternateWords, timedOutCount, toCheckReport } from "./check-report.js";
import { allowCommand, cellAllowPaths, rerecordCommand } from "./suggest.js";
import { cellCommand, closingAdvice, failureKind, kindAdvice, type RunFlags } from "./advice.js";
import { windowPair, type WindowedText } from "./change-window.js";
import { visibleLine } from "./visible.js";
import { parseAlternateCellName } from "../recording/alternates.js";
import { cellVersionsNote, versionHeaderLines } from "./versions-text.js";
import { allowTruthHint, findingLines, findingWords, staleTruthLines, truthSummary, truthTable } from "./truth-text.js";

/** Options of the text renderers. `context` is the number of unchanged events shown around a change. */
export interface TextOptions {
  color: boolean;
  context?: number;
  /** Width of a row in characters (the terminal's, else 160 as the reference prints); pasteable commands are never cut. */
  width?: number;
  /** Most differences listed per comparison before "… N more" (default 20). */
  maxDiffs?: number;
  /** Most diff lines (events) shown per comparison before "… N more lines" (default 80). */
  maxLines?: number;
  /** The run's flags, repeated in every suggested command (advice.ts). */
  flags?: RunFlags;
  /** `--explain`: each untruth's evidence lines (seq numbers in the agent-side lanes). */
  explain?: boolean;
  /** The run's catalog changes said once (catalog-changes.ts): a comparison whose every difference is one of them points at it instead of repeating it. */
  catalogs?: readonly CatalogChange[];
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
  return source ? ` (${visibleLine(source.file)} entry ${source.index})` : "";
}

/**
 * The text of an event line: its JSON without the blank `threadId`/`providerThreadId` pair that
 * normalization leaves on every event (the legend says so), cut to `width` characters.
 */
export function eventText(text: string, width: number): string {
  return truncate(strippedEvent(text), width);
}

function strippedEvent(text: string): string {
  return text.replace(/^(\{"type":"[^"\\]*",)"threadId":"","providerThreadId":"",/, "$1");
}

function preview(value: unknown, width: number): string {
  return value === undefined ? "(absent)" : truncate(JSON.stringify(value) ?? "null", width);
}

/** A windowed text with its changed part highlighted (inverse) when colour is on. */
function highlighted(side: WindowedText, c: ChalkInstance): string {
  if (c.level === 0 || side.to <= side.from) return side.text;
  return `${side.text.slice(0, side.from)}${c.inverse(side.text.slice(side.from, side.to))}${side.text.slice(side.to)}`;
}

/**
 * The removed and added event lines of a hunk paired in order (the k-th removed with the k-th
 * added), so each pair is cut around its change; lines without a partner are cut from the right.
 */
function pairedTexts(hunk: readonly LaneDiffLine[], width: number, c: ChalkInstance): Map<LaneDiffLine, string> {
  const removed = hunk.filter((l) => l.kind === "removed");
  const added = hunk.filter((l) => l.kind === "added");
  const out = new Map<LaneDiffLine, string>();
  removed.forEach((line, k) => {
    const partner = added[k];
    if (partner === undefined) return;
    const a = strippedEvent(line.text);
    const b = strippedEvent(partner.text);
    const keep = /^\{"type":"[^"\\]*",/.exec(a)?.[0] ?? "";
    const [oldSide, newSide] = windowPair(a, b, width, keep);
    out.set(line, highlighted(oldSide, c));
    out.set(partner, highlighted(newSide, c));
  });
  return out;
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
  label: string,
  diffs: readonly ParityDifference[],
  listed: readonly ParityDifference[],
  c: ChalkInstance,
  options: Required<Omit<TextOptions, "color" | "flags" | "explain" | "catalogs">>,
): string[] {
  const out: string[] = [];
  const pad = String(Math.max(comparison.expectedEvents, comparison.liveEvents)).length;
  const num = (value: number | undefined) => (value === undefined ? "".padStart(pad) : String(value).padStart(pad));
  const textWidth = Math.max(20, options.width - (10 + 2 * pad));
  out.push(c.bold(`  against ${label}: ${plural(diffs.length, "difference")}`));
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
    const paired = pairedTexts(hunk, textWidth, c);
    for (const line of hunk) {
      const text = paired.get(line) ?? eventText(line.text, textWidth);
      if (line.kind === "equal") out.push(c.dim(`      ${num(line.oldIndex)} ${num(line.newIndex)}   ${text}`));
      else if (line.kind === "removed") out.push(c.red(`    - ${num(line.oldIndex)} ${num(undefined)}   ${text}`));
      else out.push(c.green(`    + ${num(undefined)} ${num(line.newIndex)}   ${text}`));
    }
  }
  const shown = listed.slice(0, options.maxDiffs);
  for (const diff of shown) out.push(...differenceRows(diff, c, options.width));
  if (listed.length > shown.length) out.push(c.dim(`    … ${listed.length - shown.length} more (--reporter json lists them all)`));
  if (listed.length < diffs.length) out.push(c.dim(`    (${plural(diffs.length - listed.length, "more difference")} as listed above)`));
  return out;
}

/**
 * One difference: op, stable address (else the pointer), old → new, then the pointer — on one row
 * when that fits `width`, else the values and pointer on a second row; cut to `width`.
 */
function differenceRows(diff: ParityDifference, c: ChalkInstance, width: number): string[] {
  const where = diff.address ?? diff.path;
  const pointer = diff.address !== undefined ? `  (${diff.path})` : "";
  const values = (room: number) =>
    diff.ids !== undefined
      ? truncate(`id ${diff.ids.old} became ${diff.ids.new}${diff.ids.oldPairedWith !== undefined ? ` (elsewhere ${diff.ids.old} is ${diff.ids.oldPairedWith})` : ""}`, room)
      : diff.op === "replace"
        ? replaced(diff.old, diff.new, Math.floor(room / 2) - 2, c)
        : diff.op === "add"
          ? preview(diff.new, room)
          : preview(diff.old, room);
  const oneRow = width - 14 - where.length - pointer.length;
  if (oneRow >= 24) return [`    ${c.yellow(diff.op.padEnd(7))} ${c.bold(where)}  ${c.dim(values(oneRow))}${c.dim(pointer)}`];
  const head = truncate(where, width - 12);
  const second = width - 12 - pointer.length;
  if (second >= 24) return [`    ${c.yellow(diff.op.padEnd(7))} ${c.bold(head)}`, `            ${c.dim(values(second))}${c.dim(pointer)}`];
  return [`    ${c.yellow(diff.op.padEnd(7))} ${c.bold(head)}`, `            ${c.dim(values(width - 12))}`, c.dim(truncate(`            at ${diff.path}`, width))];
}

/** `old → new`, both cut around their first difference (absent values as `(absent)`), the change highlighted on colour. */
function replaced(oldValue: unknown, newValue: unknown, room: number, c: ChalkInstance): string {
  if (oldValue === undefined || newValue === undefined) return `${preview(oldValue, room)} → ${preview(newValue, room)}`;
  // A list of named things (a command or model catalog) reads as its entries added, removed, changed.
  const entries = keyedListChange(oldValue, newValue);
  if (entries !== undefined) return truncate(`entries ${entries.join(", ")}`, room * 2 + 3);
  const [a, b] = windowPair(JSON.stringify(oldValue) ?? "null", JSON.stringify(newValue) ?? "null", room);
  return `${highlighted(a, c)} → ${highlighted(b, c)}`;
}

/** The identity of a difference across comparisons: same layer, op, pointer and values. */
function differenceKey(diff: ParityDifference): string {
  return JSON.stringify([diff.layer, diff.op, diff.path, diff.old ?? null, diff.new ?? null, diff.ids ?? null]);
}

function summaryLine(cell: CellResult, c: ChalkInstance, width: number): string {
  const label =
    cell.status === "pass"
      ? c.green("PASS")
      : cell.status === "fail"
        ? c.red("FAIL")
        : cell.status === "untrue"
          ? c.red("UNTRUE")
          : cell.status === "timeout"
            ? c.red("TIMEOUT")
            : cell.status === "error"
              ? c.red("ERROR")
              : c.yellow("SKIP");
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
  if (cell.diffs.length > 0) parts.push(plural(distinctDifferences(cell), "difference"));
  if (cell.stale.length > 0) parts.push(plural(cell.stale.length, "stale entry").replace("entrys", "entries"));
  if (cell.divergences.length > 0) parts.push(plural(cell.divergences.length, "divergence"));
  const truth = truthSummary(cell);
  if (truth !== undefined) parts.push(`truth: ${truth}`);
  const reason = cell.detail?.skipReason ? ` — ${cell.detail.skipReason}` : "";
  const plain = `${cell.provider}/${cell.cell}  ${parts.join("; ")}  (${formatMs(cell.ms)})${reason}`;
  const rest = truncate(plain, width - 5).slice(cell.provider.length + cell.cell.length + 1);
  return `${label} ${c.bold(`${cell.provider}/${cell.cell}`)}${rest}`;
}

/** A cell's summary line without colour and uncut: `FAIL provider/cell  live 16 events; …  (1.1 s)`. */
export function cellSummaryLine(cell: CellResult): string {
  return summaryLine(cell, new Chalk({ level: 0 }), 100_000);
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
  const out = [summaryLine(cell, c, resolved.width)];
  const versionsNote = cellVersionsNote(cell.versions);
  if (versionsNote !== undefined) out.push(`  ${c.yellow(versionsNote)}`);
  // Passed on another path of the agent than the cell's own oracle (harness/check/alternate-match.ts).
  if (cell.alternate !== undefined) out.push(`  ${c.cyan(`${alternateWords(cell.alternate)} (${cell.alternate.oracle})`)}`);
  // An infrastructure timeout says what happened and nothing else: no diff, no allowlist advice.
  if (cell.status === "timeout" && cell.detail?.error) out.push(`  ${c.red(cell.detail.error)}`);
  const untruths = (cell.truth?.findings ?? []).flatMap((f) => findingLines(f, options.explain === true, resolved.width - 20));
  if (cell.status === "untrue") {
    if (cell.detail?.error) out.push(`  ${c.red(cell.detail.error)}`);
    out.push(...untruths.map((line) => (line.startsWith("  untrue") ? c.red(line) : line)));
    out.push(...truthWhatToDo(cell, c));
    return `${out.join("\n")}\n`;
  }
  // A passing cell's untruths are our bridge's, warned (defaults.ts BRIDGE_UNTRUTHS): one line each.
  if (cell.status === "pass")
    for (const f of cell.truth?.findings ?? []) out.push(c.yellow(`  untrue (warned) ${f.fact}: ${findingWords(f)} — ${f.item !== undefined ? `${f.item}: ` : ""}${f.field}`));
  if (cell.status !== "fail") return `${out.join("\n")}\n`;
  if (cell.detail?.error) out.push(`  ${c.red(cell.detail.error)}`);

  const verdict = cell.detail?.verdict;
  const failing = verdict?.comparisons.filter((cmp) => verdict.diffs.some((d) => d.against === cmp.against)) ?? [];
  // Catalog changes the same in several cells are said once, in the run's header (catalog-changes.ts).
  const sharedOf = (diffs: readonly ParityDifference[]) => diffs.map((d) => catalogChangeOf(options.catalogs ?? [], cell.provider, cell.cell, d));
  const allShared = (diffs: readonly ParityDifference[]) => diffs.length > 0 && sharedOf(diffs).every((x) => x !== undefined);
  if (verdict && failing.length > 0) {
    if (!failing.every((cmp) => allShared(verdict.diffs.filter((d) => d.against === cmp.against))))
      out.push(
        c.dim(
          truncate(
            `  legend: - only in the expected lane (oracle or recording)  + only in the live lane  unmarked: unchanged context; columns: expected and live event positions; live ids in the expected lane's numbering (' = only live); blank threadId/providerThreadId omitted`,
            resolved.width,
          ),
        ),
      );
    // A difference is shown once: when the oracle and the recording disagree with the live lane
    // in the same way, one block says so instead of two identical ones.
    const seen = new Set<string>();
    const of = (against: string) => verdict.diffs.filter((d) => d.against === against);
    const [first, second] = failing;
    const agree = second !== undefined && of(first!.against).length === of(second.against).length && of(first!.against).every((d, k) => differenceKey(d) === differenceKey(of(second.against)[k]!));
    for (const comparison of agree ? [first!] : failing) {
      const diffs = of(comparison.against);
      const listed = diffs.filter((d) => !seen.has(differenceKey(d)));
      for (const d of diffs) seen.add(differenceKey(d));
      const label = agree ? `${failing.map((f) => f.against).join(" and ")} (they agree)` : comparison.against;
      if (allShared(diffs)) {
        const shared = [...new Set(sharedOf(diffs))].filter((x) => x !== undefined);
        out.push(
          c.bold(`  against ${label}: ${plural(diffs.length, "difference")}, ${shared.length === 1 ? "a catalog change" : `${shared.length} catalog changes`} of ${cell.provider} said once above`),
        );
        for (const x of shared) out.push(`    ${c.yellow("catalog")} ${truncate(`${x.where}  ${catalogValues(x)}  (${x.cells.length} cells)`, resolved.width - 12)}`);
        continue;
      }
      out.push(...renderComparison(comparison, label, diffs, listed, c, resolved));
    }
  } else {
    for (const diff of cell.diffs) out.push(`  ${c.yellow(diff.op.padEnd(7))} ${c.bold(diff.address ?? diff.path)}  (against ${diff.against})`);
  }
  for (const entry of cell.stale) {
    out.push(
      `  ${c.red("stale")} allowlist entry${sourceOf(entry)}: ${visibleLine(entry.path)} (${visibleLine(entry.pr)}) masks no difference ${isClassWide(entry) ? "in any selected cell it applies to" : "in this cell"} (every value it selects is equal on both sides) — remove it: parity allow --prune`,
    );
  }
  for (const divergence of cell.divergences) {
    out.push(`  ${c.red("divergence")} at seq ${divergence.seq}: expected ${truncate(divergence.expected, resolved.width)}`);
    out.push(`    got ${divergence.actual === null ? "nothing: the bridge went idle without it" : truncate(divergence.actual, resolved.width)}`);
  }

  out.push(...untruths);
  out.push(...whatToDo(cell, c, options.flags));
  return `${out.join("\n")}\n`;
}

/**
 * "what to do" for an untrue cell: an untruth of our bridge is fixed in the bridge (never
 * allowed); one of the agent or its adapter can be allowed with a truth entry, tied to a PR.
 */
function truthWhatToDo(cell: CellResult, c: ChalkInstance): string[] {
  const findings = cell.truth?.findings ?? [];
  if (findings.length === 0) return cell.truth?.facts === "missing" ? [c.bold("  what to do:"), `    compute them: parity facts --cell ${cell.cell}`] : [];
  const out = [c.bold("  what to do:")];
  if (findings.some((f) => f.cause === "bridge")) out.push("    fix the bridge: the agent-side lanes carry what the lane lacks (see the evidence: parity check --explain)");
  const agents = findings.filter((f) => f.cause !== "bridge");
  if (agents.length > 0) out.push(c.dim("    an agent's limit (cause adapter or agent) can be allowed, with the PR that found it:"));
  for (const f of agents.slice(0, 3)) out.push(`    allow it:   ${allowTruthHint(cell, f)}`);
  if (agents.length > 3) out.push(c.dim(`    … ${agents.length - 3} more (see --reporter json)`));
  return out;
}

/**
 * "what to do" for a failing cell: the one command that fits its kind of failure (advice.ts),
 * with the run's flags. For a lane change: accept it (`parity check -u`, or `parity rerecord` for
 * a recording outside the project) and, where entries can mask every difference, allow it.
 */
function whatToDo(cell: CellResult, c: ChalkInstance, flags: RunFlags | undefined): string[] {
  const kind = failureKind(cell);
  if (kind === undefined) return [];
  if (kind !== "lane-change") return [c.bold("  what to do:"), `    ${kindAdvice(kind, cell.provider, cell.cell, flags)}`];
  // A new recording (an alternate path, a new cell) has no oracle of its own to update or mask:
  // parity review accepts it whole or rejects it (check -u leaves it waiting).
  if (cell.detail?.newRecording === true) {
    return [c.bold("  what to do:"), `    accept or reject it: ${cellCommand("review", cell.provider, parseAlternateCellName(cell.cell)?.cell ?? cell.cell, flags)}  (accepting gates it as it is)`];
  }
  const out = [c.bold("  what to do:")];
  const accept =
    cell.detail?.oracleFile !== undefined
      ? `    accept it:  ${cellCommand("check", cell.provider, cell.cell, flags, ["-u"])}  (rerecords its oracle)`
      : `    refresh it: ${rerecordCommand(cell.provider, cell.cell, cell.detail?.rerecord, flags?.module)}`;
  out.push(accept);
  // Without the verdict (a hand-built result) there are no event values, so no selector is offered.
  const { paths, unmaskable } = cellAllowPaths(cell.detail?.verdict?.diffs ?? cell.diffs);
  if (unmaskable || paths.length === 0) {
    out.push(
      c.dim(
        '    (counters and events without a selectable type cannot be allowlisted; a grammar drop can, with "layer": "grammar" and "path": "/grammarDrops/<rule>:<eventType>"; else accept the change instead)',
      ),
    );
    return out;
  }
  out.push(c.dim("    or, when it varies from run to run, allow it:"));
  for (const path of paths.slice(0, 3)) out.push(`    allow it:   ${allowCommand(cell.provider, cell.cell, path, cell.detail?.recordingsRoot)}`);
  if (paths.length > 3) out.push(c.dim(`    … ${paths.length - 3} more paths (see --reporter json)`));
  return out;
}

/** How many differences a cell has, one the oracle and the recording share counted once. */
function distinctDifferences(cell: CellResult): number {
  return new Set(cell.diffs.map((d) => JSON.stringify([d.layer, d.op, d.path, d.old ?? null, d.new ?? null, d.ids ?? null]))).size;
}

/** One line per failing cell for the end of a run: `provider/cell: 2 differences, 1 stale entry`. */
function failingSummary(cells: readonly CellResult[], c: ChalkInstance): string[] {
  const failing = cells.filter((cell) => cell.status === "fail" || cell.status === "untrue");
  if (failing.length === 0) return [];
  const lines = [c.bold(`failing cells (${failing.length}):`)];
  for (const cell of failing) {
    const parts: string[] = [];
    const distinct = distinctDifferences(cell);
    if (distinct > 0) parts.push(plural(distinct, "difference"));
    if (cell.stale.length > 0) parts.push(plural(cell.stale.length, "stale entry").replace("entrys", "entries"));
    if (cell.divergences.length > 0) parts.push(plural(cell.divergences.length, "divergence"));
    const untruths = cell.truth?.findings.length ?? 0;
    if (untruths > 0) parts.push(plural(untruths, "untruth"));
    if (cell.detail?.error !== undefined) parts.push(cell.detail.error.split("\n")[0]!);
    lines.push(`  ${c.red(cell.status === "untrue" ? "UNTRUE" : "FAIL")} ${cell.provider}/${cell.cell}: ${parts.join(", ") || "failed"}`);
  }
  return lines;
}

/**
 * Renders a whole run: every cell, then the failing cells one line each, then
 * `X passed, Y failed, Z skipped (N cells) in T`.
 */
export function renderTextReport(run: CheckRunResult, options: TextOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const report = toCheckReport(run);
  const cellOptions = { ...options, ...(run.flags !== undefined && options.flags === undefined ? { flags: run.flags } : {}), catalogs: report.catalogChanges };
  const body = run.cells.map((cell) => renderCellText(cell, cellOptions)).join("");
  // The provider × cell × fact table, when the truth check has something to say (or asked for).
  const untrue = run.cells.some((cell) => (cell.truth?.findings.length ?? 0) > 0 || cell.truth?.facts === "missing");
  const table = untrue || options.explain === true ? truthTable(run.cells) : "";
  const truth = [...(table !== "" ? [c.bold("truth (provider × cell × fact):"), ...table.trimEnd().split("\n")] : []), ...staleTruthLines(run.truthStale ?? []).map((l) => c.red(l))];
  const failing = failingSummary(run.cells, c);
  const timeouts = timedOutCount(run);
  const timedOut = timeouts > 0 ? `, ${timeouts} timed out (infrastructure)` : "";
  const errors = report.errors > 0 ? `, ${report.errors} unreadable` : "";
  const untrueCount = report.untrue > 0 ? `, ${report.untrue} untrue` : "";
  const summary = `${report.passed} passed, ${report.failed} failed${untrueCount}, ${report.skipped} skipped${timedOut}${errors} (${plural(run.cells.length, "cell")}) in ${formatMs(run.ms)}`;
  const next = closingAdvice(run.cells, run.flags ?? options.flags).map((line, k) => (k === 0 ? c.bold(line) : line));
  const bad = report.failed + report.untrue + timeouts + report.errors + report.truthStale.length > 0;
  const header = [...versionHeaderLines(report.versions).map((line) => c.dim(line)), ...catalogHeaderLines(report.catalogChanges, run.cells, c)].map((line) => `${line}\n`).join("");
  return `${header}${body}${[...truth, ...failing, ...next].map((line) => `${line}\n`).join("")}${bad ? c.red(summary) : c.green(summary)}\n`;
}

/** A catalog change's values: its keyed entries (`entries + name=ultrareview`), else `old → new`. */
export function catalogValues(change: CatalogChange): string {
  if (change.entries !== undefined) return `entries ${change.entries.join(", ")}`;
  const show = (v: unknown) => (v === undefined ? "(absent)" : visibleLine(JSON.stringify(v) ?? "null"));
  return change.op === "add" ? show(change.new) : change.op === "remove" ? show(change.old) : `${show(change.old)} → ${show(change.new)}`;
}

/**
 * The run header's catalog lines: a heading, then one line per change with its provider and its
 * cells (`all 13 cells` when they are every cell of the provider in `cells`); none without changes.
 */
export function catalogHeaderLines(changes: readonly CatalogChange[], cells: readonly CellReport[], c: ChalkInstance = new Chalk({ level: 0 })): string[] {
  if (changes.length === 0) return [];
  const where = (x: CatalogChange) =>
    x.cells.length === cells.filter((cell) => cell.provider === x.provider).length ? `all ${x.cells.length} cells` : `${x.cells.length} cells: ${x.cells.map(visibleLine).join(", ")}`;
  return [
    c.bold(`catalog changes: ${changes.length} (the same in several cells of a provider, said once here; each of those cells still fails)`),
    ...changes.map((x) => `  ${c.bold(visibleLine(x.provider))} ${c.yellow(x.op.padEnd(7))} ${visibleLine(x.where)}  ${c.dim(catalogValues(x))}  (against ${x.against}; ${where(x)})`),
  ];
}
