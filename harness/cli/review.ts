/**
 * `parity review` (in the manner of `cargo insta review`): walks the pending results an earlier
 * `parity check` left (review-pending.ts; nothing is replayed), or, when none are there, runs the
 * gate once; then it walks each changed cell — its summary line, then its diff — and asks what
 * to do with it:
 *
 * - **accept**: rename the cell's pending results over the accepted files (its oracle, and its
 *   `bridge→runtime.current.ndjson` only when the bridge's output changed), which the gate wrote
 *   under the `pending` write policy (harness/check/pending.ts): accepting replays nothing;
 * - **reject**: delete its pending results and leave the cell as is (the gate stays red until the
 *   bridge or the recording changes);
 * - **allow**: append an allowlist entry per difference, tied to a PR and a reason;
 * - **skip**, or **quit** the review.
 *
 * Then it prints what was done and the `git add` of every file it wrote. Refused under CI.
 */
import path from "node:path";
import { createInterface } from "node:readline";
import type { Argv } from "yargs";
import { EXIT_CODES, UsageError } from "../errors.js";
import type { CellResult } from "../report/check-report.js";
import { cellAllowPaths } from "../report/suggest.js";
import { renderCellText } from "../report/text.js";
import { commitHint, whyNotAcceptable } from "../rerecord/accept.js";
import { runGate } from "../check/gate.js";
import type { PendingResult } from "../check/pending.js";
import { acceptPending, rejectPending, resolveWritePolicy } from "../check/write-policy.js";
import { loadAllowlists } from "../compare/allowlist.js";
import { selectRecordings } from "../recording/select.js";
import type { RunFlags } from "../report/advice.js";
import { appendAllowlistEntry } from "./allow-entry.js";
import { prunableInRun, removeEntries } from "./allow-prune.js";
import type { RecordingLocation } from "../recording/locations.js";
import type { LoadedAllowlistEntry } from "../compare/allowlist.js";
import { gateContextOf, resolveGateOptions } from "./gate-flags.js";
import type { ParityCommand } from "./command.js";
import type { CliContext } from "./context.js";
import { FLAGS, resolveSelection, stringFlag, stringsFlag } from "./options.js";
import { requireDirectoryFlag } from "./path-checks.js";
import { PENDING_SOURCES, pendingCellsOnDisk, type PendingSource } from "./review-pending.js";
import { listPendingRecordings } from "../check/pending-recordings.js";
import { settleUpgrade, upgradeRejectedLine } from "./drift-accept.js";
import picomatch from "picomatch";
import { PR_PATTERN } from "../compare/allowlist.js";
import { CELLS_ROOT, ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";

/** What the user decided for one cell (`dismissed`: a new recording rejected, which leaves nothing red). */
export type ReviewDecision = "accepted" | "rejected" | "dismissed" | "allowed" | "pruned" | "skipped";

/** Options of {@link createReviewCommand}. */
export interface ReviewCommandOptions {
  /** Where answers are read from, one per line (default: standard input). */
  input?: NodeJS.ReadableStream;
}

/** The choices after [a]ccept, whatever the cell's pending results came from. */
const OTHER_CHOICES = "[A]ccept this and all the rest  [r]eject  a[l]low with a PR  [s]kip  [q]uit";

/** The choices for a cell whose pending results came from `from` (accepting does what that source's results need). */
function choicesFor(from: PendingSource): string {
  return `[a]ccept (${PENDING_SOURCES[from].accept})  ${OTHER_CHOICES}`;
}

/**
 * The legend before the walk: how many cells, where their pending results came from (each
 * source named with its count), and what [a]ccept does for each source.
 */
function legendOf(cells: readonly CellResult[], sourceOf: (cell: CellResult) => PendingSource, fromDisk: boolean): string {
  const head = `${cells.length} changed ${cells.length === 1 ? "cell" : "cells"} to review`;
  const counts = new Map<PendingSource, number>();
  for (const cell of cells) counts.set(sourceOf(cell), (counts.get(sourceOf(cell)) ?? 0) + 1);
  // This review's own gate run: its results are a check's, said as before.
  if (!fromDisk) return `${head}. ${choicesFor("check")}`;
  const sources = [...counts.keys()];
  if (sources.length === 1) return `${head}, pending from ${PENDING_SOURCES[sources[0]!].from}. ${choicesFor(sources[0]!)}`;
  const from = sources.map((source) => `${PENDING_SOURCES[source].from} (${counts.get(source)!})`).join(", ");
  const accept = sources.map((source) => `${PENDING_SOURCES[source].from}: ${PENDING_SOURCES[source].accept}`).join("; ");
  return `${head}, pending from ${from}. [a]ccept (${accept})  ${OTHER_CHOICES}`;
}

/** Reads answers line by line; `undefined` once the input ends. */
function answerReader(input: NodeJS.ReadableStream): { next(prompt: string, out: (text: string) => void): Promise<string | undefined>; close(): void } {
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async next(prompt, out) {
      out(prompt);
      const line = await lines.next();
      return line.done ? undefined : line.value.trim();
    },
    close: () => rl.close(),
  };
}

