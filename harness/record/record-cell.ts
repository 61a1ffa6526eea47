/**
 * `parity record`'s flow (00-product.md flow 1; spec 10 §4): run one cell's runtime script
 * against a real agent through its bridge with record mode on, in a fresh temp directory;
 * redact the thread's lanes; sweep for survivors (any → exit 3, nothing written); write
 * `manifest.json`; move the recording atomically into `<out>/<provider>/<cell>/`; write its
 * oracle `<lanes>/<provider>/<cell>.json`. An existing recording or oracle is never
 * overwritten. The temp directory, the model endpoint, the bridge and anything still
 * working in the temp directory are cleaned up on success, failure and abort (SIGINT).
 */
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SHIPPED_REPLAY_ADAPTERS } from "../adapters/index.js";
import { RECORD_DIR_ENV_VAR } from "../../stack/bridge-kit/child-env.js";
import { PROCESS_SCOPE, scopeForThreadId } from "../../stack/bridge-kit/record-scope.js";
import { EXIT_CODES, InputError, ParityError, UsageError } from "../errors.js";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { ensureDir, writeFileAtomic } from "../recording/atomic-write.js";
import { LANE_DIRECTIONS, laneFileName, type Direction } from "../recording/lane-entry.js";
import { MANIFEST_FILE, ManifestSchema, type Manifest } from "../recording/manifest.js";
import { readRecording } from "../recording/reader.js";
import { SECRET_KEY_PATTERN, createRedactor } from "../recording/redact.js";
import { RedactionSurvivorError, sweepDirectory } from "../recording/redact-verify.js";
import { runCellScript, type CellRun, type CellStep, type Until } from "../runtime/cell-driver.js";
import { spawnBridge } from "../runtime/spawn-bridge.js";
import { startModelServer, TOOL_REJECTION_PATTERNS, type ModelServer } from "../model-server/server.js";
import { CELL_WORKSPACE_DIR, loadCell } from "./cells.js";
import { fixtureHash } from "./fixture-hash.js";
import { customRecordProvider, readCustomAgentsFile } from "./custom-provider.js";
import { resolveCustomAgentLaunch } from "./custom-agent-launch.js";
import { killProcessesWorkingIn, processesWorkingIn } from "./leftovers.js";
import { profileRecordProvider } from "./profile-provider.js";
import { detectNetworkIsolation, NETNS_MODEL_PORT, NETWORK_NETNS, NETWORK_WATCHED, netnsLauncher, type NetworkMode } from "./network.js";
import { nonLoopbackPeers } from "./sockets.js";
import { recordPathRewrites, recordProvider, type RecordDirs, type RecordProvider } from "./providers.js";
import { RECORD_STEP_TIMEOUT_MS } from "../defaults.js";

/**
 * How often the sockets of a watched run are read, in ms, besides before every step and after
 * the last: it bounds how short an outbound connection can be and still be seen.
 */
export const SOCKET_WATCH_INTERVAL_MS = 50;

/**
 * Makes the run's temp root `<parent>/rec-<8 digits>`: the lowest free number from
 * 00000000 up (an exclusive mkdir, so an existing path, symlink or not, is never used). Not
 * mkdtemp's random letters: agents see paths below it and some count the tokens of what they
 * see (copilot's context usage), so a name that differed from run to run changed their counts
 * between two recordings; the first free number is the same name in every run that is alone.
 * Short, because the CLI already nests it in its session temp dir and copilot shortens tool
 * titles whose path is longer than about 48 characters (`Viewing ...t/…/ws/notes.txt`), which
 * would leave the temp name in a recording and change its oracle.
 */
