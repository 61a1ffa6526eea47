/**
 * The reports of `parity compare` (issue 39): a pair's differences grouped by class with counts
 * (lost / changed / invented, cause adapter / bridge, allowed / not), as text for people, JSON
 * for machines and one self-contained HTML page. Strings from lanes and allowlists are shown with
 * terminal-steering characters made visible (`visible.ts`; the page escapes through `escapeHtml`).
 */
import { Chalk } from "chalk";
import { shownPath } from "../recording/paths.js";
import type { PairEntry } from "../compare/pair/pair-allowlist.js";
import type { JudgedDifference, PairComparison } from "../compare/pair/pair-compare.js";
import { DIFFERENCE_CLASSES, type DifferenceClass } from "../compare/pair/pair-diff.js";
import { formatHit } from "../compare/pair/evidence.js";
import { escapeHtml } from "./html-thread.js";
import { visible, visibleLine } from "./visible.js";

/** Counts of a set of differences. */
export interface PairCounts {
  total: number;
  lost: number;
  changed: number;
  invented: number;
  adapter: number;
  bridge: number;
  allowed: number;
  notAllowed: number;
}

/** Counts of `differences`. */
export function pairCounts(differences: readonly JudgedDifference[]): PairCounts {
  const count = (test: (d: JudgedDifference) => boolean) => differences.filter(test).length;
  return {
    total: differences.length,
    lost: count((d) => d.kind === "lost"),
    changed: count((d) => d.kind === "changed"),
    invented: count((d) => d.kind === "invented"),
    adapter: count((d) => d.cause.kind === "adapter"),
    bridge: count((d) => d.cause.kind === "bridge"),
    allowed: count((d) => d.allowedBy !== undefined),
    notAllowed: count((d) => d.allowedBy === undefined),
  };
}

/** The classes that have differences, in report order, with theirs. */
export function byClass(differences: readonly JudgedDifference[]): Array<{ class: DifferenceClass; differences: JudgedDifference[] }> {
  return DIFFERENCE_CLASSES.map((cls) => ({ class: cls, differences: differences.filter((d) => d.class === cls) })).filter((group) => group.differences.length > 0);
}

const MAX_VALUE = 120;

/** A value on one line: strings JSON-quoted (so `\n` shows), cut at 120 characters. */
function shown(value: unknown): string {
  if (value === undefined) return "(none)";
  const text = JSON.stringify(value) ?? String(value);
  return visibleLine(text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text);
}

/**
 * `bridge: acp-codex's agent sent it, seq 44 (provider→bridge) $.params…`, `bridge: acp-pi's
 * bridge is untrue on read#1.content (truth), seq 39 …` or `adapter: acp-pi's agent never sent it`.
 */
export function causeText(d: JudgedDifference): string {
  const { cause } = d;
  if (cause.kind === "bridge") {
    if (cause.truth !== undefined) {
      return `bridge: ${cause.provider}'s bridge is untrue on ${visibleLine(cause.truth)} (truth)${cause.evidence !== undefined ? `, ${visibleLine(formatHit(cause.evidence))}` : ""}`;
    }
    return cause.evidence !== undefined ? `bridge: ${cause.provider}'s agent sent it, ${visibleLine(formatHit(cause.evidence))}` : `bridge: ${cause.provider}'s bridge says it, its agent never did`;
  }
  return cause.evidence !== undefined ? `adapter: ${cause.provider}'s agent, ${visibleLine(formatHit(cause.evidence))}` : `adapter: ${cause.provider}'s agent never sent it`;
}

function countsLine(c: PairCounts): string {
  return `${c.total} differences: ${c.lost} lost, ${c.changed} changed, ${c.invented} invented; cause adapter ${c.adapter}, bridge ${c.bridge}; allowed ${c.allowed}, not allowed ${c.notAllowed}`;
}

