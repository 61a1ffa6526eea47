/**
 * `parity check` once its bridges are spawned (check.ts): the gate run from its start
 * (`runGate` with the `GateStart`), the report, `--explain`, the job summary and `--update`. A
 * module of its own, imported by `check` only after `startGate` spawned the bridges, since it
 * loads the replay engine, the comparators, the allowlists' globbing and the reporters: loading
 * them overlaps the bridges' start-up (issue 25).
 */
import { appendFile } from "node:fs/promises";
import path from "node:path";
import { EXIT_CODES } from "../errors.js";
import { checkExitCode, type CheckRunResult } from "../report/check-report.js";
import { commitHint, whyNotAcceptable } from "../rerecord/accept.js";
import type { CliContext } from "./context.js";
import { selectReporter } from "../report/reporters.js";
import { renderGithubStepSummary } from "../report/github.js";
import type { CellExtras } from "../check/compare-cell.js";
import { runGate, type GateContext, type GateOptions, type GateRun, type GateStart } from "../check/gate.js";
import { acceptPending, nothingWrittenNotice, PENDING_SUFFIX, type ProjectOutsider } from "../check/write-policy.js";
import type { ReporterName } from "../report/reporter-names.js";
import { visibleLine } from "../report/visible.js";
import { pendingNotice } from "../check/pending-notice.js";
import { listPendingRecordings, pendingRecordingsNotice } from "../check/pending-recordings.js";

/**
 * `--explain` text: per cell, each applying allowlist entry and the values it masked per side, and
 * each truth entry that applied with how many untruths it masked (the untruths' evidence lines are
 * the text reporter's, under `--explain`).
 */
export function renderExplain(extras: readonly CellExtras[]): string {
  let out = "";
  for (const cell of extras) {
    for (const t of cell.truthEntries ?? []) {
      out += `${cell.provider}/${cell.cell}: truth ${t.entry.fact} (${t.entry.pr}): masked ${t.masked}${t.masked === 0 ? " (nothing here)" : ""}\n    ${t.entry.reason}\n`;
    }
    if (cell.masked.length === 0) continue;
    out += `${cell.provider}/${cell.cell}:\n`;
    for (const m of cell.masked) {
      const sides = [`live ${m.live}`];
      if (m.oracle !== undefined) sides.push(`oracle ${m.oracle}`);
      if (m.recording !== undefined) sides.push(`recording ${m.recording}`);
      // Every field is the allowlist file's text, which a pull request can change: one line each, made visible.
      out += `  ${visibleLine(m.entry.layer)} ${visibleLine(m.entry.path)} (${visibleLine(m.entry.pr)}): ${sides.join(", ")}${m.masksDifference ? "" : " — stale: masks no difference"}\n`;
      out += `    ${visibleLine(m.entry.reason)}\n`;
    }
  }
  return out === "" ? "no allowlist entry applied\n" : out;
}

/**
 * `check --update`: accepts every changed cell of the run (see `whyNotAcceptable`) by renaming
 * the pending results the gate wrote for it (harness/check/pending.ts; no replay of its own),
 * prints per cell what was written, then the `git add` of every written file. A cell that timed
 * out (in the check or in its pending rerecord) has no verdict: nothing is written for it.
 * Exit 2 when an input was unreadable or a cell's files could not be written (a read-only
 * directory: nothing written for it, nothing left pending), else 1 when some cell still fails,
 * else 4 when some cell timed out, else 0 (every failing cell accepted).
 */
