/**
 * `parity diff --html`: one self-contained HTML page (inline CSS, no scripts, no external
 * resources) with a section per differing lane — summary, unified diff, changed paths.
 */
import type { LaneSetDiff, LaneSetEntry } from "../compare/lane-set-diff.js";

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1f2328; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
.summary { color: #57606a; }
pre { background: #f6f8fa; padding: .5em; overflow-x: auto; font: 12px/1.45 ui-monospace, monospace; }
pre span { display: block; white-space: pre; }
.ins { background: #dafbe1; } .del { background: #ffebe9; } .hunk { color: #0969da; } .file { font-weight: bold; }
.status-changed { color: #9a6700; } .status-added { color: #1a7f37; } .status-removed { color: #cf222e; }
code { background: #f6f8fa; padding: 0 .2em; }
`;

function patchHtml(patch: string): string {
  const lines = patch
    .split("\n")
    .filter((line) => line !== "" && !/^=+$/.test(line))
    .map((line) => {
      const cls = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "ins" : line.startsWith("-") ? "del" : "";
      return `<span${cls ? ` class="${cls}"` : ""}>${escapeHtml(line)}</span>`;
    });
  return `<pre>${lines.join("")}</pre>`;
}

function section(entry: LaneSetEntry): string {
  const paths =
    entry.paths.length === 0
      ? ""
      : `<p>Changed paths (a → b):</p><ul>${entry.paths.map((p) => `<li>${escapeHtml(p.op)} <code>${escapeHtml(p.path)}</code></li>`).join("")}</ul>`;
  return [
    `<section id="${escapeHtml(entry.key)}">`,
    `<h2><span class="status-${entry.status}">${entry.status}</span> ${escapeHtml(entry.key)}</h2>`,
    `<p class="summary">a: ${escapeHtml(entry.a ?? "(absent)")} — ${entry.events.a} events; b: ${escapeHtml(entry.b ?? "(absent)")} — ${entry.events.b} events</p>`,
    patchHtml(entry.patch),
    paths,
    "</section>",
  ].join("\n");
}

/** Renders the whole page for sides labelled `a` and `b`. */
export function renderLaneSetHtml(diff: LaneSetDiff, sides: { a: string; b: string }): string {
  const differing = diff.entries.filter((entry) => entry.status !== "same");
  const { same, changed, added, removed } = diff.counts;
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>parity diff ${escapeHtml(sides.a)} → ${escapeHtml(sides.b)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>parity diff <code>${escapeHtml(sides.a)}</code> → <code>${escapeHtml(sides.b)}</code></h1>`,
    `<p class="summary">${changed} changed, ${added} added, ${removed} removed, ${same} unchanged (${diff.entries.length} ${diff.entries.length === 1 ? "lane" : "lanes"}). Red lines are only in a, green only in b.</p>`,
    ...differing.map(section),
    "</body></html>",
    "",
  ].join("\n");
}
