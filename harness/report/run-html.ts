/**
 * `parity check --reporter html` (and `parity merge-reports --reporter html`): one self-contained
 * page of a run — inline CSS and one inline script, no external resource. From the top: the
 * counts per status; filters by status and provider and a search over cell names and their text;
 * then one `<details>` per cell in run order: failing cells open with their diff (the text
 * reporter's rows, changed values with word-level highlighting) and what to do, passing and
 * skipped cells collapsed to their summary line.
 */
import type { ParityDifference } from "../compare/parity.js";
import type { CellResult, CellStatus, CheckRunResult } from "./check-report.js";
import { alternateWords, toCheckReport, timedOutCount } from "./check-report.js";
import { escapeHtml, wordDiffHtml } from "./html-thread.js";
import { catalogValues, cellSummaryLine, formatMs, renderCellText } from "./text.js";
import type { CatalogChange } from "./catalog-changes.js";
import { findingLines, staleTruthLines } from "./truth-text.js";
import { cellVersionsNote, providerVersionsText } from "./versions-text.js";

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.2em 2em; color: #1f2328; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
.counts span { margin-right: 1em; font-weight: 600; }
.s-pass { color: #1a7f37; } .s-fail, .s-error, .s-timeout, .s-untrue { color: #cf222e; } .s-skip { color: #9a6700; }
table.truth { border-collapse: collapse; margin: .4em 0 1em; font-size: 12px; }
table.truth th, table.truth td { border: 1px solid #d0d7de; padding: .15em .5em; text-align: left; }
table.truth td.v-true { color: #1a7f37; } table.truth td.v-lost, table.truth td.v-changed, table.truth td.v-invented { color: #cf222e; font-weight: 600; }
table.truth td.allowed { color: #9a6700; font-weight: normal; }
.filters { position: sticky; top: 0; background: #fff; padding: .5em 0; border-bottom: 1px solid #d0d7de; margin-bottom: .5em; }
.filters label { margin-right: .8em; } .filters input[type=search] { width: 22em; }
details.cell { border: 1px solid #d0d7de; border-radius: 6px; margin: .35em 0; padding: .2em .6em; }
details.cell > summary { cursor: pointer; }
.badge { display: inline-block; min-width: 4.5em; font-weight: 600; }
.key { font-weight: 600; } .sum { color: #57606a; }
pre { font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; background: #f6f8fa; padding: .4em; overflow-x: auto; }
pre .rm { color: #cf222e; } pre .ad { color: #1a7f37; } pre .hk { color: #0969da; }
.change { margin: .3em 0; } .change .where { font-weight: 600; }
.val { font: 12px/1.45 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; padding: 0 .3em; }
.val.old { background: #fff5f5; } .val.new { background: #f3fff5; }
del { background: #ffcecb; } ins { background: #aceebb; text-decoration: none; }
.hidden { display: none; }
#shown { color: #57606a; margin-left: 1em; }
`;

// Filters: a cell is shown when its status box is ticked, its provider is selected (or all), and
// the search text occurs in its name or text (case-insensitive).
const SCRIPT = `
(function () {
  var cells = Array.prototype.slice.call(document.querySelectorAll("details.cell"));
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[name=status]"));
  var provider = document.getElementById("provider");
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  function apply() {
    var statuses = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
    var p = provider.value;
    var q = search.value.trim().toLowerCase();
    var n = 0;
    cells.forEach(function (cell) {
      var ok = statuses.indexOf(cell.dataset.status) !== -1 && (p === "" || cell.dataset.provider === p) && (q === "" || cell.textContent.toLowerCase().indexOf(q) !== -1);
      cell.classList.toggle("hidden", !ok);
      if (ok) n += 1;
    });
    shown.textContent = n + " of " + cells.length + " cells shown";
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  provider.addEventListener("change", apply);
  search.addEventListener("input", apply);
  apply();
})();
`;

const STATUS_WORD: Record<CellStatus, string> = { pass: "PASS", fail: "FAIL", untrue: "UNTRUE", skip: "SKIP", timeout: "TIMEOUT", error: "ERROR" };

/** The text reporter's rows of a failing cell, each coloured by its kind (removed, added, hunk). */
function diffRows(cell: CellResult, flags: CheckRunResult["flags"], catalogs: readonly CatalogChange[]): string {
  const rows = renderCellText(cell, { color: false, width: 200, catalogs, ...(flags !== undefined ? { flags } : {}) })
    .split("\n")
    .slice(1);
  const html = rows.map((row) => {
    const kind = /^ {4}- /.test(row) ? "rm" : /^ {4}\+ /.test(row) ? "ad" : /^ {4}@@/.test(row) ? "hk" : "";
    return kind === "" ? escapeHtml(row) : `<span class="${kind}">${escapeHtml(row)}</span>`;
  });
  return `<pre>${html.join("\n").trimEnd()}</pre>`;
}

/** Each changed value of a failing cell with word-level highlighting (one per distinct difference). */
function changes(cell: CellResult): string {
  const diffs: ReadonlyArray<ParityDifference | CellResult["diffs"][number]> = cell.detail?.verdict?.diffs ?? cell.diffs;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const d of diffs) {
    if (d.op !== "replace" || d.ids !== undefined) continue;
    const key = JSON.stringify([d.path, d.old ?? null, d.new ?? null]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(`<div class="change"><div class="where">${escapeHtml(d.address ?? d.path)} <span class="sum">(${escapeHtml(d.path)})</span></div>${wordDiffHtml(d.old, d.new)}</div>`);
  }
  return out.join("");
}

/** The summary line of a cell without its status word (the text reporter's, uncut). */
function summaryText(cell: CellResult): string {
  return cellSummaryLine(cell)
    .replace(/^\S+ \S+\s*/, "")
    .replace(/\s*\(\d[^)]*\)$/, "");
}

/** The untruths of a cell, one block each, with their evidence (strings made visible). */
function truthRows(cell: CellResult): string {
  const findings = cell.truth?.findings ?? [];
  if (findings.length === 0) return cell.truth?.facts === "missing" ? `<pre>${escapeHtml(cell.truth.note ?? "facts missing")}</pre>` : "";
  return `<pre>${escapeHtml(findings.flatMap((f) => findingLines(f, true, 160)).join("\n"))}</pre>`;
}

/** The provider × cell × fact table of the run as HTML: one table per cell, a row per provider. */
function truthTableHtml(cells: readonly CellResult[]): string {
  const byCell = new Map<string, CellResult[]>();
  for (const cell of cells) if (cell.truth?.facts === "judged") byCell.set(cell.cell, [...(byCell.get(cell.cell) ?? []), cell]);
  if (byCell.size === 0) return "";
  const blocks: string[] = [];
  for (const [name, rows] of byCell) {
    const facts: string[] = [];
    for (const row of rows) for (const j of row.truth!.table) if (!facts.includes(j.fact)) facts.push(j.fact);
    const head = `<tr><th>${escapeHtml(name)}</th>${facts.map((f) => `<th>${escapeHtml(f)}</th>`).join("")}</tr>`;
    const body = rows.map((row) => {
      const of = new Map(row.truth!.table.map((j) => [j.fact, j]));
      const tds = facts.map((f) => {
        const j = of.get(f);
        if (j === undefined) return "<td>—</td>";
        const word = j.verdict === "true" ? "true" : `${j.verdict} (${j.cause ?? "?"})${j.allowed === true ? " allowed" : ""}`;
        return `<td class="v-${j.verdict}${j.allowed === true ? " allowed" : ""}">${escapeHtml(word)}</td>`;
      });
      return `<tr><td>${escapeHtml(row.provider)}</td>${tds.join("")}</tr>`;
    });
    blocks.push(`<table class="truth">${head}${body.join("")}</table>`);
  }
  return `<details class="truth" open><summary><b>truth: provider × cell × fact</b> (true / lost / changed / invented, with the cause)</summary>${blocks.join("\n")}</details>`;
}

function cellHtml(cell: CellResult, flags: CheckRunResult["flags"], catalogs: readonly CatalogChange[]): string {
  const failing = cell.status === "fail" || cell.status === "error" || cell.status === "timeout" || cell.status === "untrue";
  const key = `${cell.provider}/${cell.cell}`;
  const head = `<summary><span class="badge s-${cell.status}">${STATUS_WORD[cell.status]}</span> <span class="key">${escapeHtml(key)}</span> <span class="sum">${escapeHtml(summaryText(cell))} (${escapeHtml(formatMs(cell.ms))})</span></summary>`;
  const body =
    cell.status === "fail"
      ? `${changes(cell)}${diffRows(cell, flags, catalogs)}${truthRows(cell)}`
      : cell.status === "untrue"
        ? truthRows(cell)
        : failing
          ? `<pre>${escapeHtml(cell.detail?.error ?? cell.status)}</pre>`
          : "";
  const versions = cellVersionsNote(cell.versions);
  const alternate = cell.alternate !== undefined ? `<p class="alternate">${escapeHtml(`${alternateWords(cell.alternate)} (${cell.alternate.oracle})`)}</p>` : "";
  const note = `${versions !== undefined ? `<p class="versions">${escapeHtml(versions)}</p>` : ""}${alternate}`;
  return `<details class="cell" data-status="${cell.status}" data-provider="${escapeHtml(cell.provider)}" id="${escapeHtml(`cell-${key.replace(/[^A-Za-z0-9_-]+/g, "-")}`)}"${failing ? " open" : ""}>${head}${note}${body}</details>`;
}

/** Renders a whole run as one self-contained HTML page (see the module comment). */
export function renderRunHtml(run: CheckRunResult, title = "parity check"): string {
  const report = toCheckReport(run);
  const timeouts = timedOutCount(run);
  const counts: Array<[CellStatus, number, string]> = [
    ["pass", report.passed, "passed"],
    ["fail", report.failed, "failed"],
    ["untrue", report.untrue, "untrue"],
    ["skip", report.skipped, "skipped"],
    ["error", report.errors, "unreadable"],
    ["timeout", timeouts, "timed out"],
  ];
  const providers = [...new Set(run.cells.map((cell) => cell.provider))];
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}: ${report.failed} failed, ${report.passed} passed</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="counts" id="counts">${counts.map(([status, n, word]) => `<span class="s-${status}" data-count="${status}">${n} ${word}</span>`).join("")}<span class="sum">${run.cells.length} ${run.cells.length === 1 ? "cell" : "cells"} in ${escapeHtml(formatMs(run.ms))}</span></p>`,
    ...(report.versions.length > 0
      ? [`<ul class="versions" id="versions">${report.versions.map((v) => `<li><b>${escapeHtml(v.provider)}</b>: ${escapeHtml(providerVersionsText(v))}</li>`).join("")}</ul>`]
      : []),
    // Catalog changes the same in several cells of a provider, said once (catalog-changes.ts).
    ...(report.catalogChanges.length > 0
      ? [
          `<ul class="catalogs" id="catalogs">${report.catalogChanges
            .map(
              (x) =>
                `<li><b>${escapeHtml(x.provider)}</b> ${escapeHtml(`${x.op} ${x.where}  ${catalogValues(x)}`)} <span class="cells">(against ${escapeHtml(x.against)}; ${x.cells.length} cells: ${escapeHtml(x.cells.join(", "))})</span></li>`,
            )
            .join("")}</ul>`,
        ]
      : []),
    '<div class="filters">',
    ...counts.map(([status, n, word]) => `<label><input type="checkbox" name="status" value="${status}" checked> ${word} (${n})</label>`),
    `<label>provider <select id="provider"><option value="">all</option>${providers.map((p) => `<option value="${escapeHtml(p)}">${escapeHtml(p)}</option>`).join("")}</select></label>`,
    '<input type="search" id="search" placeholder="search cells and their diffs"><span id="shown"></span>',
    "</div>",
    truthTableHtml(run.cells),
    ...staleTruthLines(run.truthStale ?? []).map((line) => `<p class="s-fail">${escapeHtml(line)}</p>`),
    `<main id="cells">${run.cells.map((cell) => cellHtml(cell, run.flags, report.catalogChanges)).join("\n")}</main>`,
    `<script>${SCRIPT}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