async function updateChangedCells(gate: GateRun, ctx: CliContext, out: (text: string) => void): Promise<number> {
  const rel = (file: string) => path.relative(ctx.cwd, file);
  const written: string[] = [];
  let stillFailing = 0;
  let timedOut = 0;
  let unwritable = 0;
  for (const cell of gate.run.cells) {
    if (cell.status === "timeout") {
      timedOut += 1;
      out(`not updated ${cell.provider}/${cell.cell}: it timed out (no verdict); nothing written for it\n`);
    }
    if (cell.status !== "fail") continue;
    const pending = gate.pending.get(`${cell.provider}/${cell.cell}`);
    if (pending?.problem !== undefined) {
      // The files could not be written (a read-only directory): none were, and none are left pending.
      unwritable += 1;
      out(`not updated ${cell.provider}/${cell.cell}: ${pending.problem}; nothing written for it\n`);
      continue;
    }
    const why = whyNotAcceptable(cell);
    if (why !== undefined || pending === undefined) {
      stillFailing += 1;
      out(`not updated ${cell.provider}/${cell.cell}: ${why ?? "not selected"}\n`);
      continue;
    }
    const { outcome } = pending;
    if (outcome !== undefined && outcome.status !== "rerecorded") {
      if (outcome.status === "timeout") timedOut += 1;
      else stillFailing += 1;
      const reason = "reason" in outcome ? outcome.reason : undefined;
      out(`not updated ${cell.provider}/${cell.cell}: rerecord ${outcome.status}${reason !== undefined ? ` (${reason})` : ""}\n`);
      continue;
    }
    const files = await acceptPending(pending.files);
    written.push(...files);
    for (const file of files) ctx.wrote?.(file);
    if (cell.stale.length > 0) stillFailing += 1;
    out(`updated ${cell.provider}/${cell.cell}: ${files.map(rel).join(", ") || "nothing changed on disk"}${cell.stale.length > 0 ? "; its stale allowlist entries remain" : ""}\n`);
  }
  const notUpdated = unwritable + stillFailing + timedOut;
  if (written.length > 0) out(commitHint(written, ctx.cwd));
  else out(notUpdated === 0 ? "nothing to commit\n" : `nothing written: ${notUpdated} ${notUpdated === 1 ? "cell was" : "cells were"} not updated (above)\n`);
  if (unwritable > 0 || gate.run.cells.some((cell) => cell.status === "error")) return EXIT_CODES.inputError;
  if (stillFailing > 0) return EXIT_CODES.parityFailure;
  return timedOut > 0 ? EXIT_CODES.infrastructureTimeout : EXIT_CODES.ok;
}

/**
 * Appends the run's Markdown job summary to `$GITHUB_STEP_SUMMARY` (GitHub shows it on the run's
 * page), when that variable names a file. A summary that cannot be written is said on stderr and
 * changes no verdict.
 */
async function appendStepSummary(run: CheckRunResult, ctx: CliContext): Promise<void> {
  const file = ctx.env?.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    await appendFile(file, renderGithubStepSummary(run));
  } catch (thrown) {
    ctx.err(`parity: could not append the job summary to GITHUB_STEP_SUMMARY (${file}): ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}\n`);
  }
}

/** What `check` resolved and started before loading this module (check.ts). */
export interface CheckStarted {
  /** `check`'s own flags (check.ts, `CheckOptions`). */
  options: { reporter: ReporterName; explain: boolean; update: boolean };
  /** The gate's options (`options` with the write policy) and context, as `started` was started with. */
  gateOptions: GateOptions;
  gateCtx: GateContext;
  started: GateStart;
  /** The first `--lanes`/`--recordings` outside the project (write-policy.ts), when a local check writes nothing there. */
  outsideProject: ProjectOutsider | undefined;
}

/**
 * Runs the gate from `run.started` and reports it on `ctx` (`checkCommand` in check.ts says the
 * exit codes). Every bridge the run started is ended before this returns or throws (`runGate`).
 */
export async function finishCheck(run: CheckStarted, ctx: CliContext): Promise<number> {
  const { options, outsideProject } = run;
  const gate = await runGate(run.gateOptions, run.gateCtx, run.started);
  const reporter = selectReporter(options.reporter);
  const { extras } = gate;
  if (outsideProject !== undefined && gate.run.cells.some((c) => c.status === "fail")) ctx.err(nothingWrittenNotice(outsideProject, ctx.cwd));
  const workspace = ctx.env?.GITHUB_WORKSPACE;
  ctx.out(reporter(gate.run, { color: ctx.color, cwd: ctx.cwd, explain: options.explain, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}), ...(workspace ? { workspace } : {}) }));
  if (options.reporter === "github") await appendStepSummary(gate.run, ctx);
  const textual = options.reporter === "text";
  if (options.explain) (textual ? ctx.out : ctx.err)(renderExplain(extras));
  for (const cell of extras) {
    // Pending files are said in one line below (pending-notice.ts); an oracle written in place (`-u`) by name.
    if (cell.wroteOracle !== undefined && !cell.wroteOracle.endsWith(PENDING_SUFFIX)) ctx.err(`wrote oracle ${path.relative(ctx.cwd, cell.wroteOracle)}\n`);
    if (!ctx.verbose) continue;
    for (const n of cell.notes) ctx.err(`${cell.provider}/${cell.cell}: note${n.seq === null ? "" : ` (after seq ${n.seq})`}: ${n.message}\n`);
  }
  // New recordings the project does not have yet wait for parity review, whatever -u (pending-recordings.ts).
  if (!ctx.ci) ctx.err(pendingRecordingsNotice(await listPendingRecordings(run.gateOptions.selection.roots, run.gateOptions.selection.filter), ctx.cwd));
  if (options.update) return updateChangedCells(gate, ctx, textual ? ctx.out : ctx.err);
  ctx.err(pendingNotice({ cells: gate.run.cells, pending: gate.pending, write: gate.write, ci: ctx.ci, cwd: ctx.cwd }));
  return checkExitCode(gate.run);
}
