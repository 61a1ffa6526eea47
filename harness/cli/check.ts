import { availableParallelism } from "node:os";
import path from "node:path";
import type { Argv } from "yargs";
import { loadAllowlists } from "../compare/allowlist.js";
import { UsageError } from "../errors.js";
import { resolveRecordingRoots, selectRecordings } from "../recording/select.js";
import { checkExitCode } from "../report/check-report.js";
import { selectReporter } from "../report/reporters.js";
import { createCheckProgress } from "../progress/check-progress.js";
import { checkCells, parseShard, shardCells, type CellExtras } from "../replay/check-cells.js";
import type { ParityCommand } from "./command.js";
import { checkBridgeModuleFlag, createOutputDirFlag, positiveIntegerFlag } from "./flag-checks.js";

/** Root `check` reads when no `--recordings` is given. */
export const CHECK_DEFAULT_ROOTS = ["recordings"] as const;

/** `--explain` text: per cell, each applying allowlist entry and the values it masked per side. */
export function renderExplain(extras: readonly CellExtras[]): string {
  let out = "";
  for (const cell of extras) {
    if (cell.masked.length === 0) continue;
    out += `${cell.provider}/${cell.cell}:\n`;
    for (const m of cell.masked) {
      const sides = [`live ${m.live}`];
      if (m.oracle !== undefined) sides.push(`oracle ${m.oracle}`);
      if (m.recording !== undefined) sides.push(`recording ${m.recording}`);
      out += `  ${m.entry.layer} ${m.entry.path} (${m.entry.pr}): ${sides.join(", ")}${m.live + (m.oracle ?? 0) + (m.recording ?? 0) === 0 ? " — stale" : ""}\n`;
      out += `    ${m.entry.reason}\n`;
    }
  }
  return out === "" ? "no allowlist entry applied\n" : out;
}

/**
 * `parity check`, the gate (00-product.md, CLI `check`; flows 2–3): replays every selected
 * cell through its bridge, compares the live thread lane with the oracle and with the
 * recording's own lane, applies allowlists, and reports with the chosen reporter. Exit 0
 * when every cell passed or was skipped, 1 when any failed (diff, stale entry, divergence,
 * missing oracle in CI, a bridge that exited early), 2 for usage or input errors, 3 when no
 * cell failed but one hit the wall-clock ceiling (infrastructure timeout, no verdict).
 */
export const checkCommand: ParityCommand = {
  command: "check",
  describe: "The gate: replay every selected cell and compare with oracles and recordings",
  builder: (y: Argv) =>
    y
      .option("recordings", { type: "string", array: true, describe: "Recordings root (repeatable; default recordings)" })
      .option("provider", { type: "string", describe: "Only this provider" })
      .option("cell", { type: "string", describe: "Only this cell" })
      .option("lanes", {
        type: "string",
        describe:
          "Oracles directory (default: lanes). Without --lanes only recordings under the working directory are compared with an oracle; with it every selected recording is compared with <lanes>/<provider>/<cell>.json",
      })
      .option("allowlist", { type: "string", array: true, describe: "Allowlist file, besides allowlists/*.json (repeatable)" })
      .option("jobs", { type: "string", describe: "Cells replayed at once, a whole number ≥ 1 (default: the number of cores)" })
      .option("shard", { type: "string", describe: "Check only shard i of n (i/n), for parallel CI jobs" })
      .option("reporter", { type: "string", default: "text", describe: "text | json | junit | github" })
      .option("dump-dir", { type: "string", describe: "Write each cell's normalized, unmasked lanes here" })
      .option("explain", { type: "boolean", default: false, describe: "List the values each allowlist entry masked, per cell" })
      .option("timeout", { type: "string", describe: "Wall-clock ceiling per cell in ms (a whole number ≥ 1; default 120000): a replay still running then is an infrastructure timeout, never a divergence" })
      .option("module", { type: "string", describe: "Bridge module to replay through instead of the provider's shipped one (your bridge under the gate)" })
      .option("batch", { type: "boolean", default: true, describe: "Replay a provider's cells through one bridge per job (--no-batch: one bridge per cell)" })
      .example("$0 check", "Every cell under ./recordings")
      .example("$0 check --recordings ../shared/recordings --provider acp-cursor", "The real cursor recordings")
      .example("$0 check --provider acp-cursor --module ./dist/my-acp-bridge.js", "Your own bridge module under the gate")
      .example("$0 check --shard 1/2 --reporter junit > junit.xml", "First half, as JUnit XML"),
  async run(args, ctx) {
    // Every flag is checked before a cell is replayed: a bad value is one line, exit 2.
    const reporter = selectReporter(args.reporter as string);
    const jobs = positiveIntegerFlag("jobs", args.jobs, "cells") ?? availableParallelism();
    const timeout = positiveIntegerFlag("timeout", args.timeout, "ms");
    const modulePath = typeof args.module === "string" ? await checkBridgeModuleFlag(args.module, ctx.cwd) : undefined;
    const roots = resolveRecordingRoots((args.recordings as string[] | undefined) ?? [], ctx.cwd, CHECK_DEFAULT_ROOTS);
    let locations = await selectRecordings(roots, {
      provider: args.provider as string | undefined,
      cell: args.cell as string | undefined,
    });
    if (args.shard !== undefined) locations = shardCells(locations, parseShard(args.shard as string));
    if (locations.length === 0) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
    const allowlist = await loadAllowlists({ cwd: ctx.cwd, files: (args.allowlist as string[] | undefined) ?? [] });
    const dumpArg = args["dump-dir"] as string | undefined;
    const dumpDir = dumpArg === undefined ? undefined : path.resolve(ctx.cwd, dumpArg);
    if (dumpArg !== undefined && dumpDir !== undefined) await createOutputDirFlag("dump-dir", dumpArg, dumpDir);
    const names = locations.map((l) => `${l.provider}/${l.cell}`);
    const progress = ctx.progress === undefined ? undefined : createCheckProgress(ctx.progress, locations.length);
    const { run, extras } = await checkCells({
      locations,
      repoRoot: ctx.cwd,
      lanesDir: path.resolve(ctx.cwd, (args.lanes as string | undefined) ?? "lanes"),
      oraclesForEveryRecording: typeof args.lanes === "string",
      allowlist,
      jobs,
      ci: ctx.ci,
      batch: args.batch as boolean,
      ...(progress !== undefined
        ? { progress: { started: (i) => progress.started(names[i]!), finished: (i, cell) => progress.finished(names[i]!, cell.status, cell.ms) } }
        : {}),
      ...(dumpDir !== undefined ? { dumpDir } : {}),
      replay: {
        ...(timeout !== undefined ? { timeouts: { ceilingMs: timeout } } : {}),
        ...(modulePath !== undefined ? { modulePath } : {}),
      },
    }).finally(() => progress?.end());
    ctx.out(reporter(run, { color: ctx.color, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}) }));
    const textual = (args.reporter as string) === "text";
    if (args.explain) (textual ? ctx.out : ctx.err)(renderExplain(extras));
    for (const cell of extras) {
      if (cell.wroteOracle) ctx.err(`wrote oracle ${path.relative(ctx.cwd, cell.wroteOracle)}\n`);
      if (!ctx.verbose) continue;
      for (const n of cell.notes) ctx.err(`${cell.provider}/${cell.cell}: note${n.seq === null ? "" : ` (after seq ${n.seq})`}: ${n.message}\n`);
    }
    return checkExitCode(run);
  },
};
