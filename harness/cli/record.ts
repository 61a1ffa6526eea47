/**
 * `parity record` (docs/design/00-product.md CLI and flow 1): run one cell's runtime script live against a
 * real agent and package a new recording plus its oracle. Never overwrites (exit 2); a
 * secret that survives redaction → exit 3 with every `file:line`, nothing written. Refused
 * under `CI=true` unless `--out` (and the oracle directory) are outside this package.
 */
import os from "node:os";
import path from "node:path";
import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";
import { isDirectory, missingDefaultDir } from "./project-dir.js";
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
import { agentCacheRoot, committedCells, installPlan, installVersion, newVersionFolder, recordCells, recordVersion, requireCells, requireHostPrograms } from "./record-version.js";
import { recordRepeated, renderRepeatText, repeatExitCode } from "./record-repeat.js";
import { keepAlternates, renderKeptText } from "./keep-alternates.js";
import { loadAllowlists } from "../compare/allowlist.js";
import type { NetworkMode } from "../record/network.js";
import { positiveIntegerFlag } from "./flag-checks.js";
import { booleanFlag, FLAGS, stringFlag, stringsFlag, type ParsedFlags } from "./options.js";
import type { CliContext } from "./context.js";

const inside = (dir: string, root: string) => dir === root || dir.startsWith(`${root}${path.sep}`);

/** Default `--out`: the project's recordings root (harness/defaults.ts). */
export const RECORD_DEFAULT_OUT = RECORDINGS_ROOT;
/** Oracles root of the project's own recordings (harness/defaults.ts). */
export const RECORD_DEFAULT_LANES = ORACLES_DIR;

