/**
 * `parity import <record-dir>`: the threads a running bridge recorded in record mode
 * (`BB_PROVIDER_BRIDGE_RECORD_DIR`) become gated cells — recordings redacted as `record` redacts
 * them, oracles pending for review (harness/record/import-record-dir.ts).
 */
import path from "node:path";
import type { Argv } from "yargs";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { packageRoot } from "../families/record-provider.js";
import { importRecordDir } from "../record/import-record-dir.js";
import { compileUserPatterns } from "../recording/redact.js";
import { normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { replayRecording } from "../replay/index.js";
import { replayOptionsOf, resolveReplayFlags, type ReplayFlags } from "./flag-checks.js";
import type { ParityCommand } from "./command.js";
import { FLAGS, booleanFlag, stringFlag, stringsFlag } from "./options.js";
import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";
import { outsideProjectWrite } from "./project-dir.js";

const inside = (file: string, dir: string) => {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/** Most divergences named per thread; the rest are counted. */
const SHOWN_DIVERGENCES = 3;

/**
 * The `verify` of an import (harness/record/import-record-dir.ts): replays a staged recording
 * through today's bridge, as `check` will, and says what keeps it from being a clean cell: each
 * divergence (its seq and lane, what was expected and what came), a timeout (no verdict), or a
 * live thread lane other than the recorded one.
 */
function replayVerifier(replay: ReplayFlags, timedOut: Set<string>): (staged: { dir: string; laneText: string }) => Promise<string[]> {
  return async ({ dir, laneText }) => {
    const result = await replayRecording(dir, { ...replayOptionsOf(replay), useCurrent: false });
    const problems = result.divergences.slice(0, SHOWN_DIVERGENCES).map((d) => `${d.seq === null ? "" : `seq ${d.seq}${d.dir !== null ? ` (${d.dir})` : ""}: `}${d.message}`);
    if (result.divergenceCount > SHOWN_DIVERGENCES) problems.push(`… ${result.divergenceCount - SHOWN_DIVERGENCES} more divergences`);
    if (result.infrastructureTimeout !== null) {
      timedOut.add(dir);
      problems.push(`the replay hit the wall-clock ceiling (${result.infrastructureTimeout.ceilingMs} ms): no verdict; rerun on a less loaded machine or raise --timeout`);
    }
    if (problems.length === 0 && serializeThreadLane(normalizeThreadLane(result.lane.events)) !== laneText) {
      problems.push("today's bridge assembles another thread lane from these lines than the recorded bridge output does");
    }
    return problems;
  };
}

/** The `import` command. */
export const importCommand: ParityCommand = {
  // Each imported thread is replayed through today's bridge before anything is written.
  tempDir: true,
  command: "import <dir>",
  describe: "Turn a bridge's record-mode folder (BB_PROVIDER_BRIDGE_RECORD_DIR) into recordings with pending oracles",
  builder: (y: Argv) =>
    y
      .positional("dir", { type: "string", describe: "The record-mode folder: <dir>/<provider>/<thread>/<direction>.ndjson" })
      .option("provider", { type: "string", describe: "Only this provider's folder" })
      .option("thread", { type: "string", describe: "Only this thread (its id, or its folder name)" })
      .option("cell", { type: "string", describe: "The cell name, for one thread (default: import-<thread folder>)" })
      .option("cli-version", { type: "string", describe: "The agent CLI's version, for the manifest (default: not known)" })
      .option("redact", { ...FLAGS.redact, default: [] })
      .option("out", { type: "string", default: RECORDINGS_ROOT, describe: "Recordings root; writes <out>/<provider>/<cell>/" })
      .option("lanes", { type: "string", describe: `Oracles root; writes <lanes>/<provider>/<cell>.json.pending (default ${ORACLES_DIR}, or <out>/${ORACLES_DIR} with --out)` })
      .option("json", {
        type: "boolean",
        default: false,
        describe: "Print what was imported as JSON: one object per thread (provider, cell, threadId, dir, pendingOracle or null, events, problems, written, manifest)",
      })
      .option("keep-diverging", {
        type: "boolean",
        default: false,
        describe: "Write a thread whose replay through today's bridge diverges anyway: its recording only, with no pending oracle (to trace it with parity replay --trace)",
      })
      .option("timeout", FLAGS.timeout)
      .option("module", FLAGS.module)
      .example("$0 import /var/tmp/bridge-record", "every thread the bridge recorded there, as recordings/<provider>/import-<thread>/")
      .example("$0 import rec --provider echo --thread thr_42 --cell incident-42", "one thread, under a cell name of your own")
      .example("$0 review", "then accept the pending oracles (or: parity check -u)")
      .epilogue(
        "Each thread is replayed through today's bridge (--module: yours) before anything is written: one that diverges (its lines raced, " +
          "or the bridge changed) is named with each divergence, and nothing is written (exit 1) unless --keep-diverging. " +
          "Nothing is overwritten: an existing recording or oracle is refused before anything is written. Secrets are redacted as " +
          "`parity record` redacts them (secret-named variables of this environment, tokens, your --redact patterns, the home directory); " +
          "a secret that survives is exit 3 and nothing is written. Under CI=true nothing is written inside the project.",
      ),
  async run(args, ctx) {
    const dir = path.resolve(ctx.cwd, String(args.dir));
    const outFlag = stringFlag(args, "out") ?? RECORDINGS_ROOT;
    const out = path.resolve(ctx.cwd, outFlag);
    const lanesFlag = stringFlag(args, "lanes");
    const lanesDir = lanesFlag !== undefined ? path.resolve(ctx.cwd, lanesFlag) : out === path.resolve(ctx.cwd, RECORDINGS_ROOT) ? path.resolve(ctx.cwd, ORACLES_DIR) : path.join(out, ORACLES_DIR);
    // Outside any project the default recordings/ would make one where parity happens to run.
    const outside = stringFlag(args, "out") === RECORDINGS_ROOT && lanesFlag === undefined ? outsideProjectWrite(ctx.cwd, RECORDINGS_ROOT, "--out") : undefined;
    if (outside !== undefined) throw new UsageError(outside);
    requireDirectoryFlag("out", outFlag, out);
    if (lanesFlag !== undefined) requireDirectoryFlag("lanes", lanesFlag, lanesDir);
    requireFreeSpace(`--out ${outFlag}`, out);
    if (ctx.ci) {
      const repo = packageRoot();
      if (inside(out, repo) || inside(lanesDir, repo)) throw new UsageError(`CI=true: parity import writes recordings and oracles; point --out (and --lanes) outside ${repo}`);
    }
    const provider = stringFlag(args, "provider");
    const thread = stringFlag(args, "thread");
    const cell = stringFlag(args, "cell");
    const cliVersion = stringFlag(args, "cliVersion");
    const replay = await resolveReplayFlags(args, ctx.cwd);
    const keepDiverging = booleanFlag(args, "keep-diverging");
    // The staged directories whose replay timed out: no verdict, so exit 4 rather than 1.
    const timedOut = new Set<string>();
    const imported = await importRecordDir({
      verify: replayVerifier(replay, timedOut),
      keepDiverging,
      dir,
      out,
      lanesDir,
      redact: compileUserPatterns(stringsFlag(args, "redact")),
      ...(provider !== undefined ? { provider } : {}),
      ...(thread !== undefined ? { thread } : {}),
      ...(cell !== undefined ? { cell } : {}),
      ...(cliVersion !== undefined ? { cliVersion } : {}),
    });
    const rel = (p: string) => (inside(p, ctx.cwd) ? path.relative(ctx.cwd, p) : p);
    const diverged = imported.filter((c) => c.problems.length > 0);
    const code = timedOut.size > 0 ? EXIT_CODES.infrastructureTimeout : diverged.length > 0 ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
    // What replayed otherwise than recorded is said on stderr, with --json too (its objects carry it as well).
    for (const c of diverged) {
      ctx.err(
        `parity: ${c.provider}/${c.cell} (thread ${c.threadId}) is not a clean cell: replayed through today's bridge it does not (or not always) give the recorded bridge output ` +
          `(lines the runtime sent together raced, or the bridge changed):\n${c.problems.map((p) => `  ${p}\n`).join("")}`,
      );
    }
    if (diverged.length > 0) {
      ctx.err(
        keepDiverging
          ? `parity: kept ${diverged.length === 1 ? "its recording" : "their recordings"} without a pending oracle (--keep-diverging): parity check fails ${diverged.length === 1 ? "it" : "them"} until the bridge replays ${diverged.length === 1 ? "it" : "them"}; trace: parity replay --trace ${rel(diverged[0]!.dir)}\n`
          : `parity: nothing imported (all threads or none); --keep-diverging writes ${diverged.length === 1 ? "its recording" : "their recordings"} without a pending oracle, to trace with parity replay --trace\n`,
      );
    }
    if (booleanFlag(args, "json")) {
      ctx.out(
        `${JSON.stringify(
          imported.map((c) => ({ ...c, dir: rel(c.dir), pendingOracle: c.pendingOracle === null ? null : rel(c.pendingOracle) })),
          null,
          2,
        )}\n`,
      );
      return code;
    }
    const written = imported.filter((c) => c.written);
    for (const c of written) {
      ctx.out(
        `imported ${c.provider}/${c.cell} (thread ${c.threadId}): ${rel(c.dir)}, ${c.pendingOracle === null ? "no pending oracle (its replay diverged)" : `pending oracle ${rel(c.pendingOracle)}`} (${c.events} events)\n`,
      );
    }
    const offered = written.filter((c) => c.pendingOracle !== null).length;
    if (offered > 0) {
      const defaults = out === path.resolve(ctx.cwd, RECORDINGS_ROOT) && lanesDir === path.resolve(ctx.cwd, ORACLES_DIR);
      const where = defaults ? "" : ` --recordings ${rel(out)} --lanes ${rel(lanesDir)}`;
      ctx.out(`${offered} ${offered === 1 ? "cell" : "cells"} imported; review the pending oracles: parity review${where} (or parity check -u${where}), then commit them\n`);
    }
    return code;
  },
};
