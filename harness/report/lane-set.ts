/**
 * Output of `parity diff` (docs/design/00-product.md, flow 5; spec 40 point 9): per lane a summary line, the
 * thread patch with a legend (one event per row, cut to the row width), and each difference once
 * — stable address, old → new, JSON pointer and the `parity allow` line; then a summary. Also
 * the `--json` form.
 */
import { Chalk, type ChalkInstance } from "chalk";
import type { LaneSetDiff, LaneSetEntry, LaneSetPath } from "../compare/lane-set-diff.js";
import { NEW_ONLY_ID_MARK } from "../compare/id-correspondence.js";
import { allowCommand, suggestedAllowPath } from "./suggest.js";
import { eventText, truncate } from "./text.js";
import { laneSetVersionLines, laneVersionsChange, sideVersions } from "./versions-text.js";

/** Default width of a terminal row when none is known (characters). */
export const DEFAULT_ROW_WIDTH = 160;

function colourPatchLine(line: string, c: ChalkInstance, width: number, from = 0): string {
  if (line.startsWith("+++") || line.startsWith("---")) return c.bold(truncate(line, width));
  if (line.startsWith("@@")) return c.cyan(truncate(line, width));
  const mark = line[0] ?? " ";
  const room = Math.max(20, width - 2);
  const full = eventText(line.slice(1), Number.MAX_SAFE_INTEGER);
  const text = `${mark} ${from > 0 ? `…${truncate(full.slice(from), room - 1)}` : truncate(full, room)}`;
  if (mark === "+") return c.green(text);
  if (mark === "-") return c.red(text);
  return c.dim(text);
}

/** Where two texts first differ (their common prefix length). */
function firstDifference(a: string, b: string): number {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  return at;
}

/**
 * The patch's rows, each cut to `width`. A removed line followed by an added one (a paired event)
 * are both shown from a little before where they first differ, so the change is on screen.
 */
function patchRows(patch: string, c: ChalkInstance, width: number): string[] {
  const lines = patch.split("\n").filter((line) => line !== "");
  const from = new Array<number>(lines.length).fill(0);
  for (let k = 0; k < lines.length; k++) {
    if (!lines[k]!.startsWith("-") || lines[k]!.startsWith("---")) continue;
    let end = k;
    while (end < lines.length && lines[end]!.startsWith("-")) end++;
    const removed = end - k;
    for (let r = 0; r < removed && end + r < lines.length && lines[end + r]!.startsWith("+"); r++) {
      const a = eventText(lines[k + r]!.slice(1), Number.MAX_SAFE_INTEGER);
      const b = eventText(lines[end + r]!.slice(1), Number.MAX_SAFE_INTEGER);
      const at = firstDifference(a, b);
      if (at > width / 2) from[k + r] = from[end + r] = at - Math.floor(width / 3);
    }
    k = end - 1;
  }
  return lines.map((line, k) => colourPatchLine(line, c, width, from[k]));
}

function preview(value: unknown, width: number): string {
  return value === undefined ? "(absent)" : truncate(JSON.stringify(value) ?? "null", width);
}

/** One difference for a terminal: op, stable address and values, then the pointer and the `parity allow` line. */
function differenceLines(key: string, p: LaneSetPath, c: ChalkInstance, width: number): string[] {
  const where = p.address ?? p.path;
  const head = `    ${c.yellow(p.op.padEnd(7))} ${where}`;
  const room = Math.max(16, width - 13 - where.length);
  const values =
    p.ids !== undefined
      ? `id ${p.ids.old} now ${p.ids.new}${p.ids.oldPairedWith !== undefined ? ` (${p.ids.old} was ${p.ids.oldPairedWith} elsewhere)` : ""}`
      : p.op === "replace"
        ? `${preview(p.old, Math.floor(room / 2) - 2)} → ${preview(p.new, Math.floor(room / 2) - 2)}`
        : p.op === "add"
          ? preview(p.new, room)
          : preview(p.old, room);
  const out = [`${head}  ${c.dim(values)}`];
  const allowPath = suggestedAllowPath(p);
  const [provider, cell] = key.includes("/") ? [key.slice(0, key.indexOf("/")), key.slice(key.indexOf("/") + 1)] : ["<provider>", key];
  out.push(c.dim(truncate(`            at ${p.path}`, width)));
  // The command is printed whole: a cut command cannot be pasted.
  if (allowPath !== undefined) out.push(`            accept: ${allowCommand(provider!, cell!, allowPath)}`);
  return out;
}