/**
 * What a review walks: the checked cells (from the gate, or the cells with pending results on
 * disk), the pending results by `provider/cell`, how many cells were looked at, and the run's flags.
 */
interface ReviewSet {
  cells: CellResult[];
  pending: Map<string, PendingResult>;
  total: number;
  flags?: RunFlags;
  /** The cells looked at (after `--match`), and the allowlist entries in effect. */
  locations: RecordingLocation[];
  allowlist: LoadedAllowlistEntry[];
  /** True when the cells come from pending files on disk (nothing replayed). */
  fromDisk: boolean;
  /** Where each cell's pending results came from, by `provider/cell` (absent: this review's own gate run, a check). */
  sources: Map<string, PendingSource>;
}

/**
 * The review set: the pending results of an earlier check when any selected cell has some
 * (said in one line; nothing is replayed, so the replay flags `--module`, `--timeout`, `--jobs`
 * and `--cells` are not even loaded), else one gate run under the `pending` write policy.
 * @throws UsageError for a bad flag (the selection and `--lanes` first; the gate's own when it runs)
 */
async function reviewSet(args: Parameters<ParityCommand["run"]>[0], ctx: CliContext, match: readonly string[]): Promise<ReviewSet> {
  const selection = resolveSelection(args, ctx.cwd);
  const lanes = stringFlag(args, "lanes");
  if (lanes !== undefined) requireDirectoryFlag("lanes", lanes, path.resolve(ctx.cwd, lanes));
  const lanesDir = path.resolve(ctx.cwd, lanes ?? ORACLES_DIR);
  // With each cell's accepted alternates, and the new recordings the project does not have yet (pending-recordings.ts).
  const pendingNew = await listPendingRecordings(selection.roots, selection.filter);
  // `--provider`/`--cell` naming only a new recording (nothing accepted of it yet) select it alone.
  const accepted = await selectRecordings(selection.roots, selection.filter, { alternates: true }).catch((thrown: unknown) => {
    if (thrown instanceof UsageError && pendingNew.length > 0) return [];
    throw thrown;
  });
  const selected = [...accepted, ...pendingNew];
  // `--match` globs over `provider/cell` narrow the cells before anything is read or replayed.
  const matches = match.length === 0 ? () => true : picomatch([...match]);
  const locations = selected.filter((l) => matches(`${l.provider}/${l.cell}`));
  if (locations.length === 0 && selected.length > 0) {
    throw new UsageError(`--match ${match.map((m) => `'${m}'`).join(" ")} matches none of the ${selected.length} selected cells (globs over provider/cell, e.g. 'acp-*/turn*')`);
  }
  const allowlist = await loadAllowlists({ cwd: ctx.cwd, files: stringsFlag(args, "allowlist") });
  const onDisk = await pendingCellsOnDisk(locations, { lanesDir, repoRoot: ctx.cwd, allowlist, cellsRoot: path.resolve(ctx.cwd, CELLS_ROOT) });
  if (onDisk.length > 0) {
    // Each source named once, in the order of PENDING_SOURCES (review-pending.ts says which is which).
    const present = (Object.keys(PENDING_SOURCES) as PendingSource[]).filter((source) => onDisk.some((p) => p.from === source));
    const source = present.map((s) => PENDING_SOURCES[s].from).join(" and ");
    ctx.out(
      `${onDisk.length} ${onDisk.length === 1 ? "cell has" : "cells have"} pending results from ${source}: reviewing them as they are (nothing replayed; run parity check again to refresh them)\n`,
    );
    const pending = new Map(onDisk.map((p) => [`${p.cell.provider}/${p.cell.cell}`, p.pending]));
    const sources = new Map(onDisk.map((p) => [`${p.cell.provider}/${p.cell.cell}`, p.from]));
    return { cells: onDisk.map((p) => p.cell), pending, total: locations.length, locations, allowlist, fromDisk: true, sources };
  }
  const flags = await resolveGateOptions(args, ctx.cwd);
  const only = match.length === 0 ? undefined : new Set(locations.map((l) => `${l.provider}/${l.cell}`));
  const policy = resolveWritePolicy({ ci: ctx.ci, update: false, command: "review" });
  const gate = await runGate({ ...flags, allowlist, write: policy, ...(only !== undefined ? { only } : {}) }, gateContextOf(ctx));
  return {
    cells: gate.run.cells,
    pending: gate.pending,
    total: gate.run.cells.length,
    ...(gate.run.flags !== undefined ? { flags: gate.run.flags } : {}),
    locations: gate.locations,
    allowlist,
    fromDisk: false,
    sources: new Map(),
  };
}

