/**
 * Output of `parity diff` (00-product.md, flow 5; spec 40 point 9): per lane a summary line, the
 * unified diff with a legend, and the changed JSON-pointer paths ready for `parity allow`;
 * then a summary. Also the `--json` form.
 */
import { Chalk, type ChalkInstance } from "chalk";
import type { LaneSetDiff, LaneSetEntry } from "../compare/lane-set-diff.js";

function colourPatchLine(line: string, c: ChalkInstance): string {
  if (line.startsWith("+++") || line.startsWith("---")) return c.bold(line);
  if (line.startsWith("@@")) return c.cyan(line);
  if (line.startsWith("+")) return c.green(line);
  if (line.startsWith("-")) return c.red(line);
  if (line.startsWith("=")) return c.dim(line);
  return line;
}

function entryHeader(entry: LaneSetEntry, c: ChalkInstance): string {
  switch (entry.status) {
    case "same":
      return `${c.dim("same   ")} ${entry.key}  (${entry.events.a} events)`;
    case "changed":
      return `${c.yellow("changed")} ${c.bold(entry.key)}  ${entry.events.a} → ${entry.events.b} events, ${entry.paths.length} path(s)`;
    case "added":
      return `${c.green("added  ")} ${c.bold(entry.key)}  only in b (${entry.events.b} events)`;
    case "removed":
      return `${c.red("removed")} ${c.bold(entry.key)}  only in a (${entry.events.a} events)`;
  }
}

/**
 * The one line an added or removed lane is summarized in without `--full`, e.g.
 * `+ lanes/echo/turn.json: added (12 events)`: a whole lane on one side only is all `+` or all
 * `-`, so its patch says nothing the event count does not (the new-user trial saw ~13,800 lines).
 */
function sideOnlyLine(entry: LaneSetEntry, c: ChalkInstance): string {
  const file = `lanes/${entry.key}.json`;
  return entry.status === "added"
    ? c.green(`+ ${file}: added (${entry.events.b} ${entry.events.b === 1 ? "event" : "events"})`)
    : c.red(`- ${file}: removed (${entry.events.a} ${entry.events.a === 1 ? "event" : "events"})`);
}

/**
 * Renders a lane-set diff for a terminal: changed lanes with their patch and paths; lanes on one
 * side only as one summary line each, or with their whole content when `full`; unchanged lanes
 * only as a count. Newline-terminated; colour only when `color`.
 */
export function renderLaneSetText(diff: LaneSetDiff, options: { color: boolean; a: string; b: string; full?: boolean }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const out: string[] = [];
  const differing = diff.entries.filter((entry) => entry.status !== "same");
  if (differing.length > 0) {
    out.push(c.dim(`legend: ${c.red("-")} only in a (${options.a})  ${c.green("+")} only in b (${options.b})  unmarked: context`));
  }
  for (const entry of differing) {
    if (entry.status !== "changed" && options.full !== true) {
      out.push(sideOnlyLine(entry, c));
      continue;
    }
    out.push(entryHeader(entry, c));
    // createTwoFilesPatch starts with a "===" rule and an Index-less header; keep from "---" on.
    const patchLines = entry.patch.split("\n").filter((line) => !/^=+$/.test(line));
    for (const line of patchLines) if (line !== "") out.push(`  ${colourPatchLine(line, c)}`);
    if (entry.paths.length > 0) {
      out.push(c.bold("  changed paths (a → b):"));
      for (const p of entry.paths) out.push(`    ${c.yellow(p.op.padEnd(7))} ${p.path}`);
    }
  }
  const { same, changed, added, removed } = diff.counts;
  out.push(`${changed} changed, ${added} added, ${removed} removed, ${same} unchanged (${diff.entries.length} ${diff.entries.length === 1 ? "lane" : "lanes"})`);
  return `${out.join("\n")}\n`;
}

/** The `parity diff --json` document: every lane entry plus the counts, pretty-printed. */
export function renderLaneSetJson(diff: LaneSetDiff, sides: { a: string; b: string }): string {
  return `${JSON.stringify({ a: sides.a, b: sides.b, counts: diff.counts, lanes: diff.entries }, null, 2)}\n`;
}