function entryHeader(entry: LaneSetEntry, c: ChalkInstance): string {
  switch (entry.status) {
    case "same":
      return `${c.dim("same   ")} ${entry.key}  (${entry.events.a} events)`;
    case "changed":
      return `${c.yellow("changed")} ${c.bold(entry.key)}  ${entry.events.a} → ${entry.events.b} events, ${entry.paths.length} ${entry.paths.length === 1 ? "difference" : "differences"}`;
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
export function renderLaneSetText(diff: LaneSetDiff, options: { color: boolean; a: string; b: string; full?: boolean; width?: number }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const width = options.width ?? DEFAULT_ROW_WIDTH;
  const out: string[] = [];
  const differing = diff.entries.filter((entry) => entry.status !== "same");
  if (differing.length > 0) {
    out.push(c.dim(truncate(`legend: - only in a (${options.a})  + only in b (${options.b})  unmarked: context`, width)));
    out.push(c.dim(truncate(`one event per line, blank threadId/providerThreadId omitted; b's ids in a's numbering (${NEW_ONLY_ID_MARK} = only in b)`, width)));
  }
  // Never cut: under a long checkout path a cut line lost the oracle's version, the one thing it says.
  out.push(...laneSetVersionLines(diff.entries, options).map((line) => c.dim(line)));
  for (const entry of differing) {
    if (entry.status !== "changed" && options.full !== true) {
      out.push(sideOnlyLine(entry, c));
      continue;
    }
    out.push(entryHeader(entry, c));
    const versions = laneVersionsChange(entry);
    if (versions !== undefined) out.push(`  ${c.yellow(versions)}`);
    out.push(...patchRows(entry.patch, c, width - 2).map((row) => `  ${row}`));
    if (entry.paths.length > 0) {
      out.push(c.bold("  differences (a → b):"));
      for (const p of entry.paths) out.push(...differenceLines(entry.key, p, c, width));
    }
  }
  const { same, changed, added, removed } = diff.counts;
  out.push(`${changed} changed, ${added} added, ${removed} removed, ${same} unchanged (${diff.entries.length} ${diff.entries.length === 1 ? "lane" : "lanes"})`);
  return `${out.join("\n")}\n`;
}

/**
 * Version of the `parity diff --json` document. 2: `paths[]` carry `address`, `selector`,
 * `old`/`new` and `ids`, and `patch` is the thread patch (one line per event). 3: `versions`
 * (per side, per provider: its recordings' and its oracles' CLI versions) and each lane's
 * `versions` (`{a, b}`: `{oracle, recording}` or null), issue 41.
 */
export const LANE_SET_JSON_SCHEMA_VERSION = 3;

/** The `parity diff --json` document: every lane entry plus the counts, pretty-printed. */
export function renderLaneSetJson(diff: LaneSetDiff, sides: { a: string; b: string }): string {
  const lanes = diff.entries.map(({ detail: _detail, ...entry }) => entry);
  const versions = { a: sideVersions(diff.entries, "a"), b: sideVersions(diff.entries, "b") };
  return `${JSON.stringify({ schemaVersion: LANE_SET_JSON_SCHEMA_VERSION, a: sides.a, b: sides.b, counts: diff.counts, versions, lanes }, null, 2)}\n`;
}
