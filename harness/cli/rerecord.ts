/**
 * `parity rerecord` (docs/design/00-product.md flow 4 and CLI; spec 10 §6.6): replay each selected
 * thread-scoped cell through today's bridge and write `bridge→runtime.current.ndjson` beside
 * its recording (or under `--out`) plus its oracle, so a deliberate bridge change shows up as
 * a reviewable diff of `lanes/`. Never touches the recorded lanes or the manifest.
 */
import path from "node:path";
import type { Argv } from "yargs";
import { createCheckProgress } from "../progress/check-progress.js";
import { UsageError } from "../errors.js";
import { compileUserPatterns } from "../recording/redact.js";
import { selectRecordings } from "../recording/select.js";
import { refuseInCi } from "../rerecord/targets.js";
import { rerecordRedactor } from "../rerecord/redaction.js";
import { writtenFiles } from "../rerecord/accept.js";
import { rerecordCells, rerecordExitCode } from "../rerecord/rerecord-cells.js";
import { formatRerecordOutcome, formatRerecordSummary } from "../rerecord/report.js";
import { ORACLES_DIR } from "../defaults.js";
import type { ParityCommand } from "./command.js";
import { positiveIntegerFlag, replayOptionsOf } from "./flag-checks.js";
import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";
import { booleanFlag, FLAGS, resolveSelection, stringFlag, stringsFlag, type ParsedFlags, type Selection } from "./options.js";
import { shownPath } from "../recording/paths.js";

/** `parity rerecord`'s options. */
export interface RerecordOptions {
  selection: Selection;
  /** `--out` (absolute), when given. */
  outDir?: string;
  /** The oracles directory (absolute): `--lanes`, else `<out>/lanes` with `--out`, else `lanes/`. */
  lanesDir: string;
  ceilingMs?: number;
  /** `--module` resolved against the working directory (not loaded here). */
  modulePath?: string;
  /** `--redact` patterns as typed. */
  redact: string[];
  alwaysCurrent: boolean;
  json: boolean;
}

/**
 * Why `--no-verify` is refused: the verify replay is the guarantee that a refreshed recording replays, and it is
 * also what picks where the bridge's new lines go (after the agent line that caused them, or after the runtime's
 * line where that does not replay); without it rerecord could write a `.current` every later check fails on.
 */
export const NO_VERIFY_REFUSAL =
  "--no-verify: rerecord always replays each refreshed recording before writing it, so it never writes a .current that cannot replay (that replay also chooses where the bridge's new lines go); drop the flag";

/**
 * `parity rerecord`: `--out`, `--lanes`, `--timeout`, then the selection.
 * @throws UsageError naming the flag (`--no-verify`: {@link NO_VERIFY_REFUSAL})
 */
export function resolveRerecordOptions(args: ParsedFlags, cwd: string): RerecordOptions {
  if (args.verify === false) throw new UsageError(NO_VERIFY_REFUSAL);
  const out = stringFlag(args, "out");
  const outDir = out === undefined ? undefined : path.resolve(cwd, out);
  const lanes = stringFlag(args, "lanes");
  const lanesDir = path.resolve(cwd, lanes ?? (outDir !== undefined ? path.join(outDir, ORACLES_DIR) : ORACLES_DIR));
  if (out !== undefined) requireDirectoryFlag("out", out, outDir!);
  if (lanes !== undefined) requireDirectoryFlag("lanes", lanes, lanesDir);
  requireFreeSpace(out !== undefined ? `--out ${out}` : lanes !== undefined ? `--lanes ${lanes}` : `oracles directory ${ORACLES_DIR}`, outDir ?? lanesDir);
  const ceilingMs = positiveIntegerFlag("timeout", args.timeout, "ms");
  const module = stringFlag(args, "module");
  return {
    selection: resolveSelection(args, cwd),
    ...(outDir !== undefined ? { outDir } : {}),
    lanesDir,
    ...(ceilingMs !== undefined ? { ceilingMs } : {}),
    ...(module !== undefined ? { modulePath: path.resolve(cwd, module) } : {}),
    redact: stringsFlag(args, "redact"),
    alwaysCurrent: booleanFlag(args, "alwaysCurrent"),
    json: booleanFlag(args, "json"),
  };
}