/** Builds `parity review` reading its answers from `options.input`. */
export function createReviewCommand(options: ReviewCommandOptions = {}): ParityCommand {
  return {
    tempDir: true,
    command: "review",
    describe: "Walk each changed cell of a failing check and accept (rerecord it), reject, or allow it with a PR",
    builder: (y: Argv) =>
      y
        .option("recordings", FLAGS.recordings)
        .option("provider", FLAGS.provider)
        .option("cell", FLAGS.cell)
        .option("lanes", { type: "string", describe: `Oracles directory (default: ${ORACLES_DIR})` })
        .option("allowlist", FLAGS.allowlist)
        .option("jobs", FLAGS.jobs)
        .option("timeout", FLAGS.timeout)
        .option("module", FLAGS.module)
        .option("match", { type: "string", array: true, describe: "Review only cells whose provider/cell matches this glob (repeatable), e.g. 'acp-*/turn-*'" })
        .example("$0 review", "After a failing `parity check`: decide cell by cell")
        .example("$0 review --match 'acp-claude*/*'", "Only the claude providers' changed cells")
        .example("$0 review --provider acp-opencode --module ./dist/my-bridge.js", "Review the changes your bridge makes")
        .epilogue("Non-interactive: `parity check --update` accepts every changed cell. Nothing is written under CI=true."),
    async run(args, ctx) {
      if (ctx.ci) throw new UsageError("CI=true: parity review writes oracles and allowlists; run it locally and commit what it prints");
      const match = stringsFlag(args, "match");
      const set = await reviewSet(args, ctx, match);
      const reader = answerReader(options.input ?? process.stdin);
      try {
        return await review(set, ctx, reader);
      } finally {
        reader.close();
      }
    },
  };
}

/** `parity review` on standard input. */
export const reviewCommand: ParityCommand = createReviewCommand();