/**
 * One stale pair entry on one line, for people who prune: `stale pair entry
 * allowlists/pairs/acp-codex.json entry 3 (codex/acp-codex, class model error, cell model-error,
 * #39): masks no difference in any selected cell — remove it`. The file is shown relative to `cwd`
 * when it lies below it (`shownPath`).
 */
export function staleLine(entry: PairEntry, cwd?: string): string {
  const file = cwd !== undefined ? shownPath(entry.source.file, cwd) : entry.source.file;
  const scope = [
    entry.pair,
    `class ${entry.class}`,
    `cell ${entry.cell}`,
    ...(entry.kind !== undefined ? [`kind ${entry.kind}`] : []),
    ...(entry.field !== undefined ? [`field ${entry.field}`] : []),
    entry.pr,
  ];
  return `stale pair entry ${visibleLine(file)} entry ${entry.source.index} (${scope.map(visibleLine).join(", ")}): masks no difference in any selected cell — remove it`;
}

/** Newline-terminated text report; colour only when `color`; files relative to `cwd` when given. */
export function renderPairText(result: PairComparison, options: { color: boolean; strict?: boolean; cwd?: string }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const lines: string[] = [`parity compare ${result.a} ${result.b}: ${result.cells.length} cells (${result.cells.join(", ")})`];
  // Cells one side has alone are not compared; the pair's data says why the other has none.
  for (const u of result.unpaired) {
    const other = u.recordedBy === result.a ? result.b : result.a;
    lines.push(c.dim(`not compared: ${visibleLine(u.cell)} (only ${u.recordedBy} recorded it; ${other}: ${u.reason !== undefined ? visibleLine(u.reason) : "no reason given in the pair's data"})`));
  }
  for (const group of byClass(result.differences)) {
    const k = pairCounts(group.differences);
    lines.push("", c.bold(`${group.class} — ${k.total}: ${k.lost} lost, ${k.changed} changed, ${k.invented} invented; adapter ${k.adapter}, bridge ${k.bridge}`));
    for (const d of group.differences) {
      const mark = d.allowedBy !== undefined ? c.dim("allowed") : d.cause.kind === "bridge" ? c.red("BRIDGE ") : c.yellow("ADAPTER");
      lines.push(`  ${mark} ${d.kind.padEnd(8)} ${visibleLine(d.cell)} ${visibleLine(d.address)}`);
      lines.push(`          ${result.a}: ${shown(d.a)}  ${result.b}: ${shown(d.b)}`);
      lines.push(`          ${causeText(d)}${d.allowedBy !== undefined ? ` — allowed (${visibleLine(d.allowedBy.pr)}: ${visibleLine(d.allowedBy.reason)})` : ""}`);
    }
  }
  if (result.stale.length > 0) lines.push("");
  for (const entry of result.stale) lines.push(c.red(staleLine(entry, options.cwd)));
  const notAllowed = result.differences.filter((d) => d.allowedBy === undefined);
  if (notAllowed.length > 0) {
    lines.push("", c.red("not allowed:"));
    const groups = new Map<string, Set<string>>();
    for (const d of notAllowed) {
      const key = `${d.class} (cause ${d.cause.kind}${d.cause.kind === "bridge" ? ` ${d.cause.provider}` : ""})`;
      groups.set(key, (groups.get(key) ?? new Set()).add(d.cell));
    }
    for (const [key, cells] of groups) lines.push(`  ${key}: ${[...cells].map(visibleLine).join(", ")}`);
    if (options.strict !== true && notAllowed.some((d) => d.cause.kind === "bridge"))
      lines.push(c.dim("  (differences caused by a bridge are never allowed: warned until fixed, failing under --strict)"));
  }
  lines.push("", countsLine(pairCounts(result.differences)) + (result.stale.length > 0 ? `; ${result.stale.length} stale entries` : ""));
  return `${lines.join("\n")}\n`;
}