/** `parity record`'s options, complete and typed. */
export interface RecordOptions {
  provider: string;
  /** `--cell`; absent only with `--agent-version` (every cell the provider has recordings of). */
  cell?: string;
  /** `--agent-version`: record with this version of the provider's agent (installed into the agent cache). */
  agentVersion?: string;
  /** `--all-cells`: every cell the provider has committed recordings of, with its pinned agent, into a fresh folder. */
  allCells: boolean;
  /** `--repeat`: record each cell this many times and report what varies (default 1). */
  repeat: number;
  /** `--keep-alternates` (with `--repeat`): each run that took a path the project does not have written as a pending alternate (keep-alternates.ts). */
  keepAlternates: boolean;
  /** True when `--out` was given (with `--agent-version`, its default is a new temp folder). */
  outGiven: boolean;
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
  const agentVersion = stringFlag(args, "agentVersion");
  const cell = stringFlag(args, "cell");
  const repeat = positiveIntegerFlag("repeat", args.repeat, "runs") ?? 1;
  const allCells = booleanFlag(args, "allCells");
  const keepAlternates = booleanFlag(args, "keepAlternates");
  if (keepAlternates && repeat < 2) throw new UsageError("--keep-alternates: needs --repeat N (N ≥ 2): it keeps the paths the runs took that the project does not have");
  if (keepAlternates && agentVersion !== undefined)
    throw new UsageError(`--keep-alternates: alternates are paths of the pinned agent, and --agent-version ${agentVersion} is another; move the pin first (parity drift --accept)`);
  if (allCells && cell !== undefined) throw new UsageError(`--all-cells: records every cell of the provider; drop it or --cell ${cell}`);
  if (cell === undefined && agentVersion === undefined && repeat === 1 && !allCells)
    throw new UsageError("--cell: missing (name the cell to record; only --all-cells, --agent-version or --repeat records every cell of the provider)");
  const out = path.resolve(cwd, outFlag ?? RECORD_DEFAULT_OUT);
  const lanes = stringFlag(args, "lanes");
  // Before the agent runs: a full disk or a file in the way is named now, not after the recording.
  requireDirectoryFlag("out", outFlag ?? RECORD_DEFAULT_OUT, out);
  if (lanes !== undefined) requireDirectoryFlag("lanes", lanes, path.resolve(cwd, lanes));
  requireFreeSpace(`--out ${outFlag ?? RECORD_DEFAULT_OUT}`, out);
  const network = stringFlag(args, "network") ?? "auto";
  if (!(NETWORK_MODES as readonly string[]).includes(network)) throw new UsageError(`--network ${network}: use one of ${NETWORK_MODES.join(", ")}`);
  const customAgents = stringFlag(args, "customAgents");
  const cells = stringFlag(args, "cells") ?? CELLS_ROOT;
  // Outside a project there is no cells/ to record: said as every command that reads the project says it.
  if (cells === CELLS_ROOT && !isDirectory(path.resolve(cwd, CELLS_ROOT))) {
    throw new UsageError(missingDefaultDir(cwd, CELLS_ROOT, "--cells", "record runs the project's cells (cells/<cell>/cell.json)"));
  }
  return {
    provider: String(args.provider),
    ...(cell !== undefined ? { cell } : {}),
    ...(agentVersion !== undefined ? { agentVersion } : {}),
    outGiven: outFlag !== undefined,
    allCells,
    repeat,
    keepAlternates,
    cellsRoot: path.resolve(cwd, cells),
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

/**
 * `parity record --help`'s examples, [command, description] with `$0` for `parity`. Each runs as
 * written in a fresh clone: one that records a single cell into the project's `recordings/` names a
 * cell the provider has no recording of (a committed one is never overwritten, so the example would
 * only be refused; test/cli/record-help-examples.test.ts).
 */
export const RECORD_EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  ["$0 record --provider acp-opencode --cell turn-tools --out /tmp/rec", "record opencode doing real tool work against the loopback model, into /tmp/rec/acp-opencode/turn-tools/"],
  ["$0 record --provider codex --agent-version 0.170.0", "every cell codex has recordings of, with codex 0.170.0 (into a new temp folder)"],
  ["$0 record --provider acp-opencode --all-cells", "re-record every cell of acp-opencode with the pinned agent into a new temp folder (then: parity check --recordings <it> --lanes lanes)"],
  ["$0 record --provider claude-code --cell stop-interrupt --repeat 2", "record it twice and name what varies from run to run"],
  ["$0 record --provider acp-gemini --cell resume --repeat 3 --keep-alternates", "keep each path the agent took that the project does not have as a pending alternate, then parity review"],
  ["$0 record --provider acp-opencode --cell approval-allow --redact 'acct-[0-9]+' --out /tmp/rec", "with an extra redaction pattern"],
  ["$0 record --provider acp-mine --cell turn-tools --custom-agents agents.json", 'record your own ACP agent (an entry {"id": "mine", "command": …} of agents.json)'],
  ['CI=true $0 record --provider echo --cell zero-work --out "$RUNNER_TEMP/recordings"', "in CI, only outside the repository"],
  ["$0 record --provider echo --cell zero-work --out /tmp/x/rec", "writes /tmp/x/rec/echo/zero-work/ and its oracle /tmp/x/rec/lanes/echo/zero-work.json"],
];

/** The `record` command. */
export const recordCommand: ParityCommand = {
  tempDir: true,
  graceful: true,
  command: "record",
  describe: "Record a cell live against a real agent: a new recording plus its oracle (never overwrites)",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", demandOption: true, describe: `Provider id (${Object.keys(recordProviders()).join(", ")})` })
      .option("cell", { type: "string", describe: "Cell name (a directory under --cells); with --agent-version or --repeat, default every cell the provider has recordings of" })
      .option("agent-version", {
        type: "string",
        describe:
          "Record with this exact version of the provider's agent, installed by npm into the agent cache ($PARITY_AGENT_CACHE, default <tmp>/parity-agent-cache; reused); the project's pins are not touched. Default --out: a new <tmp>/parity-record-<provider>@<version>-XXXXXX",
      })
      .option("all-cells", {
        type: "boolean",
        default: false,
        describe:
          "Record every cell the provider has recordings of in the project, with the agent the project pins (a fresh re-record), into --out (default a new <tmp>/parity-record-<provider>@pinned-XXXXXX); check it against the committed oracles with --lanes lanes",
      })
      .option("repeat", {
        type: "string",
        describe:
          "Record each cell this many times (run k into <out>/run-k/) and report what varies from run to run on the agent's wire and in the thread lanes; default --out a new <tmp>/parity-repeat-<provider>@<version or pinned>-XXXXXX; exit 1 when the thread lanes vary, unless every run of each cell that varied took a known path of it (its committed oracle's or an accepted alternate's, held as check holds a fresh re-record)",
      })
      .option("keep-alternates", {
        type: "boolean",
        default: false,
        describe:
          "With --repeat: each run whose thread lane matches neither the committed oracle nor an accepted alternate (after the run-to-run rules) is written once per distinct path as a pending alternate of its cell (recordings/<p>/<cell>/alternates/.<k>.pending/, lanes/<p>/<cell>/alternates/<k>.json.pending) for parity review; never overwrites; refused under CI",
      })
      .option("redact", { ...FLAGS.redact, default: [] })
      .option("out", { type: "string", describe: `Recordings root; writes <out>/<provider>/<cell>/ (default ${RECORD_DEFAULT_OUT}; with --agent-version a new temp folder)` })
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
      .example(RECORD_EXAMPLES.map(([command, description]) => [command, description]))
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
    if (options.repeat > 1) return recordRepeatedCommand(options, ctx);
    if (options.agentVersion !== undefined || options.allCells) return recordAgentVersion(options, options.agentVersion, ctx);
    const { out, lanes } = options;
    const cellName = options.cell!;
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
          if (showWait) wait = startWaitProgress(ctx.progress!, `recording ${options.provider}/${cellName}`, REAL_WAIT_CLOCK, "a live agent: usually 10–60 s");
        },
        providerId: options.provider,
        cell: cellName,
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
  if (options.cell === undefined) return null;
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

/**
 * `record --agent-version <v>` (issue 41): the provider's agent at `v` installed into the agent
 * cache, then `--cell` or every cell the provider has recordings of in the project recorded with
 * it, a progress line per cell on stderr. Default `--out` is a new temp folder, never the
 * project's `recordings/`: those are the pinned version's and their oracles gate `check`; a
 * version's recordings are compared (`parity drift`), not committed. No facts are refreshed (the
 * cells' facts are the pinned version's). Exit 0 when every cell recorded, else the first failed
 * cell's exit code. `record --all-cells` without a version takes the same path with the pinned
 * agent ({@link recordPinned}).
 */

/** What every live run of `record --agent-version` / `--repeat` takes from the flags and the context alike. */
function liveRunOptions(options: RecordOptions, ctx: CliContext) {
  return {
    redact: compileUserPatterns(options.redact),
    timeoutMs: options.timeoutMs,
    network: options.network,
    ...(options.customAgentsFile !== undefined ? { customAgentsFile: options.customAgentsFile } : {}),
    now: () => Date.now(),
    ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
    progress: (line: string) => ctx.err(line),
    ...(ctx.verbose ? { log: ctx.err } : {}),
  };
}

async function recordAgentVersion(options: RecordOptions, version: string | undefined, ctx: Parameters<ParityCommand["run"]>[1]): Promise<number> {
  if (ctx.ci && options.outGiven && (inside(options.out, packageRoot()) || inside(options.lanes, packageRoot()))) {
    throw new UsageError(`CI=true: parity record writes recordings and oracles; point --out (and --lanes) outside ${packageRoot()}, e.g. a temp dir`);
  }
  const cells = options.cell !== undefined ? [options.cell] : await committedCells(path.resolve(ctx.cwd, RECORD_DEFAULT_OUT), options.provider);
  const run = liveRunOptions(options, ctx);
  // A new folder is made only once the version is installed: a bad version leaves nothing behind.
  const result =
    version !== undefined
      ? await recordVersion({
          provider: options.provider,
          version,
          cells,
          cellsRoot: options.cellsRoot,
          ...(options.outGiven ? { out: options.out, lanes: options.lanes } : { out: () => newVersionFolder("parity-record", options.provider, version) }),
          cacheRoot: agentCacheRoot(ctx.env ?? process.env),
          ...run,
        })
      : await recordPinned(options, cells, run);
  const { out, lanes } = result;
  const rel = (p: string) => (inside(p, ctx.cwd) ? path.relative(ctx.cwd, p) || "." : p);
  if (options.json) {
    ctx.out(
      `${JSON.stringify(
        {
          provider: options.provider,
          agentVersion: version ?? null,
          agents: result.install ?? null,
          out: rel(out),
          lanes: rel(lanes),
          recorded: result.recorded.map((r) => ({
            cell: r.manifest.cell,
            dir: rel(r.dir),
            oracleFile: rel(r.oracleFile),
            cliVersion: r.manifest.cliVersion,
            events: r.events,
            unhandled: r.unhandled,
            grammarDrops: r.grammarDrops,
          })),
          failed: result.failed,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    const version0 = result.recorded[0]?.manifest.cliVersion;
    ctx.out(`recorded ${result.recorded.length} of ${cells.length} cells of ${options.provider}${version0 !== undefined ? ` with ${version0}` : ""} into ${rel(out)}\n`);
    for (const f of result.failed) ctx.out(`  failed ${f.cell}: ${f.error}\n`);
    ctx.out(`  check it: parity check --recordings ${rel(out)} --lanes ${rel(lanes)} --provider ${options.provider}\n`);
    ctx.out(`  against the committed oracles (a fresh re-record of the pinned agent): parity check --recordings ${rel(out)} --lanes ${RECORD_DEFAULT_LANES} --provider ${options.provider}\n`);
    // A re-record of the pinned agent is compared with the committed recordings; another version with the pin.
    const to = version === undefined ? RECORD_DEFAULT_OUT : "<the pinned version, or its recordings>";
    ctx.out(`  drift:    parity drift --provider ${options.provider} --from ${rel(out)} --to ${to}\n`);
  }
  return result.failed[0]?.exitCode ?? EXIT_CODES.ok;
}

/**
 * `record --all-cells` without `--agent-version`: `cells` recorded with the agent the project pins
 * (its `agents/` install, opencode from the gate's own dependencies, the echo bridge, a fixture
 * agent) into `--out`, default a new `<tmp>/parity-record-<provider>@pinned-XXXXXX`, never the
 * project's `recordings/` (whose cells it re-records). No facts are refreshed.
 */
async function recordPinned(
  options: RecordOptions,
  cells: readonly string[],
  run: ReturnType<typeof liveRunOptions>,
): Promise<{ install?: undefined; out: string; lanes: string } & Awaited<ReturnType<typeof recordCells>>> {
  await requireCells(options.cellsRoot, cells, options.provider);
  await requireHostPrograms(options.provider, options.customAgentsFile);
  const out = options.outGiven ? options.out : await newVersionFolder("parity-record", options.provider, "pinned");
  const lanes = options.outGiven ? options.lanes : path.join(out, ORACLES_DIR);
  const done = await recordCells({ provider: options.provider, cells, cellsRoot: options.cellsRoot, out, lanes, label: options.provider, ...run });
  return { out, lanes, ...done };
}

/**
 * `record --repeat N` (record-repeat.ts): the cells (`--cell`, else every cell the provider has
 * recordings of) recorded N times — with `--agent-version`'s install when given — into `run-<k>/`
 * under `--out` (default a new temp folder: runs are compared, not committed), then what varied.
 * Exit 1 when the thread lanes varied in a way no known path of the cell explains (every run took
 * its committed oracle's or an accepted alternate's path: exit 0), or a cell failed in some runs
 * only, as `drift` when they changed.
 */
async function recordRepeatedCommand(options: RecordOptions, ctx: Parameters<ParityCommand["run"]>[1]): Promise<number> {
  if (ctx.ci && options.outGiven && inside(options.out, packageRoot())) {
    throw new UsageError(`CI=true: parity record writes recordings and oracles; point --out outside ${packageRoot()}, e.g. a temp dir`);
  }
  if (ctx.ci && options.keepAlternates) throw new UsageError("--keep-alternates: under CI=true nothing writes the project's recordings or oracles; run it locally, then parity review");
  const cells = options.cell !== undefined ? [options.cell] : await committedCells(path.resolve(ctx.cwd, RECORD_DEFAULT_OUT), options.provider);
  const version = options.agentVersion;
  await requireCells(options.cellsRoot, cells, options.provider);
  // The request's own faults (provider, version) before the host's, as recordVersion orders them.
  const request = version !== undefined ? { provider: options.provider, version, ...(options.customAgentsFile !== undefined ? { customAgentsFile: options.customAgentsFile } : {}) } : undefined;
  const plan = request !== undefined ? await installPlan(request) : undefined;
  await requireHostPrograms(options.provider, options.customAgentsFile);
  const install = request !== undefined ? await installVersion({ ...request, cacheRoot: agentCacheRoot(ctx.env ?? process.env), progress: (line) => ctx.err(line) }, plan) : undefined;
  const out = options.outGiven ? options.out : await newVersionFolder("parity-repeat", options.provider, version ?? "pinned");
  const project = { recordingsRoot: path.resolve(ctx.cwd, RECORD_DEFAULT_OUT), lanesDir: path.resolve(ctx.cwd, RECORD_DEFAULT_LANES), allowlist: await loadAllowlists({ cwd: ctx.cwd }) };
  const report = await recordRepeated({
    provider: options.provider,
    runs: options.repeat,
    project,
    cells,
    cellsRoot: options.cellsRoot,
    out,
    cwd: ctx.cwd,
    label: version !== undefined ? `${options.provider}@${version}` : options.provider,
    ...(install !== undefined ? { agentsDir: install.dir } : {}),
    ...liveRunOptions(options, ctx),
  });
  const kept = options.keepAlternates
    ? await keepAlternates({
        provider: options.provider,
        cells,
        runs: report.runs,
        ...project,
        cellsRoot: options.cellsRoot,
      })
    : undefined;
  if (kept !== undefined) report.alternates = kept;
  ctx.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderRepeatText(report, ctx.color) + (kept !== undefined ? renderKeptText(kept, ctx.cwd) : ""));
  const allFailed = report.runs.every((r) => r.recorded.length === 0);
  if (allFailed) return report.runs[0]?.failed.length ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
  // Lanes that varied only between the cells' known paths (the committed oracle, accepted alternates) pass (record-repeat.ts).
  return repeatExitCode(report) === 0 ? EXIT_CODES.ok : EXIT_CODES.parityFailure;
}
