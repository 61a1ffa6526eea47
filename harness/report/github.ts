/**
 * The `github` reporter: GitHub Actions workflow commands. A failing cell is one `::error`
 * annotation on its oracle file (`lanes/<provider>/<cell>.json` unless the result names another),
 * a skipped cell one `::notice`; then the summary as a plain line.
 */
import type { CellResult, CheckRunResult } from "./check-report.js";
import { toCheckReport } from "./check-report.js";
import { renderCellText } from "./text.js";

/** Escapes a workflow-command message (`%`, CR, LF). */
export function escapeCommandData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escapes a workflow-command property value (message escapes plus `:` and `,`). */
export function escapeCommandProperty(text: string): string {
  return escapeCommandData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

function annotation(kind: "error" | "notice", cell: CellResult, message: string): string {
  const file = cell.detail?.oracleFile ?? `lanes/${cell.provider}/${cell.cell}.json`;
  const props = `file=${escapeCommandProperty(file)},title=${escapeCommandProperty(`parity ${cell.provider}/${cell.cell}`)}`;
  return `::${kind} ${props}::${escapeCommandData(message.replace(/\n+$/, ""))}`;
}

/** Renders a run as workflow commands, one annotation per failing or skipped cell, newline-terminated. */
export function renderGithubReport(run: CheckRunResult): string {
  const lines: string[] = [];
  for (const cell of run.cells) {
    if (cell.status === "fail") lines.push(annotation("error", cell, renderCellText(cell, { color: false })));
    else if (cell.status === "timeout") lines.push(annotation("error", cell, cell.detail?.error ?? "infrastructure timeout"));
    else if (cell.status === "skip") lines.push(annotation("notice", cell, `skipped: ${cell.detail?.skipReason ?? "not replayable"}`));
  }
  const report = toCheckReport(run);
  lines.push(`parity: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped (${run.cells.length} ${run.cells.length === 1 ? "cell" : "cells"})`);
  return `${lines.join("\n")}\n`;
}
