/**
 * `parity diff --html`: one self-contained page for reviewers (inline CSS, no scripts, no
 * external resources; `<details>` does the collapsing). From the top:
 * 1. the counts and an index of the changed lanes, each a link to its section;
 * 2. the changes, each shown once with the lanes it occurs in (html-changes.ts), its values with
 *    word-level highlighting and its `parity allow` line;
 * 3. per changed lane its thread: turns and items as a runtime shows them, unchanged items
 *    collapsed, changed fields highlighted (html-thread.ts); lanes on one side only as one line.
 */
import type { LaneDifference } from "../compare/lane-diff.js";
import type { LaneSetDiff, LaneSetEntry } from "../compare/lane-set-diff.js";
import { groupChanges, type ChangeGroup } from "./html-changes.js";
import { escapeHtml, threadHtml, wordDiffHtml } from "./html-thread.js";
import { laneSetVersionLines } from "./versions-text.js";

export { escapeHtml } from "./html-thread.js";

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.2em 2em; color: #1f2328; }
h1 { font-size: 1.3em; margin: 0 0 .3em; } h2 { font-size: 1.1em; margin: 1.2em 0 .4em; } h3 { font-size: 1em; margin: 1.5em 0 .3em; }
h4 { font-size: .9em; margin: .6em 0 .2em; color: #57606a; text-transform: uppercase; letter-spacing: .04em; }
.summary { color: #57606a; margin: .2em 0; }
code, pre, .val { font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
code { background: #f6f8fa; padding: 0 .25em; border-radius: 3px; }
pre { background: #f6f8fa; padding: .4em; overflow-x: auto; margin: .3em 0; }
ul.index { list-style: none; padding: 0; margin: .3em 0; display: flex; flex-wrap: wrap; gap: .3em .9em; }
ul.index a { text-decoration: none; } ul.index .n { color: #57606a; }
.status-changed { color: #9a6700; } .status-added { color: #1a7f37; } .status-removed { color: #cf222e; }
.group { border: 1px solid #d0d7de; border-radius: 6px; padding: .4em .7em; margin: .5em 0; }
.group .title { font-weight: 600; } .group .lanes { margin: .2em 0; color: #57606a; }
.group .lanes a { margin-right: .5em; }
.allow { font: 12px/1.45 ui-monospace, monospace; background: #f6f8fa; padding: .2em .4em; margin: .2em 0; word-break: break-all; }
.val { white-space: pre-wrap; word-break: break-word; padding: 0 .3em; }
.val.old { background: #fff5f5; } .val.new { background: #f3fff5; }
del { background: #ffcecb; text-decoration: line-through; } ins { background: #aceebb; text-decoration: none; }
.turn { margin-left: .3em; }
details.item { border-left: 3px solid #d0d7de; margin: .15em 0; padding: .1em .5em; }
details.item.changed { border-color: #d4a72c; } details.item.added { border-color: #1a7f37; } details.item.removed { border-color: #cf222e; }
details.item > summary { cursor: pointer; } details.item.same > summary { color: #57606a; }
.kind { font-weight: 600; } .label { color: #1f2328; } .status, .count, .ord { color: #57606a; font-size: .9em; }
details.run > summary { color: #57606a; cursor: pointer; margin: .15em 0; }
ul.events { list-style: none; padding-left: .8em; margin: .2em 0; }
li.ev.added > .op { color: #1a7f37; } li.ev.removed > .op { color: #cf222e; }
.change { margin: .2em 0; } .change .op { color: #9a6700; } .ptr { color: #57606a; font-size: .85em; }
`;

function slug(key: string): string {
  return `lane-${key.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
}

function groupHtml(group: ChangeGroup, anchors: ReadonlyMap<LaneDifference, string>): string {
  const first = group.occurrences[0]!;
  const d = first.difference;
  const what =
    group.op === "id"
      ? `<div class="val">ids no longer correspond one to one (e.g. ${escapeHtml(d.ids?.old ?? "")} became ${escapeHtml(d.ids?.new ?? "")})</div>`
      : group.op === "add" && d.path.split("/").length === 2
        ? `<div class="val new">+ event only in b: <code>${escapeHtml(JSON.stringify(d.new))}</code></div>`
        : group.op === "remove" && d.path.split("/").length === 2
          ? `<div class="val old">− event only in a: <code>${escapeHtml(JSON.stringify(d.old))}</code></div>`
          : wordDiffHtml(group.old, group.new);
  const lanes = group.lanes
    .map((key) => {
      const occurrence = group.occurrences.find((o) => o.key === key)!;
      return `<a href="#${anchors.get(occurrence.difference) ?? slug(key)}">${escapeHtml(key)}</a>`;
    })
    .join("");
  const allows = group.occurrences.filter((o) => o.allow !== undefined);
  const allowHtml =
    allows.length === 0
      ? `<div class="summary">no allowlist entry can accept this; refresh the oracle instead (parity rerecord)</div>`
      : `<div class="allow">${escapeHtml(allows[0]!.allow!)}</div>${
          allows.length > 1
            ? `<details><summary>${allows.length} parity allow lines, one per occurrence</summary>${allows.map((o) => `<div class="allow">${escapeHtml(o.allow!)}</div>`).join("")}</details>`
            : ""
        }`;
  const count = group.occurrences.length;
  return [
    `<div class="group" id="${group.id}">`,
    `<div class="title">${escapeHtml(group.op)} ${escapeHtml(group.title)}</div>`,
    `<div class="lanes">in ${group.lanes.length} ${group.lanes.length === 1 ? "lane" : "lanes"}${count > group.lanes.length ? ` (${count} times)` : ""}: ${lanes}</div>`,
    what,
    allowHtml,
    "</div>",
  ].join("");
}

function laneSection(entry: LaneSetEntry, anchors: ReadonlyMap<LaneDifference, string>): string {
  const head = `<h3 id="${slug(entry.key)}"><span class="status-${entry.status}">${entry.status}</span> ${escapeHtml(entry.key)}</h3>`;
  const sides = `<p class="summary">a: ${escapeHtml(entry.a ?? "(absent)")} — ${entry.events.a} events; b: ${escapeHtml(entry.b ?? "(absent)")} — ${entry.events.b} events</p>`;
  if (entry.status !== "changed" || entry.detail === undefined) return `<section>${head}${sides}</section>`;
  const { a, b, diff } = entry.detail;
  return `<section>${head}${sides}<p class="summary">${entry.paths.length} ${entry.paths.length === 1 ? "difference" : "differences"}; b's thread, unchanged items collapsed</p>${threadHtml(a, b, diff, anchors)}</section>`;
}

/** Renders the whole page for sides labelled `a` and `b`. */
export function renderLaneSetHtml(diff: LaneSetDiff, sides: { a: string; b: string }): string {
  const differing = diff.entries.filter((entry) => entry.status !== "same");
  const { same, changed, added, removed } = diff.counts;
  const groups = groupChanges(diff);
  const anchors = new Map<LaneDifference, string>();
  for (const entry of differing) {
    entry.detail?.diff.differences.forEach((d, k) => anchors.set(d, `${slug(entry.key)}-d${k + 1}`));
  }
  const index = differing
    .map((entry) => {
      const n = entry.status === "changed" ? ` <span class="n">${entry.paths.length}</span>` : "";
      return `<li><a href="#${slug(entry.key)}"><span class="status-${entry.status}">${entry.status === "changed" ? "~" : entry.status === "added" ? "+" : "−"}</span> ${escapeHtml(entry.key)}</a>${n}</li>`;
    })
    .join("");
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>parity diff ${escapeHtml(sides.a)} → ${escapeHtml(sides.b)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>parity diff <code>${escapeHtml(sides.a)}</code> → <code>${escapeHtml(sides.b)}</code></h1>`,
    ...laneSetVersionLines(diff.entries, sides).map((line) => `<p class="versions">${escapeHtml(line)}</p>`),
    `<p class="summary">${changed} changed, ${added} added, ${removed} removed, ${same} unchanged (${diff.entries.length} ${diff.entries.length === 1 ? "lane" : "lanes"}). Lanes are compared as threads: ids renumbered consistently and key order are no change.</p>`,
    differing.length > 0 ? `<nav><h2>Changed lanes</h2><ul class="index" id="index">${index}</ul></nav>` : "",
    groups.length > 0 ? `<h2>Changes (${groups.length}), each once with its lanes</h2><div id="changes">${groups.map((g) => groupHtml(g, anchors)).join("\n")}</div>` : "",
    differing.length > 0 ? `<h2>Threads</h2>` : "",
    ...differing.map((entry) => laneSection(entry, anchors)),
    "</body></html>",
    "",
  ].join("\n");
}