async function review(gate: ReviewSet, ctx: CliContext, reader: ReturnType<typeof answerReader>): Promise<number> {
  const failing = gate.cells.filter((c) => c.status === "fail" || c.status === "error");
  // A timed-out cell has no verdict: nothing to review or write for it, and the run is not green.
  const timedOut = gate.cells.filter((c) => c.status === "timeout");
  for (const cell of timedOut) ctx.out(`not reviewable: ${cell.provider}/${cell.cell}: it timed out (no verdict); nothing written for it\n`);
  const endCode = (open: boolean) => (open ? EXIT_CODES.parityFailure : timedOut.length > 0 ? EXIT_CODES.infrastructureTimeout : EXIT_CODES.ok);
  const reviewable = failing.filter((c) => whyNotAcceptable(c) === undefined);
  // A cell that fails only by stale allowlist entries is walked too: its entries can be pruned.
  const staleOnly = failing.filter(isStaleOnly);
  for (const cell of failing) {
    const why = whyNotAcceptable(cell);
    if (why !== undefined && !isStaleOnly(cell)) ctx.out(`not reviewable: ${cell.provider}/${cell.cell}: ${why}\n`);
  }
  const stillOpen = failing.length - reviewable.length - staleOnly.length;
  if (reviewable.length + staleOnly.length === 0) {
    ctx.out(failing.length === 0 && timedOut.length === 0 ? `nothing to review: ${gate.total} cells, none changed\n` : "nothing to review\n");
    if (gate.fromDisk) ctx.out(notReplayedHint);
    return endCode(failing.length > 0);
  }
  const decisions: Array<{ cell: CellResult; decision: ReviewDecision }> = [];
  const written: string[] = [];
  const pruned = await walkStaleOnly(staleOnly, gate, ctx, reader, written, decisions);
  const sourceOf = (cell: CellResult): PendingSource => gate.sources.get(`${cell.provider}/${cell.cell}`) ?? "check";
  if (reviewable.length > 0 && !pruned.quit) ctx.out(`${legendOf(reviewable, sourceOf, gate.fromDisk)}\n`);

  let quit = pruned.quit;
  let acceptAll = false;
  for (const [index, cell] of reviewable.entries()) {
    if (quit) {
      decisions.push({ cell, decision: "skipped" });
      continue;
    }
    ctx.out(`\n── ${cell.provider}/${cell.cell} (${index + 1}/${reviewable.length}) ──\n`);
    ctx.out(renderCellText(cell, { color: ctx.color, ...(gate.flags !== undefined ? { flags: gate.flags } : {}) }));
    for (;;) {
      const answer = acceptAll ? "a" : await reader.next(`${cell.provider}/${cell.cell}: accept, accept all, reject, allow, skip or quit? [a/A/r/l/s/q] `, ctx.out);
      if (answer === "A") acceptAll = true;
      if (answer === undefined || answer === "q") {
        if (answer === undefined) ctx.out("\n");
        quit = true;
        decisions.push({ cell, decision: "skipped" });
        break;
      }
      if (answer === "s") {
        decisions.push({ cell, decision: "skipped" });
        break;
      }
      if (answer === "r") {
        await rejectPending(gate.pending.get(`${cell.provider}/${cell.cell}`)?.files ?? []);
        // A new recording rejected is gone and leaves the gate as it was (pending-recordings.ts).
        if (cell.detail?.newRecording === true) {
          ctx.out("  rejected: the new recording and its pending oracle are deleted; the project is as it was\n");
          decisions.push({ cell, decision: "dismissed" });
          break;
        }
        ctx.out(
          cell.detail?.pendingRecording === true
            ? await upgradeRejectedLine(cell.provider, ctx.cwd, recordingsRootOf(cell, gate, ctx.cwd))
            : "  rejected: left as is; the gate stays red until the bridge or the recording changes\n",
        );
        decisions.push({ cell, decision: "rejected" });
        break;
      }
      if (answer === "a" || answer === "A") {
        const files = await accept(cell, gate, ctx);
        if (files === undefined) continue;
        written.push(...files);
        // A cell's first oracle (an import's, a new recording's): its recording is new to git too.
        const location = cell.detail?.missingOracle === true ? gate.locations.find((l) => l.provider === cell.provider && l.cell === cell.cell) : undefined;
        if (location !== undefined) written.push(location.dir);
        for (const file of files) ctx.wrote?.(file);
        decisions.push({ cell, decision: "accepted" });
        // The upgrade's last pending cell decided: its pin stays (drift-accept.ts settleUpgrade).
        if (cell.detail?.pendingRecording === true) {
          const settled = await settleUpgrade(cell.provider, ctx.cwd, recordingsRootOf(cell, gate, ctx.cwd));
          if (settled?.settled === true) ctx.out(`  ${settled.line}\n`);
        }
        break;
      }
      if (answer === "l") {
        const files = await allow(cell, ctx, reader);
        if (files === undefined) continue;
        // The difference is allowed, not accepted: what was pending for it goes.
        await rejectPending(gate.pending.get(`${cell.provider}/${cell.cell}`)?.files ?? []);
        written.push(...files);
        for (const file of files) ctx.wrote?.(file);
        decisions.push({ cell, decision: "allowed" });
        break;
      }
      ctx.out(`  ${choicesFor(sourceOf(cell))}\n`);
    }
  }

  const count = (d: ReviewDecision) => decisions.filter((x) => x.decision === d).length;
  const prunedCount = count("pruned");
  ctx.out(
    `\nreviewed: ${count("accepted")} accepted, ${count("allowed")} allowed, ${count("rejected") + count("dismissed")} rejected, ${prunedCount > 0 ? `${prunedCount} pruned, ` : ""}${count("skipped")} skipped\n`,
  );
  const unique = [...new Set(written)];
  ctx.out(unique.length === 0 ? "nothing written\n" : commitHint(unique, ctx.cwd));
  if (gate.fromDisk) ctx.out(notReplayedHint);
  // An accepted cell whose allowlist entries were stale stays red until they go (as check -u says).
  const staleLeft = decisions.some((d) => d.decision === "accepted" && d.cell.stale.length > 0);
  const open = decisions.some((d) => d.decision === "rejected" || d.decision === "skipped") || stillOpen > 0 || staleLeft;
  return endCode(open);
}