export async function makeRunRoot(parent: string): Promise<string> {
  for (let n = 0; ; n += 1) {
    const root = path.join(parent, `rec-${String(n).padStart(8, "0")}`);
    try {
      await mkdir(root);
      return root;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** Default wait for one answer or event of the cell script, in ms (divergence detection only; harness/defaults.ts). */
export { RECORD_STEP_TIMEOUT_MS };

/** What {@link recordCell} needs. */
export interface RecordCellRequest {
  providerId: string;
  cell: string;
  /** Directory of cell definitions (`cells/`). */
  cellsRoot: string;
  /** Recordings root; the recording goes to `<outRoot>/<provider>/<cell>/`. */
  outRoot: string;
  /** Oracles root; the oracle goes to `<lanesRoot>/<provider>/<cell>.json`. */
  lanesRoot: string;
  /** User `--redact` patterns. */
  redact: RegExp[];
  /** Clock in ms (the script's assembler). */
  now: () => number;
  /** Per-step wait, in ms; default {@link RECORD_STEP_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Aborting (SIGINT) stops the run, cleans up and rejects with {@link RecordInterruptedError}. */
  signal?: AbortSignal;
  /** Progress lines (already newline-terminated). */
  log?: (text: string) => void;
  /** Called with every chunk of the bridge's stderr. */
  onStderr?: (text: string) => void;
  /**
   * Called before each script step is sent, with the run's temp root and the bridge pid (tests
   * inspect the live processes there, e.g. which addresses they listen on).
   */
  onStep?: (index: number, step: CellStep, run: { root: string; bridgePid: number | undefined }) => void;
  /** Where the run's temp root is made; default the OS temp dir. */
  tempParent?: string;
  /** The home directory to redact; default the OS home. */
  home?: string;
  /**
   * A `customAgents` JSON file (spec 30 §2.2): `providerId` may then name one of its agents
   * (`acp-<slug>`), recorded through the ACP bridge with the file's launch spec.
   */
  customAgentsFile?: string;
  /**
   * How an agent that takes the model endpoint is kept on loopback (network.ts): `auto`
   * (default) a fresh network namespace when this machine can make one, else watching its
   * sockets; `netns` or `watch` only that (`netns` where impossible: UsageError).
   */
  network?: NetworkMode;
}

/** What a successful {@link recordCell} wrote. */
export interface RecordCellResult {
  dir: string;
  oracleFile: string;
  manifest: Manifest;
  /** Thread events of the recorded lane (after the host grammar). */
  events: number;
  unhandled: number;
  grammarDrops: number;
}

/** The run was interrupted (SIGINT); everything was cleaned up and nothing written. */
export class RecordInterruptedError extends ParityError {
  constructor() {
    super("E_INTERRUPTED", "interrupted: the agent and bridge were stopped, the temp directory removed, nothing written", EXIT_CODES.interrupted);
  }
}

/** The cell did not go as scripted (an unanswered approval, an unused model response, …); nothing written. */
export class CellDivergedError extends ParityError {
  constructor(cell: string, problems: readonly string[]) {
    super("E_DIVERGED", `cell ${cell} did not go as scripted, nothing written: ${problems.join("; ")}`, EXIT_CODES.parityFailure);
  }
}

/** The env the agent launches among execution options give their agents (each bridge family's `launchEnv` hook, harness/adapters). */
function launchEnvOf(options: Record<string, unknown>): NodeJS.ProcessEnv {
  return Object.assign({}, ...SHIPPED_REPLAY_ADAPTERS.map((adapter) => adapter.launchEnv?.(options) ?? {})) as NodeJS.ProcessEnv;
}

/** Values of secret-named variables of `env` (8+ characters): the redactor hides them wherever they appear. */
export function secretValuesOf(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([key, value]) => SECRET_KEY_PATTERN.test(key) && typeof value === "string" && value.length >= 8)
    .map(([, value]) => value as string);
}

const SESSION_OPS = new Set(["thread/start", "thread/resume", "thread/fork"]);

/**
 * The cell's steps with a wait for the provider's `sessionSettled` event after every session
 * step (see {@link RecordProvider.sessionSettled}), so cells stay provider-agnostic.
 */
export function withSessionWaits(steps: readonly CellStep[], settled: Until | readonly Until[] | undefined): CellStep[] {
  const waits: CellStep[] = (settled === undefined ? [] : Array.isArray(settled) ? (settled as readonly Until[]) : [settled as Until]).map((until) => ({ op: "wait", until }));
  if (waits.length === 0) return [...steps];
  return steps.flatMap((step): CellStep[] => (SESSION_OPS.has(step.op) ? [step, ...waits] : [step]));
}

function refuseExisting(destination: string, oracleFile: string, req: RecordCellRequest): void {
  const how = `record under a new cell name instead (copy cells/${req.cell} to cells/${req.cell}-2 and run \`parity record --provider ${req.providerId} --cell ${req.cell}-2\`), or remove it deliberately`;
  if (existsSync(destination)) throw new InputError(`a recording already exists here and is never overwritten; ${how}`, { file: destination });
  if (existsSync(oracleFile)) throw new InputError(`an oracle already exists here and is never overwritten; ${how}`, { file: oracleFile });
}

async function readLaneLines(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
}

function abortPromise(signal: AbortSignal | undefined): { promise: Promise<never>; dispose(): void } {
  let dispose = () => undefined as void;
  const promise = new Promise<never>((_, reject) => {
    if (!signal) return;
    if (signal.aborted) return reject(new RecordInterruptedError());
    const onAbort = () => reject(new RecordInterruptedError());
    signal.addEventListener("abort", onAbort, { once: true });
    dispose = () => signal.removeEventListener("abort", onAbort);
  });
  promise.catch(() => undefined);
  return { promise, dispose };
}

/**
 * The provider to record: a custom agent of `customAgentsFile` when it names `providerId`,
 * else one of {@link RECORD_PROVIDERS}.
 * A custom agent's `command` and `cwd` are resolved and checked here, before anything starts
 * (`resolveCustomAgentLaunch`).
 * @throws UsageError for an unknown provider; InputError for a bad custom agents file or a
 *   custom agent whose command cannot start.
 */
async function resolveRecordProvider(providerId: string, customAgentsFile: string | undefined): Promise<RecordProvider> {
  if (customAgentsFile !== undefined) {
    const agent = (await readCustomAgentsFile(customAgentsFile)).find((a) => a.id === providerId);
    if (agent) {
      const resolved = await resolveCustomAgentLaunch(agent, customAgentsFile, process.env);
      if (!agent.recordProfile) return customRecordProvider(resolved, path.basename(customAgentsFile));
      const { acpLaunchSpec: _spec, ...bridgeOptions } = resolved.bridgeOptions;
      const spec = resolved.launchSpec;
      // The entry's own env is part of the profile's env templates (the profile's wins).
      const profile = { ...agent.recordProfile, env: { ...spec.env, ...agent.recordProfile.env } };
      return profileRecordProvider(profile, {
        id: agent.id,
        name: spec.displayName,
        command: spec.command,
        args: spec.args,
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
        bridgeOptions,
        agentsDir: path.dirname(customAgentsFile),
        source: `custom ACP agent from ${path.basename(customAgentsFile)}`,
      });
    }
  }
  return recordProvider(providerId);
}

/**
 * Records one (provider, cell) pair live (see the module doc).
 *
 * @throws InputError (exit 2) when the recording or oracle exists, or the cell is invalid;
 *   UsageError for an unknown provider or cell; RedactionSurvivorError (exit 3) when a
 *   secret survives redaction; CellDivergedError / bridge errors (exit 1) when the run does
 *   not go as scripted; RecordInterruptedError when `signal` aborts. Nothing is written in
 *   any of these cases.
 */
export async function recordCell(req: RecordCellRequest): Promise<RecordCellResult> {
  const log = req.log ?? (() => undefined);
  const destination = path.resolve(req.outRoot, req.providerId, req.cell);
  const oracleFile = path.resolve(req.lanesRoot, req.providerId, `${req.cell}.json`);
  refuseExisting(destination, oracleFile, req);
  const provider = await resolveRecordProvider(req.providerId, req.customAgentsFile);
  const cell = await loadCell(req.cellsRoot, req.cell, req.providerId);
  const def = cell.definition;
  if (provider.takesModelEndpoint && !def.model) throw new UsageError(`cell ${req.cell} has no model script; ${req.providerId} needs one (${cell.file}: model)`);

  const isolation = provider.takesModelEndpoint ? detectNetworkIsolation(req.network ?? "auto") : undefined;
  if (req.network === "netns" && isolation?.kind !== "netns") {
    throw new UsageError(`--network netns: ${isolation ? isolation.why : `${req.providerId} takes no model endpoint and is not isolated`}`);
  }

  const root = await makeRunRoot(req.tempParent ?? os.tmpdir());
  const dirs: RecordDirs & { tmp: string } = { root, workspace: path.join(root, "ws"), home: path.join(root, "home"), tmp: path.join(root, "tmp") };
  const recordDir = path.join(root, "rec");
  const abort = abortPromise(req.signal);
  let model: ModelServer | undefined;
  let bridge: ReturnType<typeof spawnBridge> | undefined;
  // Outbound connections seen while watching (no namespace): each fails the recording.
  const outbound = new Set<string>();
  const watchSockets = () => {
    if (isolation?.kind !== "watch") return;
    const pids = [...processesWorkingIn(root), ...(bridge?.pid ? [bridge.pid] : [])];
    for (const s of nonLoopbackPeers(pids)) outbound.add(`pid ${s.pid} connected to ${s.remoteAddress}:${s.remotePort} (${s.protocol}), outside loopback`);
  };
  const watcher = isolation?.kind === "watch" ? setInterval(watchSockets, SOCKET_WATCH_INTERVAL_MS) : undefined;
  watcher?.unref();
  try {
    await ensureDir(dirs.workspace);
    await ensureDir(dirs.tmp);
    if (cell.workspace) await cp(cell.workspace, dirs.workspace, { recursive: true });
    if (provider.takesModelEndpoint && def.model) {
      model = await startModelServer({
        script: provider.spellScript ? provider.spellScript(def.model) : def.model,
        vars: { cwd: dirs.workspace },
        ...(provider.modelApi ? { api: provider.modelApi } : {}),
        rejectionPatterns: [...TOOL_REJECTION_PATTERNS, ...(provider.rejectionPatterns ?? [])],
        ...(isolation?.kind === "netns" ? { unixSocket: { path: path.join(root, "model.sock"), port: NETNS_MODEL_PORT } } : {}),
      });
    }
    const prepared = await provider.prepare(dirs, model, { name: cell.name, file: cell.file });
    bridge = spawnBridge({
      modulePath: provider.modulePath,
      providerId: provider.id,
      // TMPDIR inside the run's root, so the bridge's own temp dir goes when the root does.
      env: { ...prepared.env, [RECORD_DIR_ENV_VAR]: recordDir, TMPDIR: dirs.tmp },
      cwd: dirs.workspace,
      dataDir: path.join(root, "data"),
      ...(req.onStderr ? { onStderr: req.onStderr } : {}),
      ...(isolation?.kind === "netns" && model ? { launcher: netnsLauncher(isolation, path.join(root, "model.sock"), NETNS_MODEL_PORT) } : {}),
    });
    log(`recording ${req.providerId}/${req.cell}: bridge pid ${bridge.pid ?? "?"}, temp ${root}\n`);
    const providerOptions = (prepared.options.providerOptions ?? {}) as Record<string, unknown>;
    const cellProviderOptions = (def.options.providerOptions ?? {}) as Record<string, unknown>;
    const options = { ...prepared.options, ...def.options, providerOptions: { ...providerOptions, ...cellProviderOptions } };
    const steps = withSessionWaits(def.steps, provider.sessionSettled);
    const running = runCellScript(
      bridge,
      { threadId: def.threadId, cwd: dirs.workspace, options, steps, answers: def.answers },
      {
        timeoutMs: req.timeoutMs ?? RECORD_STEP_TIMEOUT_MS,
        now: req.now,
        ...(req.signal ? { signal: req.signal } : {}),
        onStep: (i, step) => {
          watchSockets();
          log(`step ${i + 1}/${steps.length}: ${step.op}\n`);
          req.onStep?.(i, step, { root, bridgePid: bridge?.pid });
        },
      },
    );
    running.catch(() => undefined);
    const run: CellRun = await Promise.race([running, abort.promise]);
    watchSockets();
    await bridge.close();
    await Promise.race([Promise.resolve(), abort.promise]);
    const problems = [...outbound, ...run.problems, ...(model?.problems ?? [])];
    if (model && model.remaining() > 0) problems.push(`${model.remaining()} scripted model response(s) were never requested`);
    if (problems.length > 0) throw new CellDivergedError(req.cell, problems);

    const threadId = def.recordThread ?? run.lastThreadId;
    const scope = def.scope === "process" ? PROCESS_SCOPE : scopeForThreadId(threadId);
    const scopeDir = path.join(recordDir, provider.id, scope);
    const raw = {} as Record<Direction, string[]>;
    for (const direction of LANE_DIRECTIONS) raw[direction] = await readLaneLines(path.join(scopeDir, laneFileName(direction)));
    const redactor = createRedactor({
      home: req.home ?? os.homedir(),
      paths: recordPathRewrites(dirs),
      secrets: [...secretValuesOf(process.env), ...secretValuesOf(prepared.env), ...secretValuesOf(launchEnvOf(prepared.options))],
      // Secret values of the env maps in the lanes (agent launch spec env, cell envVars) are redacted everywhere.
      learnFrom: LANE_DIRECTIONS.flatMap((d) => raw[d]),
      patterns: [...req.redact, ...(provider.redactPatterns ?? [])],
      // The temp root's random name must never reach a recording, in any spelling.
      forbidden: [new RegExp(path.basename(root).replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))],
    });
    const lanes = {} as Record<Direction, string[]>;
    for (const direction of LANE_DIRECTIONS) {
      lanes[direction] = raw[direction].map((l) => redactor.redactLaneEntry((provider.normalize ?? []).reduce((text, n) => text.replace(n.pattern, n.replace), l)));
    }
    const entries = LANE_DIRECTIONS.flatMap((d) => lanes[d].map((l) => JSON.parse(l) as { ts: number; run: number }));
    if (entries.length === 0) throw new CellDivergedError(req.cell, [`the bridge recorded no line in scope ${scope}`]);
    const manifest = ManifestSchema.parse({
      provider: provider.id,
      cell: req.cell,
      threadId: def.scope === "process" ? null : threadId,
      scope: def.scope,
      cliVersion: prepared.cliVersion,
      ...(prepared.modelApi ? { modelApi: prepared.modelApi } : {}),
      ...(cell.workspace ? { workspace: await fixtureHash(cell.workspace) } : {}),
      ...(isolation ? { network: isolation.kind === "netns" ? NETWORK_NETNS : NETWORK_WATCHED } : {}),
      recordedAt: new Date(Math.min(...entries.map((e) => e.ts))).toISOString().slice(0, 10),
      description: def.description,
      note: [prepared.note, def.note].filter((n) => n !== "").join(" "),
      bridgeRuns: new Set(entries.map((e) => e.run)).size,
      lines: Object.fromEntries(LANE_DIRECTIONS.map((d) => [d, lanes[d].length])),
    });

    const stage = path.join(root, "stage");
    await mkdir(stage);
    for (const direction of LANE_DIRECTIONS) {
      if (lanes[direction].length > 0) await writeFile(path.join(stage, laneFileName(direction)), `${lanes[direction].join("\n")}\n`);
    }
    await writeFile(path.join(stage, MANIFEST_FILE), redactor.redactText(`${JSON.stringify(manifest, null, 2)}\n`));
    // The recording carries the fixture it was recorded in, so it replays in the same workspace
    // wherever its cell lives (harness/replay/sandbox.ts); the manifest names it by hash.
    if (cell.workspace) await cp(cell.workspace, path.join(stage, CELL_WORKSPACE_DIR), { recursive: true });
    const survivors = await sweepDirectory(stage, redactor);
    if (survivors.length > 0) {
      throw new RedactionSurvivorError(survivors, (file) => path.join(req.providerId, req.cell, path.relative(stage, file)));
    }
    const recording = await readRecording(stage);
    const built = buildThreadLane(recording);
    const laneText = serializeThreadLane(built.scope === "process" ? [] : normalizeThreadLane(built.events));

    // Staged beside the destination so the final rename stays on one filesystem (atomic).
    refuseExisting(destination, oracleFile, req);
    const staging = path.join(path.dirname(destination), `.${req.cell}.staging-${process.pid}`);
    // Not Node's recursive mkdir: it never returns under /proc (see atomic-write.ts).
    await ensureDir(path.dirname(destination));
    await rm(staging, { recursive: true, force: true });
    try {
      await cp(stage, staging, { recursive: true });
      await rename(staging, destination);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    await writeFileAtomic(oracleFile, laneText);
    log(`wrote ${destination} and ${oracleFile}\n`);
    return {
      dir: destination,
      oracleFile,
      manifest: recording.manifest,
      events: built.events.length,
      unhandled: built.unhandled,
      grammarDrops: built.grammarDrops.length,
    };
  } finally {
    if (watcher) clearInterval(watcher);
    abort.dispose();
    if (bridge) await bridge.close();
    await model?.close();
    killProcessesWorkingIn(root);
    await rm(root, { recursive: true, force: true });
  }
}
