/**
 * How the truth check reads for people (issue 37, build point 4): one line per untruth (the fact,
 * what happened to it, who did it, the item and field, the fact against what the lane says, why),
 * the evidence lines under `--explain` (seq, direction and place in the agent-side lanes), and a
 * provider × cell × fact table. Every string that came from a file (a lane's output, an agent's
 * line) is shown with its control characters made visible: a lane may hold terminal escapes.
 */
import type { TruthEntry } from "../compare/truth/truth-allowlist.js";
import { AGENT_DIFF_WORDS } from "../compare/truth/unified-diff.js";
import type { JudgedFact, TruthFinding } from "../compare/truth/judge.js";
import type { CellResult } from "./check-report.js";
import { formatTable } from "./table.js";

// C0 and C1 controls, DEL, and the format characters that reorder or hide text (bidi, zero-width).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\0": "\\0" };

/** `text` with every control and invisible format character as an escape (`\n`, `\e`, `\u202e`), backslashes doubled. */
export function visible(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(CONTROL, (ch) => NAMED[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A value for one line: a string quoted and made visible, anything else as JSON (strings inside made visible), `(none)` when absent; cut to `width`. */
export function shownValue(value: unknown, width = 120): string {
  if (value === undefined) return "(none)";
  // JSON already escapes backslashes and C0 controls; what it leaves raw (DEL, C1, bidi and zero-width characters) is escaped here.
  const text = typeof value === "string" ? `"${visible(value)}"` : (JSON.stringify(value) ?? "null").replace(CONTROL, (ch) => NAMED[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** `lost by the bridge`, `invented by the adapter`. */
export function findingWords(f: Pick<TruthFinding, "kind" | "cause">): string {
  return `${f.kind} by the ${f.cause}`;
}

/** The lines of one untruth (two spaces in), with its evidence when `explain`. */
export function findingLines(f: TruthFinding, explain: boolean, width = 120): string[] {
  const where = f.item !== undefined ? `${f.item}: ${f.field}` : f.field;
  const lines = [`  untrue ${f.fact}: ${findingWords(f)} — ${where}`, `    fact ${shownValue(f.expected, width)}; lane ${shownValue(f.actual, width)}`, `    ${f.why}`];
  if (explain) {
    if (f.evidence.length === 0) lines.push("    evidence: none in the agent-side lanes");
    for (const e of f.evidence) lines.push(`    evidence: seq ${e.seq} (${e.dir}) ${e.path}${e.format !== undefined ? ` (${AGENT_DIFF_WORDS[e.format]})` : ""} = ${shownValue(e.value, width)}`);
  }
  return lines;
}

/** A cell's truth in a few words for its summary line: `3 untruths`, `5 facts true`, `no facts yet`. */
export function truthSummary(cell: CellResult): string | undefined {
  const t = cell.truth;
  if (t === undefined) return undefined;
  if (t.facts === "none") return "no facts yet";
  if (t.facts === "missing") return "facts missing";
  const allowed = t.masked > 0 ? `, ${t.masked} allowed` : "";
  const warned = t.warned !== undefined && t.warned > 0 ? ` (${t.warned} by the bridge, warned)` : "";
  if (t.findings.length > 0) return `${t.findings.length} ${t.findings.length === 1 ? "untruth" : "untruths"}${warned}${allowed}`;
  const trueCount = t.table.filter((j) => j.verdict === "true").length;
  return `${trueCount} of ${t.table.length} facts true${allowed}`;
}

/** One table cell: `true`, `lost·bridge`, `changed·adapter (allowed)`. */
function verdictWord(j: JudgedFact & { allowed?: true }): string {
  if (j.verdict === "true") return "true";
  return `${j.verdict}·${j.cause ?? "?"}${j.allowed === true ? " (allowed)" : ""}`;
}

/**
 * The provider × cell × fact table: per cell one block, a row per provider and a column per fact
 * (the facts' selectors in facts order). Only judged cells; `cells` in run order.
 */
export function truthTable(cells: readonly CellResult[]): string {
  const byCell = new Map<string, CellResult[]>();
  for (const cell of cells) {
    if (cell.truth?.facts !== "judged") continue;
    byCell.set(cell.cell, [...(byCell.get(cell.cell) ?? []), cell]);
  }
  let out = "";
  for (const [name, rows] of byCell) {
    const facts: string[] = [];
    for (const row of rows) for (const j of row.truth!.table) if (!facts.includes(j.fact)) facts.push(j.fact);
    const table = [[name, ...facts]];
    for (const row of rows) {
      const of = new Map(row.truth!.table.map((j) => [j.fact, j]));
      table.push([`  ${row.provider}`, ...facts.map((f) => (of.has(f) ? verdictWord(of.get(f)!) : "—"))]);
    }
    out += formatTable(table);
  }
  return out;
}

/** The lines naming truth entries stale over the run. */
export function staleTruthLines(entries: readonly TruthEntry[]): string[] {
  return entries.map((e) => `stale truth entry ${e.provider}/${e.cell} ${e.fact} (${e.pr}): masks no untruth in the cells it applies to — the limit is gone; delete it from allowlists/truth/`);
}

/** How to allow one agent's limit: the entry to add to `allowlists/truth/<provider>.json`. */
export function allowTruthHint(cell: CellResult, f: TruthFinding): string {
  return `allowlists/truth/${cell.provider}.json: {"provider": ${JSON.stringify(cell.provider)}, "cell": ${JSON.stringify(cell.cell)}, "layer": "truth", "fact": ${JSON.stringify(f.fact)}, "pr": "#…", "reason": "…"}`;
}
