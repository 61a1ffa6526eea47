import path from "node:path";
import type { Argv } from "yargs";
import { UsageError } from "../errors.js";
import type { CliContext } from "./context.js";
import { startGate, type GateOptions } from "../check/gate-start.js";
import { firstOutsideProject, resolveWritePolicy } from "../check/write-policy.js";
import { REPORTER } from "../defaults.js";
import { reporterNameOf, type ReporterName } from "../report/reporter-names.js";
import type { ParityCommand } from "./command.js";
import { gateContextOf, resolveGateOptions, type GateFlags } from "./gate-flags.js";
import { requireFreeSpace } from "./path-checks.js";
import { booleanFlag, FLAGS, stringFlag, type ParsedFlags } from "./options.js";

/** `check`'s options: the gate's, the reporter, `--explain`, `--update`. */
export interface CheckOptions extends GateFlags {
  reporter: ReporterName;
  explain: boolean;
  update: boolean;
}

/**
 * The reporter `--reporter` / `--json` select: json with `--json`, unless `--reporter` names
 * another one explicitly.
 * @throws UsageError when `--json` and `--reporter junit|github` are both given, or for a
 *   reporter outside the closed set (naming the valid ones)
 */
export function resolveReporter(args: ParsedFlags): ReporterName {
  const named = stringFlag(args, "reporter") ?? REPORTER;
  if (booleanFlag(args, "json") && named !== "text" && named !== "json") throw new UsageError(`--json and --reporter ${named} disagree; give one of them`);
  const name = booleanFlag(args, "json") ? "json" : named;
  return reporterNameOf(name);
}

/**
 * `parity check`: the reporter first, then `--update` (refused under CI), then the gate's flags.
 * @throws UsageError naming the first bad flag
 */
export async function resolveCheckOptions(args: ParsedFlags, ctx: CliContext): Promise<CheckOptions> {
  const reporter = resolveReporter(args);
  const update = booleanFlag(args, "update");
  if (update && ctx.ci) throw new UsageError("CI=true: check --update writes oracles; run it locally and commit what it prints");
  const gate = await resolveGateOptions(args, ctx.cwd);
  if (update) requireFreeSpace(`oracles directory ${path.relative(ctx.cwd, gate.lanesDir) || "."}`, gate.lanesDir);
  return { reporter, explain: booleanFlag(args, "explain"), update, ...gate, ...(booleanFlag(args, "strict-truth") ? { bridgeUntruths: "fail" as const } : {}) };
}

/**
 * `parity check`, the gate (docs/design/00-product.md, CLI `check`; flows 2–3): replays every selected
 * cell through its bridge, compares the live thread lane with the oracle and with the
 * recording's own lane, applies allowlists, and reports with the chosen reporter. Exit 0
 * when every cell passed or was skipped, 1 when any failed (diff, stale entry, divergence,
 * missing oracle, a bridge that exited early), 2 for usage or input errors, 4 when no
 * cell failed but one hit the wall-clock ceiling (infrastructure timeout, no verdict). What it
 * may write is its write policy (harness/check/write-policy.ts): nothing under CI, `.pending`
 * results locally, in place with `--update`.
 */
export const checkCommand: ParityCommand = {
  tempDir: true,
  command: "check",
  describe: "The gate: replay every selected cell and compare with oracles and recordings",
  builder: (y: Argv) =>
    y
      .option("recordings", FLAGS.recordings)
      .option("provider", FLAGS.provider)
      .option("cell", FLAGS.cell)
      .option("lanes", {
        type: "string",
        describe:
          "Oracles directory (default: lanes). Without --lanes only recordings under the working directory are compared with an oracle; with it every selected recording is compared with <lanes>/<provider>/<cell>.json",
      })
      .option("allowlist", FLAGS.allowlist)
      .option("jobs", FLAGS.jobs)
      .option("shard", { type: "string", describe: "Check only shard i of n (i/n), for parallel CI jobs" })
      .option("reporter", { type: "string", default: REPORTER, describe: "text | json | junit | github | html (one self-contained page) | blob (a shard's result for merge-reports)" })
      .option("json", { type: "boolean", default: false, describe: "Same as --reporter json" })
      .option("dump-dir", { type: "string", describe: "Write each cell's normalized, unmasked lanes here" })
      .option("explain", { type: "boolean", default: false, describe: "List the values each allowlist entry masked, per cell, and each untruth's evidence (seq numbers in the agent-side lanes)" })
      .option("strict-truth", {
        type: "boolean",
        default: false,
        describe: "An untruth caused by our bridge fails the run too (by default it is listed and warned; harness/defaults.ts BRIDGE_UNTRUTHS)",
      })
      .option("timeout", FLAGS.timeout)
      .option("module", FLAGS.module)
      .option("agent-process", FLAGS.agentProcess)
      .option("update", {
        alias: "u",
        type: "boolean",
        default: false,
        describe:
          "Accept every changed cell: write what this run replayed in place (oracle, and .current only where the bridge's output changed; a local check leaves it as .pending) and print what to commit",
      })
      .option("batch", { type: "boolean", default: true, describe: "Replay a provider's cells through one bridge per job (--no-batch: one bridge per cell)" })
      .option("cells", FLAGS.cells)
      .example("$0 check", "Every cell under ./recordings")
      .example("$0 check --recordings ../shared/recordings --provider acp-cursor", "The real cursor recordings")
      .example("$0 check --provider acp-cursor --module ./dist/my-acp-bridge.js", "Your own bridge module under the gate")
      .example("$0 check --shard 1/2 --reporter junit > junit.xml", "First half, as JUnit XML")
      .example("$0 check --shard 2/3 --reporter blob > blob-2.json", "One CI shard's result; then: parity merge-reports blob-*.json --reporter html > report.html")
      .example("$0 check -u", "Accept every changed cell (writes only what changed, prints the git add)")
      .example("$0 check --provider acp-gemini --cell command-fails --explain", "Why a lane is untrue: each untruth with its evidence in the agent-side lanes"),
  async run(args, ctx) {
    // Every flag is checked before a cell is replayed: a bad value is one line, exit 2.
    const options = await resolveCheckOptions(args, ctx);
    // Pending results only where the project owns the files (write-policy.ts); `--update` and CI decide alone.
    // A flag is named only when the user gave it: a default `recordings/` that is a link out of the project is named as the link.
    const recordingsGiven = options.flags?.recordings !== undefined;
    const writes = [
      { flag: options.lanesGiven ? "--lanes" : undefined, dir: options.lanesDir },
      ...options.selection.roots.map((dir) => ({ flag: recordingsGiven ? "--recordings" : undefined, dir })),
    ];
    const outsideProject = ctx.ci || options.update ? undefined : await firstOutsideProject(ctx.cwd, writes);
    const gateOptions: GateOptions = { ...options, write: resolveWritePolicy({ ci: ctx.ci, update: options.update, command: "check", outsideProject }) };
    const gateCtx = gateContextOf(ctx);
    // The bridges are spawned before the rest of the gate, the comparators and the reporters are
    // loaded (check-finish.ts, imported only now): their start-up overlaps that loading (issue 25).
    const started = await startGate(gateOptions, gateCtx);
    let finish: typeof import("./check-finish.js");
    try {
      finish = await import("./check-finish.js");
    } catch (thrown) {
      await started.bridges.close();
      throw thrown;
    }
    return finish.finishCheck({ options, gateOptions, gateCtx, started, outsideProject }, ctx);
  },
};
