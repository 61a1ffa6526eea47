/**
 * `parity diff <a> <b>` (docs/design/00-product.md, flow 5 and CLI): lane differences between two lane files,
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
import { laneVersionsOf, type LaneVersions } from "../compare/lane-versions.js";
import { DIFF_CONTEXT_LINES } from "../defaults.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { renderLaneSetHtml } from "../report/html.js";
import { renderLaneSetJson, renderLaneSetText } from "../report/lane-set.js";
import type { ParityCommand } from "./command.js";
import { nonNegativeIntegerFlag, outputFlagError } from "./flag-checks.js";
import { booleanFlag, stringFlag, type ParsedFlags } from "./options.js";
import { shownPath } from "../recording/paths.js";

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

/** `parity diff`'s options, complete and typed. */
export interface DiffOptions {
  /** The two sides as typed (lane files, checkouts or git refs). */
  a: string;
  b: string;
  /** Unchanged lines around each change. */
  context: number;
  /** `--html` as typed and resolved, when given (and not empty). */
  html?: { value: string; file: string };
  json: boolean;
  full: boolean;
}

/**
 * `parity diff <a> <b>`: `--context` (a whole number ≥ 0), `--html`, `--json`, `--full`.
 * @throws UsageError `--context <value>: …` naming the value
 */
export function resolveDiffOptions(args: ParsedFlags, cwd: string): DiffOptions {
  const context = nonNegativeIntegerFlag("context", args.context, "lines") ?? DIFF_CONTEXT_LINES;
  const html = stringFlag(args, "html");
  return {
    a: String(args.a),
    b: String(args.b),
    context,
    ...(html !== undefined && html !== "" ? { html: { value: html, file: path.resolve(cwd, html) } } : {}),
    json: booleanFlag(args, "json"),
    full: booleanFlag(args, "full"),
  };
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
      .example("$0 diff lanes/codex lanes/acp-codex", "two providers' oracles, cell by cell")
      .example("$0 diff main HEAD --html lane-diff.html", "a page for reviewers"),
  async run(args, ctx) {
    const options = resolveDiffOptions(args, ctx.cwd);
    const { a, b, context } = options;
    // Both read at once, but a bad argument is named in argument order: Promise.all rejected with
    // whichever failed first in time, so `diff nope-a nope-b` named nope-b.
    const [leftRead, rightRead] = await Promise.allSettled([readLaneSource(a, ctx.cwd), readLaneSource(b, ctx.cwd)]);
    if (leftRead.status === "rejected") throw leftRead.reason;
    if (rightRead.status === "rejected") throw rightRead.reason;
    const [left, right] = [leftRead.value, rightRead.value];
    if ((left.kind === "file") !== (right.kind === "file")) {
      throw new UsageError(`compare a lane file with a lane file, or two checkouts/refs ("${a}" is a ${left.kind}, "${b}" a ${right.kind})`);
    }
    // Two folders that share no lane compare nothing: an error, never a pass. A checkout without
    // lanes/ is a state of the project (every lane of the other side added or removed); any other
    // folder without lanes is the wrong folder.
    if (left.kind === "directory" && right.kind === "directory") {
      const empty = [left, right].find((source) => source.lanes.length === 0 && (source.checkout !== true || (left.lanes.length === 0 && right.lanes.length === 0)));
      if (empty !== undefined) {
        throw new UsageError(`"${empty.spec}" holds no lanes (looked for lanes/<provider>/<cell>.json, <provider>/<cell>.json and <cell>.json in it)`);
      }
      const keys = new Set(left.lanes.map((lane) => lane.key));
      if (left.lanes.length > 0 && right.lanes.length > 0 && !right.lanes.some((lane) => keys.has(lane.key))) {
        throw new UsageError(
          `"${a}" (${left.lanes.length} lanes) and "${b}" (${right.lanes.length} lanes) have no lane in common: nothing to compare (give two checkouts, two lanes/ directories or two providers' directories)`,
        );
      }
    }
    const paired = await diffLaneSets(left, right, { context });
    const diff = left.kind === "file" ? labelFilePair(paired, a, b) : paired;
    // The CLI versions behind each lane on each side (issue 41): its oracle's and its recording's.
    const [versionsA, versionsB] = await Promise.all([laneVersionsOf(left, ctx.cwd), laneVersionsOf(right, ctx.cwd)]);
    const one = (m: Map<string, LaneVersions>) => (left.kind === "file" ? ([...m.values()][0] ?? null) : undefined);
    for (const entry of diff.entries) {
      entry.versions = {
        a: entry.a === null ? null : (one(versionsA) ?? versionsA.get(entry.key) ?? null),
        b: entry.b === null ? null : (one(versionsB) ?? versionsB.get(entry.key) ?? null),
      };
    }
    // The page is written before anything is printed, so an unwritable --html is one line, exit 2.
    let wrote: string | undefined;
    if (options.html !== undefined) {
      const { value, file } = options.html;
      try {
        await writeFileAtomic(file, renderLaneSetHtml(diff, { a, b }));
      } catch (thrown) {
        throw outputFlagError("html", value, file, thrown);
      }
      wrote = shownPath(file, ctx.cwd);
    }
    if (options.json) ctx.out(renderLaneSetJson(diff, { a, b }));
    else ctx.out(renderLaneSetText(diff, { color: ctx.color, a, b, full: options.full, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}) }));
    if (wrote !== undefined && !options.json) ctx.out(`wrote ${wrote}\n`);
    const differs = diff.entries.some((entry) => entry.status !== "same");
    return differs ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
  },
};