/** The recordings root of a reviewed cell (`<root>/<provider>/<cell>` → `<root>`), else the project's `recordings/`. */
function recordingsRootOf(cell: CellResult, gate: ReviewSet, cwd: string): string {
  const location = gate.locations.find((l) => l.provider === cell.provider && l.cell === cell.cell);
  return location !== undefined ? path.dirname(path.dirname(location.dir)) : path.resolve(cwd, RECORDINGS_ROOT);
}

/**
 * What a review from pending files cannot know: a cell with no pending file was not replayed, so a
 * stale allowlist entry or a divergence there shows only in the next check.
 */
const notReplayedHint = "cells without pending results were not replayed: parity check confirms the gate (a stale allowlist entry shows there; parity allow --prune removes it)\n";

/** True for a failing cell whose only failure is stale allowlist entries (no lane difference, no divergence, an oracle). */
function isStaleOnly(cell: CellResult): boolean {
  return cell.status === "fail" && cell.stale.length > 0 && cell.diffs.length === 0 && cell.divergences.length === 0 && cell.detail?.missingOracle !== true;
}

/**
 * Walks the cells that fail only by stale allowlist entries: for each, its entries, then
 * [p]rune / [s]kip / [q]uit. Prune removes the cell's stale entries that `parity allow --prune`
 * would remove (stale in every checked cell they apply to, applying to no recorded cell left
 * unchecked); an entry kept for another cell is said. Records each decision and the files written.
 */
async function walkStaleOnly(
  cells: readonly CellResult[],
  gate: ReviewSet,
  ctx: CliContext,
  reader: ReturnType<typeof answerReader>,
  written: string[],
  decisions: Array<{ cell: CellResult; decision: ReviewDecision }>,
): Promise<{ quit: boolean }> {
  if (cells.length === 0) return { quit: false };
  ctx.out(`${cells.length} ${cells.length === 1 ? "cell fails" : "cells fail"} only by stale allowlist entries (they mask no difference): [p]rune them (as parity allow --prune)  [s]kip  [q]uit\n`);
  const prunable = new Set((await prunableInRun(gate.allowlist, gate.cells, gate.locations)).map((e) => `${e.source.file}#${e.source.index}`));
  const done = new Set<string>();
  // Entries are removed by their index in their file: all at once, after the walk, so every index holds.
  const toRemove: LoadedAllowlistEntry[] = [];
  const finish = async (quit: boolean) => {
    written.push(...(await removeEntries(toRemove, ctx)));
    return { quit };
  };
  for (const [index, cell] of cells.entries()) {
    ctx.out(`\n── ${cell.provider}/${cell.cell} (stale entries ${index + 1}/${cells.length}) ──\n`);
    const entries = cell.stale as LoadedAllowlistEntry[];
    for (const entry of entries) ctx.out(`  stale: ${path.relative(ctx.cwd, entry.source.file)} entry ${entry.source.index}: ${entry.path} (${entry.pr}): ${entry.reason}\n`);
    for (;;) {
      const answer = await reader.next(`${cell.provider}/${cell.cell}: prune its stale entries, skip or quit? [p/s/q] `, ctx.out);
      if (answer === undefined || answer === "q") {
        if (answer === undefined) ctx.out("\n");
        for (const rest of cells.slice(index)) decisions.push({ cell: rest, decision: "skipped" });
        return finish(true);
      }
      if (answer === "s") {
        decisions.push({ cell, decision: "skipped" });
        break;
      }
      if (answer === "p") {
        const key = (e: LoadedAllowlistEntry) => `${e.source.file}#${e.source.index}`;
        const removable = entries.filter((e) => prunable.has(key(e)) && !done.has(key(e)));
        const kept = entries.filter((e) => !prunable.has(key(e)));
        for (const e of kept) ctx.out(`  kept: ${path.relative(ctx.cwd, e.source.file)} entry ${e.source.index}: it applies to a cell this review did not check, or masks a difference there\n`);
        for (const e of removable) done.add(key(e));
        toRemove.push(...removable);
        decisions.push({ cell, decision: kept.length === 0 ? "pruned" : "skipped" });
        break;
      }
      ctx.out("  [p]rune its stale entries  [s]kip  [q]uit\n");
    }
  }
  return finish(false);
}

