/**
 * Text output of `parity rerecord` (docs/design/00-product.md, CLI; spec 40 §9: a line per cell, then
 * detail, then what to do). Colour only when asked.
 */
import { Chalk } from "chalk";
import { formatDivergenceSummary } from "../replay/walk/divergence.js";
import type { RerecordOutcome } from "./rerecord-cells.js";

/** How {@link formatRerecordOutcome} renders. */
export interface RerecordReportOptions {
  color: boolean;
  /** Shows a path to a person (e.g. relative to the working directory). */
  showPath: (file: string) => string;
  /** Include the replay's notes (generic answers and the like). */
  verbose?: boolean;
}

/**
 * One cell's block: `RERECORDED|DIVERGED|REFUSED|TIMEOUT|SKIP provider/cell: …`, then indented detail
 * (every divergence kept, or the refusal reason). Newline-terminated.
 */
export function formatRerecordOutcome(outcome: RerecordOutcome, options: RerecordReportOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const name = `${outcome.provider}/${outcome.cell}`;
  const notes = (list: ReadonlyArray<{ seq: number | null; message: string }>) =>
    options.verbose ? list.map((n) => `  note${n.seq === null ? "" : ` (after seq ${n.seq})`}: ${n.message}\n`).join("") : "";
  switch (outcome.status) {
    case "rerecorded":
      return (
        `${c.green("RERECORDED")} ${name}: ${outcome.lines} line(s), ${outcome.events} event(s)\n` +
        (outcome.currentLane === "not needed"
          ? `  ${options.showPath(outcome.currentLaneFile)} not written: the recorded bridge lane still assembles to this thread lane\n`
          : `  ${options.showPath(outcome.currentLaneFile)} (${outcome.currentLane})\n`) +
        `  ${options.showPath(outcome.oracleFile)} (${outcome.oracle})\n` +
        (outcome.version === "unchanged" ? "" : `  ${options.showPath(outcome.versionFile)} (${outcome.version}): the CLI version this oracle is accepted from\n`) +
        outcome.noLongerSent.map((line) => `  ${c.yellow("no longer sent")}: ${line}\n`).join("") +
        notes(outcome.notes)
      );
    case "diverged":
      return (
        `${c.red("DIVERGED")} ${formatDivergenceSummary(name, outcome.divergences, outcome.divergenceCount)}\n` +
        outcome.divergences.map((d) => `  ${d.seq === null ? "" : `seq ${d.seq}: `}${d.message}\n`).join("") +
        (outcome.divergenceCount > outcome.divergences.length ? `  … ${outcome.divergenceCount - outcome.divergences.length} more\n` : "") +
        `  nothing written for this cell; \`parity replay --provider ${outcome.provider} --cell ${outcome.cell} --verbose\` shows the walk\n` +
        notes(outcome.notes)
      );
    case "refused":
      return `${c.red("REFUSED")} ${name}: ${outcome.reason}\n`;
    case "timeout":
      return `${c.red("TIMEOUT")} ${name}: ${outcome.reason}\n` + notes(outcome.notes);
    case "skipped":
      return `${c.dim("SKIP")} ${name}: ${outcome.reason}\n`;
  }
}

/** The closing summary: `N rerecorded, N diverged, N refused, N skipped (M cells)`. */
export function formatRerecordSummary(outcomes: readonly RerecordOutcome[]): string {
  const count = (s: RerecordOutcome["status"]) => outcomes.filter((o) => o.status === s).length;
  const timeouts = count("timeout") > 0 ? `, ${count("timeout")} timed out (nothing written)` : "";
  return `${count("rerecorded")} rerecorded, ${count("diverged")} diverged, ${count("refused")} refused, ${count("skipped")} skipped${timeouts} (${outcomes.length} ${outcomes.length === 1 ? "cell" : "cells"})\n`;
}
