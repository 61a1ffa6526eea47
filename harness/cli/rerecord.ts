/**
 * `parity rerecord` (00-product.md flow 4 and CLI; spec 10 §6.6): replay each selected
 * thread-scoped cell through today's bridge and write `bridge→runtime.current.ndjson` beside
 * its recording (or under `--out`) plus its oracle, so a deliberate bridge change shows up as
 * a reviewable diff of `lanes/`. Never touches the recorded lanes or the manifest.
 */
import path from "node:path";
import type { Argv } from "yargs";
import { UsageError } from "../errors.js";
import { compileUserPatterns } from "../recording/redact.js";
import { resolveRecordingRoots, selectRecordings } from "../recording/select.js";
import { refuseInCi } from "../rerecord/targets.js";
import { rerecordRedactor } from "../rerecord/redaction.js";
import { rerecordCells, rerecordExitCode } from "../rerecord/rerecord-cells.js";
import { formatRerecordOutcome, formatRerecordSummary } from "../rerecord/report.js";
import type { ParityCommand } from "./command.js";
import { positiveIntegerFlag } from "./flag-checks.js";

/** Root `rerecord` reads when no `--recordings` is given. */
export const RERECORD_DEFAULT_ROOTS = ["recordings"] as const;

/** The `rerecord` command: exit 0 all written (or skipped), 1 a divergence or refusal, 2 usage/input (read-only target, a CI write into the project), 3 a surviving secret. */
export const rerecordCommand: ParityCommand = {
  tempDir: true,
  command: "rerecord",
  describe: "Replay cells through today's bridge; write bridge→runtime.current.ndjson beside each recording and refresh its oracle",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", describe: "Only this provider" })
      .option("cell", { type: "string", describe: "Only this cell" })
      .option("recordings", { type: "string", array: true, describe: "Recordings root (repeatable; default recordings)" })
      .option("out", { type: "string", describe: "Write <out>/<provider>/<cell>/bridge→runtime.current.ndjson and <out>/lanes/… instead (for read-only recordings)" })
      .option("lanes", { type: "string", describe: "Oracles directory (default lanes, or <out>/lanes with --out)" })
      .option("redact", { type: "string", array: true, describe: "Extra regular expression to redact (repeatable)" })
      .option("timeout", { type: "string", describe: "Wall-clock ceiling per cell in ms (a whole number ≥ 1; default 120000): a replay still running then is an infrastructure timeout, never a divergence" })
      .option("module", { type: "string", describe: "Bridge module to replay instead of the provider's own" })
      .option("json", { type: "boolean", default: false, describe: "Print one JSON array of per-cell outcomes instead of text" })
      .option("always-current", {
        type: "boolean",
        default: false,
        describe: "Write bridge→runtime.current.ndjson beside each recording even when the recorded bridge lane still assembles to the live thread lane (by default it is written only when the bridge's output changed)",
      })
      .option("verify", {
        type: "boolean",
        default: true,
        describe: "Replay each new current lane once before writing and warn when the gate would diverge on it (--no-verify skips)",
      })
      .example("$0 rerecord --provider echo", "Refresh every echo cell: .current beside each recording, oracles in lanes/")
      .example("$0 rerecord --provider acp-opencode --cell turn-tools", "One cell")
      .example(
        "$0 rerecord --recordings ../shared/recordings --provider acp-cursor --out /tmp/rr",
        "Read-only recordings: write /tmp/rr/acp-cursor/<cell>/bridge→runtime.current.ndjson and /tmp/rr/lanes/",
      )
      .epilogue(
        "Each cell is replayed first; on any divergence nothing is written for it and the exit code is 1. " +
          "Under CI=true the project's recordings and oracles are never written: refused without --out, or with --out/--lanes inside the working directory; " +
          "an --out outside it (e.g. a temp dir) is allowed, as for record. Without --out, refused for a read-only recording directory (exit 2).",
      ),
  async run(args, ctx) {
    const outDir = typeof args.out === "string" ? path.resolve(ctx.cwd, args.out) : undefined;
    const lanesDir = path.resolve(ctx.cwd, typeof args.lanes === "string" ? args.lanes : outDir !== undefined ? path.join(outDir, "lanes") : "lanes");
    const timeout = positiveIntegerFlag("timeout", args.timeout, "ms");
    await refuseInCi(ctx.ci, { cwd: ctx.cwd, outDir, lanesDir });
    const redactor = rerecordRedactor({ patterns: compileUserPatterns(((args.redact as unknown[]) ?? []).map(String)) });
    const roots = resolveRecordingRoots((args.recordings as string[] | undefined) ?? [], ctx.cwd, RERECORD_DEFAULT_ROOTS);
    const locations = await selectRecordings(roots, { provider: args.provider as string | undefined, cell: args.cell as string | undefined });
    if (locations.length === 0) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
    const modulePath = args.module as string | undefined;
    const showPath = (file: string) => {
      const rel = path.relative(ctx.cwd, file);
      return rel === "" || rel.startsWith("..") || path.isAbsolute(rel) ? file : rel;
    };
    const outcomes = await rerecordCells({
      locations,
      outDir,
      lanesDir,
      redactor,
      verify: args.verify !== false,
      alwaysWriteCurrent: args.alwaysCurrent === true,
      replay: {
        ...(timeout !== undefined ? { timeouts: { ceilingMs: timeout } } : {}),
        ...(modulePath !== undefined ? { modulePath: path.resolve(ctx.cwd, modulePath) } : {}),
      },
      onOutcome: (outcome) => {
        if (args.json !== true) ctx.out(formatRerecordOutcome(outcome, { color: ctx.color, showPath, verbose: ctx.verbose }));
      },
    });
    ctx.out(args.json === true ? `${JSON.stringify(outcomes, null, 2)}\n` : formatRerecordSummary(outcomes));
    return rerecordExitCode(outcomes);
  },
};
