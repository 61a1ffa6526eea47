/**
 * `parity record` (docs/design/00-product.md CLI and flow 1): run one cell's runtime script live against a
 * real agent and package a new recording plus its oracle. Never overwrites (exit 2); a
 * secret that survives redaction → exit 3 with every `file:line`, nothing written. Refused
 * under `CI=true` unless `--out` (and the oracle directory) are outside this package.
 */
import os from "node:os";
import path from "node:path";
import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";
import type { Argv } from "yargs";
import { REAL_WAIT_CLOCK, startWaitProgress } from "../progress/wait-progress.js";
import { CELLS_ROOT, ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { EXIT_CODES, ParityError, UsageError } from "../errors.js";
import { compileUserPatterns } from "../recording/redact.js";
import { rerecordRedactor } from "../rerecord/redaction.js";
import { replayCutRecording } from "./record-cut.js";
import { recordCell, RECORD_STEP_TIMEOUT_MS } from "../record/record-cell.js";
import { factsTargetFor } from "../facts/fresh.js";
import { refreshFacts, type FactsRefresh } from "../facts/refresh.js";
import { detectNetworkIsolation } from "../record/network.js";
import { recordProviders } from "../families/index.js";
import { packageRoot } from "../families/record-provider.js";
import type { ParityCommand } from "./command.js";
import type { NetworkMode } from "../record/network.js";
import { positiveIntegerFlag } from "./flag-checks.js";
import { booleanFlag, FLAGS, stringFlag, stringsFlag, type ParsedFlags } from "./options.js";

const inside = (dir: string, root: string) => dir === root || dir.startsWith(`${root}${path.sep}`);

/** Default `--out`: the project's recordings root (harness/defaults.ts). */
export const RECORD_DEFAULT_OUT = RECORDINGS_ROOT;
/** Oracles root of the project's own recordings (harness/defaults.ts). */
export const RECORD_DEFAULT_LANES = ORACLES_DIR;

/** `parity record`'s options, complete and typed. */
export interface RecordOptions {
  provider: string;
  cell: string;
  /** `--cells` (absolute). */
  cellsRoot: string;
  /** `--out` (absolute). */
  out: string;
  /** `--lanes` (absolute), else {@link defaultLanesRoot}. */
  lanes: string;
  /** `--redact` patterns as typed. */
  redact: string[];
  /** `--timeout`, else the default step wait (ms). */
  timeoutMs: number;
  network: NetworkMode;
  /** `--custom-agents` (absolute), when given. */
  customAgentsFile?: string;
  json: boolean;
}

/** The `--network` modes: a closed set (yargs refuses anything else, listing these). */
const NETWORK_MODES: readonly NetworkMode[] = ["auto", "netns", "watch"];

/**
 * `parity record`: turns its argv into {@link RecordOptions}.
 * @throws UsageError `--timeout <value>: …` for a timeout that is not a whole number ≥ 1
 */
export function resolveRecordOptions(args: ParsedFlags, cwd: string): RecordOptions {
  const outFlag = stringFlag(args, "out");
  const out = path.resolve(cwd, outFlag ?? RECORD_DEFAULT_OUT);
  const lanes = stringFlag(args, "lanes");
  // Before the agent runs: a full disk or a file in the way is named now, not after the recording.
  requireDirectoryFlag("out", outFlag ?? RECORD_DEFAULT_OUT, out);
  if (lanes !== undefined) requireDirectoryFlag("lanes", lanes, path.resolve(cwd, lanes));
  requireFreeSpace(`--out ${outFlag ?? RECORD_DEFAULT_OUT}`, out);
  const network = stringFlag(args, "network") ?? "auto";
  if (!(NETWORK_MODES as readonly string[]).includes(network)) throw new UsageError(`--network ${network}: use one of ${NETWORK_MODES.join(", ")}`);
  const customAgents = stringFlag(args, "customAgents");
  return {
    provider: String(args.provider),
    cell: String(args.cell),
    cellsRoot: path.resolve(cwd, stringFlag(args, "cells") ?? CELLS_ROOT),
    out,
    lanes: lanes !== undefined ? path.resolve(cwd, lanes) : defaultLanesRoot(out, cwd),
    redact: stringsFlag(args, "redact"),
    timeoutMs: positiveIntegerFlag("timeout", args.timeout, "ms") ?? RECORD_STEP_TIMEOUT_MS,
    network: network as NetworkMode,
    ...(customAgents !== undefined ? { customAgentsFile: path.resolve(cwd, customAgents) } : {}),
    json: booleanFlag(args, "json"),
  };
}

/**
 * Where `record` writes oracles without `--lanes` (the one rule, same as `rerecord --out`):
 * `<cwd>/lanes` when `out` is the project's `recordings/`, else `<out>/lanes`, so a recording
 * made outside the project carries its oracle inside its own `--out` directory. Absolute paths.
 */
export function defaultLanesRoot(out: string, cwd: string): string {
  return path.resolve(out) === path.resolve(cwd, RECORD_DEFAULT_OUT) ? path.resolve(cwd, RECORD_DEFAULT_LANES) : path.join(path.resolve(out), ORACLES_DIR);
}

/** The `record` command. */
export const recordCommand: ParityCommand = {
  tempDir: true,
  graceful: true,
  command: "record",
  describe: "Record a cell live against a real agent: a new recording plus its oracle (never overwrites)",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", demandOption: true, describe: `Provider id (${Object.keys(recordProviders()).join(", ")})` })
      .option("cell", { type: "string", demandOption: true, describe: "Cell name (a directory under --cells)" })
      .option("redact", { ...FLAGS.redact, default: [] })
      .option("out", { type: "string", default: RECORD_DEFAULT_OUT, describe: "Recordings root; writes <out>/<provider>/<cell>/" })
      .option("lanes", {
        type: "string",
        describe: "Oracles root; writes <lanes>/<provider>/<cell>.json. Default: lanes/ for the default --out recordings, else <out>/lanes (as rerecord --out)",
      })
      .option("cells", { type: "string", default: CELLS_ROOT, describe: "Cell definitions root" })
      .option("custom-agents", { type: "string", describe: "A customAgents JSON file (spec 30 §2.2); --provider may name one of its agents (acp-<slug>)" })
      .option("network", {
        choices: NETWORK_MODES,
        default: "auto",
        describe: "Keep a real agent on loopback: a fresh network namespace with only loopback (netns), watching its sockets (watch), or netns where possible (auto)",
      })
      .option("json", { type: "boolean", default: false, describe: "Print the result (directory, oracle, manifest, counts) as JSON" })
      .option("keep-temp", {
        type: "boolean",
        default: false,
        describe: "Keep the run's temp directory (workspace, isolated HOME, raw lanes, the agent's logs), also when the record fails, and print its path on stderr",
      })
      .option("timeout", { type: "string", describe: `Longest wait for one step's answer or event, in ms, a whole number ≥ 1 (default ${RECORD_STEP_TIMEOUT_MS})` })
      .example("$0 record --provider acp-opencode --cell turn-tools", "record opencode doing real tool work against the loopback model")
      .example("$0 record --provider acp-opencode --cell approval-allow --redact 'acct-[0-9]+'", "with an extra redaction pattern")
      .example("$0 record --provider acp-mine --cell turn-tools --custom-agents agents.json", 'record your own ACP agent (an entry {"id": "mine", "command": …} of agents.json)')
      .example('CI=true $0 record --provider echo --cell zero-work --out "$RUNNER_TEMP/recordings"', "in CI, only outside the repository")
      .example("$0 record --provider echo --cell zero-work --out /tmp/x/rec", "writes /tmp/x/rec/echo/zero-work/ and its oracle /tmp/x/rec/lanes/echo/zero-work.json")
      .epilogue(
        [
          "Oracles: the project's recordings/ keep theirs in lanes/; a recording written anywhere else (--out) keeps its oracle in <out>/lanes/, " +
            "so the --out directory is self-contained: check and list it with `--recordings <out> --lanes <out>/lanes` (the command printed after recording).",
          "Custom agents (--custom-agents, spec 30 §2.2): a `command` without a slash is looked up on PATH (the entry's env.PATH if set); " +
            "a relative `command` path and a relative `cwd` resolve against the agents file's directory. `args` are passed as written, and the agent " +
            "runs in the cell's temporary workspace unless `cwd` is set, so give paths in args absolute (or set cwd). A command that does not " +
            "resolve, or a relative argument naming a file beside the agents file with no cwd, is refused before recording (exit 2).",
        ].join("\n\n"),
      ),
  async run(args, ctx) {
    const options = resolveRecordOptions(args, ctx.cwd);
    const { out, lanes } = options;
    if (ctx.ci) {
      const repo = packageRoot();
      if (inside(out, repo) || inside(lanes, repo)) {
        throw new UsageError(`CI=true: parity record writes recordings and oracles; point --out (and --lanes) outside ${repo}, e.g. a temp dir`);
      }
    }
    const redact = compileUserPatterns(options.redact);

    {
      // A record waits on a real agent for 10–60 s: say so on stderr (not with --json or --verbose, which logs every step).
      // Started once the request is checked (provider, cell, network): an unknown cell prints only its error.
      let wait: ReturnType<typeof startWaitProgress> | undefined;
      const showWait = ctx.progress !== undefined && !options.json && !ctx.verbose;
      const result = await recordCell({
        onStart: () => {
          if (showWait) wait = startWaitProgress(ctx.progress!, `recording ${options.provider}/${options.cell}`, REAL_WAIT_CLOCK, "a live agent: usually 10–60 s");
        },
        providerId: options.provider,
        cell: options.cell,
        cellsRoot: options.cellsRoot,
        outRoot: out,
        lanesRoot: lanes,
        redact,
        timeoutMs: options.timeoutMs,
        network: options.network,
        ...(options.customAgentsFile !== undefined ? { customAgentsFile: options.customAgentsFile } : {}),
        now: () => Date.now(),
        ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
        ...(ctx.verbose ? { log: ctx.err, onStderr: ctx.err } : {}),
        ...(args["keep-temp"] === true ? keptTempOptions(ctx) : {}),
      }).then(
        (done) => {
          wait?.end("recorded");
          return done;
        },
        (thrown: unknown) => {
          // An interrupt is no failure of the record: the wait ends as what it was (the interrupt's own line follows).
          wait?.end(ctx.signal?.aborted === true ? "interrupted" : "failed");
          throw thrown;
        },
      );
      // Relative when inside the working directory, else absolute (never a ../../ chain).
      const rel = (p: string) => (inside(p, ctx.cwd) ? path.relative(ctx.cwd, p) || "." : p);
      // A long string cut by redaction: the bridge lane is replayed from the cut inputs (record-cut.ts).
      const cut = await replayCutRecording({ provider: result.manifest.provider, cell: result.manifest.cell, dir: result.dir }, lanes, rerecordRedactor({ patterns: redact }));
      const cutFailed = cut.outcome !== undefined && cut.outcome.status !== "rerecorded";
      const facts = await refreshRecordedFacts(options, ctx);
      if (options.json) {
        ctx.out(
          `${JSON.stringify({ ...result, dir: rel(result.dir), oracleFile: rel(result.oracleFile), cut: cut.cut, ...(cut.outcome !== undefined ? { cutReplay: cut.outcome.status } : {}), facts: facts ? { ...facts, file: rel(facts.file) } : null }, null, 2)}\n`,
        );
        return cutFailed ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
      }
      ctx.out(
        `recorded ${result.manifest.provider}/${result.manifest.cell}: ${Object.entries(result.manifest.lines)
          .map(([d, n]) => `${d} ${n}`)
          .join(", ")}\n`,
      );
      ctx.out(`  ${rel(result.dir)} (${result.manifest.cliVersion}, ${result.manifest.bridgeRuns} bridge run(s))\n`);
      ctx.out(`  ${rel(result.oracleFile)}: ${result.events} events, ${result.unhandled} unhandled, ${result.grammarDrops} grammar drops\n`);
      if (cut.cut > 0 && cut.outcome?.status === "rerecorded") {
        const current = cut.outcome.currentLane === "not needed" ? "its own bridge lane still holds" : `replayed into ${rel(cut.outcome.currentLaneFile)}`;
        ctx.out(
          `  cut ${cut.cut} long ${cut.cut === 1 ? "string" : "strings"} once, marked ⟦redacted: N chars trimmed⟧ in the lanes; the bridge lane from the cut inputs: ${current}, oracle ${cut.outcome.oracle}\n`,
        );
      } else if (cutFailed) {
        ctx.err(
          `parity: ${rel(result.dir)}: the recording holds ${cut.cut} cut ${cut.cut === 1 ? "string" : "strings"} and its replay from the cut inputs ${cut.outcome!.status}: it will not pass its own check; run parity replay --trace on it\n`,
        );
        return EXIT_CODES.parityFailure;
      }
      if (facts) ctx.out(`  ${rel(facts.file)}: facts ${facts.status} (${facts.steps} step(s))\n`);
      const projectDefault = out === path.resolve(ctx.cwd, RECORD_DEFAULT_OUT) && lanes === path.resolve(ctx.cwd, RECORD_DEFAULT_LANES);
      if (!projectDefault) {
        const which = `--recordings ${rel(out)} --lanes ${rel(lanes)} --provider ${result.manifest.provider} --cell ${result.manifest.cell}`;
        ctx.out(`  check it: parity check ${which}\n  list it:  parity list ${which}\n`);
      }
      return EXIT_CODES.ok;
    }
  },
};

/**
 * The facts of the recorded cell, refreshed (issue 37: computed when a cell is recorded, never
 * during `check`): the file that judges this provider's lane — its variant's, else the cell's —
 * computed anew and written when its text changed. Under `CI=true` nothing is written: null.
 */
async function refreshRecordedFacts(options: RecordOptions, ctx: { ci: boolean; err: (text: string) => void; wrote?: (file: string) => void }): Promise<FactsRefresh | null> {
  if (ctx.ci) return null;
  const target = factsTargetFor(options.cellsRoot, options.cell, options.provider);
  if (target === null) return null;
  try {
    const [done] = await refreshFacts([target], { cellsRoot: options.cellsRoot, isolation: detectNetworkIsolation(options.network), ...(ctx.wrote ? { wrote: ctx.wrote } : {}) });
    return done ?? null;
  } catch (error) {
    // The recording is written and sound; its facts are not: say so in one line (a gate reports them stale or missing).
    if (!(error instanceof ParityError)) throw error;
    ctx.err(`parity: the recording is written, its facts are not: ${error.message}\n`);
    return null;
  }
}

/**
 * `--keep-temp`: the run's root is made beside this command's session temp directory (which
 * interrupt.ts removes when the command ends), not inside it, and its absolute path is said on
 * stderr whatever the outcome.
 */
function keptTempOptions(ctx: { err: (text: string) => void }): { tempParent: string; onKeptTemp: (root: string) => void } {
  const session = os.tmpdir();
  const tempParent = path.basename(session).startsWith("parity-") ? path.dirname(session) : session;
  return { tempParent, onKeptTemp: (root) => ctx.err(`kept the run's temp directory (--keep-temp): ${root}\n`) };
}