/**
 * Accepts the cell by renaming its pending results over the accepted files (no replay); the
 * files written, or undefined when there was nothing to accept (already said why).
 */
async function accept(cell: CellResult, gate: ReviewSet, ctx: CliContext): Promise<string[] | undefined> {
  const pending = gate.pending.get(`${cell.provider}/${cell.cell}`);
  const outcome = pending?.outcome;
  if (pending === undefined || pending.problem !== undefined || (outcome !== undefined && outcome.status !== "rerecorded")) {
    const reason = pending?.problem ?? (outcome !== undefined && "reason" in outcome ? outcome.reason : undefined);
    ctx.out(`  not accepted: rerecord ${outcome?.status ?? "refused"}${reason !== undefined ? ` (${reason})` : ""}\n`);
    return undefined;
  }
  const files = await acceptPending(pending.files);
  const notNeeded = outcome?.status === "rerecorded" && outcome.currentLane === "not needed" ? "; no current lane needed (the bridge's output is unchanged)" : "";
  ctx.out(`  accepted: ${files.map((f) => path.relative(ctx.cwd, f)).join(", ") || "nothing changed on disk"}${notNeeded}\n`);
  return files;
}

/** Asks for a PR and a reason and appends an entry per suggested path; the files written, or undefined. */
async function allow(cell: CellResult, ctx: CliContext, reader: ReturnType<typeof answerReader>): Promise<string[] | undefined> {
  const { paths, unmaskable } = cellAllowPaths(cell.detail?.verdict?.diffs ?? cell.diffs);
  if (paths.length === 0 || unmaskable) {
    ctx.out("  these differences cannot all be allowlisted (key order, counters, or events without a selectable type): accept or reject instead\n");
    return undefined;
  }
  const pr = await reader.next("  PR that makes this difference (e.g. #42): ", ctx.out);
  if (pr === undefined || pr === "") return undefined;
  // Checked before the reason is asked, so a reason is never typed for nothing.
  if (!PR_PATTERN.test(pr)) {
    ctx.out(`  not allowed: PR "${pr}" is not "#" and a number (e.g. #42)\n`);
    return undefined;
  }
  const reason = await reader.next("  why it is intended: ", ctx.out);
  if (reason === undefined || reason === "") return undefined;
  const files = new Set<string>();
  try {
    for (const entryPath of paths) {
      const recordings = cell.detail?.recordingsRoot;
      const added = await appendAllowlistEntry(
        { provider: cell.provider, cell: cell.cell, ...(recordings !== undefined ? { recordings } : {}), layer: "events", path: entryPath, pr, reason },
        { cwd: ctx.cwd },
      );
      files.add(added.file);
      ctx.out(`  allowed: ${path.relative(ctx.cwd, added.file)} entry ${added.index}: ${entryPath} (${pr})\n`);
    }
  } catch (thrown) {
    if (!(thrown instanceof UsageError)) throw thrown;
    ctx.out(`  not allowed: ${thrown.message}\n`);
    return files.size === 0 ? undefined : [...files];
  }
  return [...files];
}