/** The JSON report (schema 1), newline-terminated; strings made visible as JSON escapes. */
export function renderPairJson(result: PairComparison): string {
  const report = {
    schema: 1,
    pair: result.pair,
    a: result.a,
    b: result.b,
    cells: result.cells,
    counts: pairCounts(result.differences),
    classes: Object.fromEntries(byClass(result.differences).map((group) => [group.class, pairCounts(group.differences)])),
    differences: result.differences,
    stale: result.stale.map((entry) => ({ file: entry.source.file, index: entry.source.index, pair: entry.pair, class: entry.class, cell: entry.cell, pr: entry.pr, reason: entry.reason })),
    unpaired: result.unpaired,
  };
  return `${visible(JSON.stringify(report, null, 2))}\n`;
}

const STYLE = `body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; } td, th { border: 1px solid #ccc; padding: .25em .5em; vertical-align: top; text-align: left; }
code, pre { font: 12px/1.3 ui-monospace, monospace; white-space: pre-wrap; margin: 0; }
.bridge { color: #a00; font-weight: bold; } .adapter { color: #8a5a00; } .allowed { color: #777; }`;

/** One self-contained HTML page of the comparison (no scripts, no external resources). */
export function renderPairHtml(result: PairComparison): string {
  const e = escapeHtml;
  const k = pairCounts(result.differences);
  const parts: string[] = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${e(`parity compare ${result.a} ${result.b}`)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${e(result.a)} ↔ ${e(result.b)}</h1>`,
    `<p>${e(`${result.cells.length} cells: ${result.cells.join(", ")}`)}</p>`,
    ...result.unpaired.map((u) => `<p class="allowed">${e(`not compared: ${u.cell} (only ${u.recordedBy} recorded it${u.reason !== undefined ? `: ${u.reason}` : ""})`)}</p>`),
    `<p>${e(countsLine(k))}</p>`,
    `<table><tr><th>class</th><th>total</th><th>lost</th><th>changed</th><th>invented</th><th>adapter</th><th>bridge</th><th>not allowed</th></tr>`,
    ...byClass(result.differences).map(({ class: cls, differences }) => {
      const g = pairCounts(differences);
      return `<tr><td><a href="#${e(cls.replace(/ /g, "-"))}">${e(cls)}</a></td><td>${g.total}</td><td>${g.lost}</td><td>${g.changed}</td><td>${g.invented}</td><td>${g.adapter}</td><td>${g.bridge}</td><td>${g.notAllowed}</td></tr>`;
    }),
    `</table>`,
  ];
  for (const { class: cls, differences } of byClass(result.differences)) {
    parts.push(`<h2 id="${e(cls.replace(/ /g, "-"))}">${e(cls)} (${differences.length})</h2>`);
    parts.push(`<table><tr><th>cell</th><th>where</th><th>kind</th><th>${e(result.a)}</th><th>${e(result.b)}</th><th>cause</th><th>allowed</th></tr>`);
    for (const d of differences) {
      const value = (v: unknown) => (v === undefined ? "<i>(none)</i>" : `<pre>${e(typeof v === "string" ? v : JSON.stringify(v, null, 1))}</pre>`);
      parts.push(
        `<tr><td>${e(d.cell)}</td><td><code>${e(d.address)}</code></td><td>${e(d.kind)}</td><td>${value(d.a)}</td><td>${value(d.b)}</td><td class="${d.allowedBy !== undefined ? "allowed" : d.cause.kind}">${e(causeText(d))}</td><td>${d.allowedBy !== undefined ? e(`${d.allowedBy.pr}: ${d.allowedBy.reason}`) : "no"}</td></tr>`,
      );
    }
    parts.push(`</table>`);
  }
  if (result.stale.length > 0) {
    parts.push(`<h2>Stale pair entries</h2><ul>`);
    for (const entry of result.stale) parts.push(`<li>${e(staleLine(entry))}</li>`);
    parts.push(`</ul>`);
  }
  parts.push(`</body></html>\n`);
  return parts.join("\n");
}