/** The `rerecord` command: exit 0 all written (or skipped), 1 a divergence or refusal, 2 usage/input (read-only target, a CI write into the project), 3 a surviving secret, 4 a replay timed out (nothing written for it). */
export const rerecordCommand: ParityCommand = {
  tempDir: true,
  command: "rerecord",
  describe: "Replay cells through today's bridge; write bridge→runtime.current.ndjson beside each recording and refresh its oracle",
  builder: (y: Argv) =>
    y
      .option("provider", FLAGS.provider)
      .option("cell", FLAGS.cell)
      .option("recordings", FLAGS.recordings)
      .option("out", { type: "string", describe: "Write <out>/<provider>/<cell>/bridge→runtime.current.ndjson and <out>/lanes/… instead (for read-only recordings)" })
      .option("lanes", { type: "string", describe: `Oracles directory (default ${ORACLES_DIR}, or <out>/${ORACLES_DIR} with --out)` })
      .option("redact", FLAGS.redact)
      .option("timeout", FLAGS.timeout)
      .option("module", FLAGS.module)
      .option("json", { type: "boolean", default: false, describe: "Print one JSON array of per-cell outcomes instead of text" })
      .option("always-current", {
        type: "boolean",
        default: false,
        describe:
          "Write bridge→runtime.current.ndjson beside each recording even when the recorded bridge lane still assembles to the live thread lane (by default it is written only when the bridge's output changed)",
      })
      // Declared only so that --no-verify gets its own refusal (NO_VERIFY_REFUSAL), not "unknown argument".
      .option("verify", { type: "boolean", hidden: true })
      .example("$0 rerecord --provider echo", "Refresh every echo cell: .current beside each recording, oracles in lanes/")
      .example("$0 rerecord --provider acp-opencode --cell turn-tools", "One cell")
      .example(
        "$0 rerecord --recordings ../shared/recordings --provider acp-cursor --out /tmp/rr",
        "Read-only recordings: write /tmp/rr/acp-cursor/<cell>/bridge→runtime.current.ndjson and /tmp/rr/lanes/",
      )
      .epilogue(
        "Each cell is replayed first; on any divergence nothing is written for it and the exit code is 1; a replay that hits the wall-clock ceiling (--timeout) writes nothing for its cell and the exit code is 4. " +
          "The refreshed recording is then replayed once more, in memory, before anything is written: one that would not replay is REFUSED (exit 1, nothing written), so a written .current always replays (there is no --no-verify). " +
          "Under CI=true the project's recordings and oracles are never written: refused without --out, or with --out/--lanes inside the working directory; " +
          "an --out outside it (e.g. a temp dir) is allowed, as for record. Without --out, refused for a read-only recording directory (exit 2).",
      ),
  async run(args, ctx) {
    const options = resolveRerecordOptions(args, ctx.cwd);
    const { outDir, lanesDir, selection } = options;
    await refuseInCi(ctx.ci, { cwd: ctx.cwd, outDir, lanesDir });
    const redactor = rerecordRedactor({ patterns: compileUserPatterns(options.redact) });
    const roots = selection.roots;
    // A cell's accepted alternates are rerecorded with it (their oracles refreshed like the cell's).
    const locations = await selectRecordings(roots, selection.filter, { alternates: true });
    if (locations.length === 0) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
    const showPath = (file: string) => shownPath(file, ctx.cwd);
    // Each cell replays for seconds, a matrix for minutes: a live count on a terminal's stderr (the
    // outcome lines on stdout are the log elsewhere; nothing with --json).
    const progress = ctx.progress?.isTTY === true && !options.json ? createCheckProgress(ctx.progress, locations.length) : undefined;
    const outcomes = await rerecordCells({
      locations,
      outDir,
      lanesDir,
      redactor,
      alwaysWriteCurrent: options.alwaysCurrent,
      replay: replayOptionsOf(options),
      onOutcome: (outcome) => {
        progress?.finished(`${outcome.provider}/${outcome.cell}`, outcome.status === "rerecorded" ? "pass" : "fail", 0);
        if (outcome.status === "rerecorded") for (const file of writtenFiles(outcome)) ctx.wrote?.(file);
        if (!options.json) ctx.out(formatRerecordOutcome(outcome, { color: ctx.color, showPath, verbose: ctx.verbose }));
      },
    }).finally(() => progress?.end());
    ctx.out(options.json ? `${JSON.stringify(outcomes, null, 2)}\n` : formatRerecordSummary(outcomes));
    return rerecordExitCode(outcomes);
  },
};
