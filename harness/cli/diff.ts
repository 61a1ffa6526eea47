/**
 * `parity diff <a> <b>` (00-product.md, flow 5 and CLI): lane differences between two lane files,
 * two checkouts (directories holding `lanes/`), or two git refs (read-only `git show`), compared
 * as threads (harness/compare/lane-diff.ts). Prints per changed lane a coloured thread patch and
 * each difference once with its stable address and `parity allow` line, per lane on one side
 * only one summary line (its whole content with `--full`); `--json` for machines (always full),
 * `--html <file>` for one self-contained page (written atomically). Exit 0 when nothing differs,
 * 1 when a lane differs, 2 for bad arguments or lane files.
 */
import path from "node:path";
import type { Argv } from "yargs";
import { diffLaneSets, type LaneSetDiff } from "../compare/lane-set-diff.js";
import { readLaneSource } from "../compare/lane-sources.js";
import { DIFF_CONTEXT_LINES } from "../defaults.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { renderLaneSetHtml } from "../report/html.js";
import { renderLaneSetJson, renderLaneSetText } from "../report/lane-set.js";
import type { ParityCommand } from "./command.js";
import { nonNegativeIntegerFlag, outputFlagError } from "./flag-checks.js";

/**
 * Two lane files pair up under the first file's key, so the patch header names that file on
 * both sides (`+++ b/turn.json` for zero-work.json); relabels `---`/`+++` with each side's own
 * file name (a/<basename of a>, b/<basename of b>).
 */
function labelFilePair(diff: LaneSetDiff, a: string, b: string): LaneSetDiff {
  const entries = diff.entries.map((entry) => {
    if (entry.patch === "") return entry;
    const lines = entry.patch.split("\n");
    const minus = lines.findIndex((line) => line.startsWith("--- a/"));
    const plus = lines.findIndex((line) => line.startsWith("+++ b/"));
    const own = `${entry.key}.json`;
    if (minus >= 0) lines[minus] = lines[minus]!.replace(`--- a/${own}`, `--- a/${path.basename(a)}`);
    if (plus >= 0) lines[plus] = lines[plus]!.replace(`+++ b/${own}`, `+++ b/${path.basename(b)}`);
    return { ...entry, patch: lines.join("\n") };
  });
  return { ...diff, entries };
}

/** The `diff` command. */
export const diffCommand: ParityCommand = {
  command: "diff <a> <b>",
  describe: "Lane differences between two lane files, checkouts or git refs",
  builder: (y: Argv) =>
    y
      .positional("a", { type: "string", describe: "Old side: a lane file, a checkout directory, or a git ref" })
      .positional("b", { type: "string", describe: "New side: same forms as <a>" })
      .option("html", { type: "string", describe: "Also write one self-contained HTML page to this file" })
      .option("json", { type: "boolean", default: false, describe: "Print the differences as JSON" })
      .option("context", { type: "string", default: String(DIFF_CONTEXT_LINES), describe: "Unchanged lines shown around each change in a changed lane (a whole number ≥ 0)" })
      .option("full", {
        type: "boolean",
        default: false,
        describe: "Print lanes present on one side only in full (default: one line each, e.g. '+ lanes/echo/turn.json: added (12 events)'); --json always has them in full",
      })
      .example("$0 diff main HEAD", "lanes/ of two git refs")
      .example("$0 diff ../old-checkout .", "lanes/ of two checkouts")
      .example("$0 diff old/turn-tools.json lanes/acp-cursor/turn-tools.json", "two lane files")
      .example("$0 diff main HEAD --html lane-diff.html", "a page for reviewers"),
  async run(args, ctx) {
    const a = String(args.a);
    const b = String(args.b);
    const context = nonNegativeIntegerFlag("context", args.context, "lines") ?? DIFF_CONTEXT_LINES;
    const [left, right] = await Promise.all([readLaneSource(a, ctx.cwd), readLaneSource(b, ctx.cwd)]);
    if ((left.kind === "file") !== (right.kind === "file")) {
      throw new UsageError(`compare a lane file with a lane file, or two checkouts/refs ("${a}" is a ${left.kind}, "${b}" a ${right.kind})`);
    }
    const paired = diffLaneSets(left, right, { context });
    const diff = left.kind === "file" ? labelFilePair(paired, a, b) : paired;
    // The page is written before anything is printed, so an unwritable --html is one line, exit 2.
    let wrote: string | undefined;
    if (typeof args.html === "string" && args.html !== "") {
      const file = path.resolve(ctx.cwd, args.html);
      try {
        await writeFileAtomic(file, renderLaneSetHtml(diff, { a, b }));
      } catch (thrown) {
        throw outputFlagError("html", args.html, file, thrown);
      }
      const shown = path.relative(ctx.cwd, file);
      wrote = shown.startsWith("..") || path.isAbsolute(shown) ? file : shown;
    }
    if (args.json) ctx.out(renderLaneSetJson(diff, { a, b }));
    else ctx.out(renderLaneSetText(diff, { color: ctx.color, a, b, full: args.full === true, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}) }));
    if (wrote !== undefined && !args.json) ctx.out(`wrote ${wrote}\n`);
    const differs = diff.entries.some((entry) => entry.status !== "same");
    return differs ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
  },
};
