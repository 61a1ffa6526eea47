/**
 * Recording a provider's cells with another version of its agent (issue 41 build point 1), shared
 * by `parity record --agent-version` and `parity drift --from <version>`: the version installed
 * into the agent cache (record/agent-install.ts), then each cell recorded with the provider built
 * over that install (`RecordCellRequest.agentsDir`), one progress line per cell on stderr. A cell
 * that fails is named and the others go on, so a version that breaks one cell still says what it
 * did to the rest.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { EXIT_CODES, ParityError, UsageError } from "../errors.js";
import { rerecordRedactor } from "../rerecord/redaction.js";
import { replayCutRecording } from "./record-cut.js";
import { recordProviderFor } from "../families/index.js";
import { agentsDir as projectAgentsDir, baseEnv } from "../families/record-provider.js";
import { missingHostProgramLine, missingHostPrograms } from "../families/host-programs.js";
import { agentInstallPlan, installAgentVersion, readAgentPins, type AgentInstall } from "../record/agent-install.js";
import { recordCell } from "../record/record-cell.js";
import { RecordInterruptedError, type RecordCellResult } from "../record/record-request.js";
import type { NetworkMode } from "../record/network.js";
import { listRecordings } from "../recording/locations.js";
import { loadCell } from "../runtime/cells.js";

/** The temp directory outside this command's own session directory (`<TMPDIR>/parity-XXXXXX`, removed when the command ends). */
export function outerTempDir(tmp: string = os.tmpdir()): string {
  return path.basename(tmp).startsWith("parity-") ? path.dirname(tmp) : tmp;
}

/** The agent cache: `$PARITY_AGENT_CACHE`, else `<tmp>/parity-agent-cache` (never in HOME, never in the project). */
export function agentCacheRoot(env: Readonly<Record<string, string | undefined>> | undefined, tmp: string = os.tmpdir()): string {
  const set = env?.PARITY_AGENT_CACHE;
  return set !== undefined && set !== "" ? path.resolve(set) : path.join(outerTempDir(tmp), "parity-agent-cache");
}

/**
 * A new recordings folder for one version: `<tmp>/<prefix>-<provider>@<version>-XXXXXX` (made
 * now, so no run ever writes into another's).
 */
export async function newVersionFolder(prefix: string, provider: string, version: string, tmp: string = os.tmpdir()): Promise<string> {
  const parent = outerTempDir(tmp);
  await mkdir(parent, { recursive: true });
  return mkdtemp(path.join(parent, `${prefix}-${provider}@${version}-`));
}

/**
 * The cells `provider` has committed recordings of under `recordingsRoot`, sorted.
 * @throws UsageError when there is none
 */
export async function committedCells(recordingsRoot: string, provider: string): Promise<string[]> {
  const cells = existsSync(recordingsRoot) ? (await listRecordings([recordingsRoot])).filter((l) => l.provider === provider).map((l) => l.cell) : [];
  if (cells.length === 0) throw new UsageError(`--provider ${provider}: no recording of it under ${recordingsRoot} to record again; name the cells with --cell`);
  return [...new Set(cells)].sort();
}

/**
 * Every cell of `cells` loads for `provider` (its definition or variant is there and valid):
 * checked before anything is installed or a folder made.
 * @throws UsageError or InputError naming the cell (runtime/cells.ts `loadCell`)
 */
export async function requireCells(cellsRoot: string, cells: readonly string[], provider: string): Promise<void> {
  for (const cell of cells) await loadCell(cellsRoot, cell, provider);
}

/**
 * The host programs the provider's agent needs (`RecordProvider.hostPrograms`), checked once
 * before a run of many cells installs or records anything: one line naming the first missing
 * program and its Debian package, as a single `record` says it (issue 38, issue 41 "without a
 * prerequisite, record says which before it starts").
 * @param pathEnv the PATH the agent inherits (record-provider.ts `baseEnv`)
 * @throws UsageError (exit 2) `<provider>: bwrap is not on PATH (install the Debian package bubblewrap): …`
 */
export async function requireHostPrograms(providerId: string, customAgentsFile: string | undefined, pathEnv: string | undefined = baseEnv().PATH): Promise<void> {
  const provider = await recordProviderFor(providerId, customAgentsFile);
  const [missing] = missingHostPrograms(provider.hostPrograms ?? [], pathEnv);
  if (missing !== undefined) throw new UsageError(missingHostProgramLine(providerId, missing));
}

/** What {@link recordVersion} is asked. */
export interface VersionRecordRequest {
  provider: string;
  /** The agent version to install and record with. */
  version: string;
  /** The cells to record, in order. */
  cells: readonly string[];
  cellsRoot: string;
  /**
   * Recordings root written (`<out>/<provider>/<cell>/`), or how to make a new one: called only
   * once the version is known good and installed, so a bad version leaves no folder behind.
   */
  out: string | (() => Promise<string>);
  /** Oracles root written; default `<out>/lanes`. */
  lanes?: string;
  /** The agent cache ({@link agentCacheRoot}). */
  cacheRoot: string;
  /** The environment npm runs in. */
  env?: NodeJS.ProcessEnv;
  /** Install specs replacing `name@version` (agent-install.ts `sources`; tests). */
  sources?: Readonly<Record<string, string>>;
  customAgentsFile?: string;
  network?: NetworkMode;
  timeoutMs?: number;
  redact: RegExp[];
  now: () => number;
  signal?: AbortSignal;
  /** One progress line (newline-terminated), to stderr. */
  progress: (line: string) => void;
  /** `--verbose` logging of each record. */
  log?: (text: string) => void;
}

/** What {@link recordVersion} did. */
export interface VersionRecordResult {
  install: AgentInstall & { packages: Record<string, string> };
  /** The recordings root and oracles root written. */
  out: string;
  lanes: string;
  recorded: RecordCellResult[];
  failed: Array<{ cell: string; error: string; exitCode: number }>;
}

/**
 * Installs `version` of the provider's agent (or reuses the install; the pinned version is the
 * project's own `agents/` install when that holds it) and records `cells` with it.
 *
 * @throws UsageError (exit 2) for a provider without a pinned agent package, a bad or unknown
 *   version (one line); RecordInterruptedError when `signal` aborts; a cell's own failure is
 *   caught and listed in `failed`.
 */
export async function recordVersion(req: VersionRecordRequest): Promise<VersionRecordResult> {
  await requireCells(req.cellsRoot, req.cells, req.provider);
  // The request's own faults (provider, version) before the host's: a bad flag is named as such
  // on any machine, bubblewrap or not.
  const plan = await installPlan(req);
  await requireHostPrograms(req.provider, req.customAgentsFile);
  const install = await installVersion(req, plan);
  const out = typeof req.out === "string" ? req.out : await req.out();
  const lanes = req.lanes ?? path.join(out, "lanes");
  const done = await recordCells({ ...req, out, lanes, agentsDir: install.dir, label: `${req.provider}@${req.version}` });
  return { install, out, lanes, ...done };
}

/**
 * What installing `req.version` of the provider's agent means (`agentInstallPlan`), without
 * installing anything.
 *
 * @param flag the flag the version came from, as errors name it (default `--agent-version`; drift: `--from`, `--to`)
 * @throws UsageError (exit 2) for a provider without a pinned agent package or a bad version
 */
export async function installPlan(req: Pick<VersionRecordRequest, "provider" | "version" | "customAgentsFile">, flag?: string): Promise<ReturnType<typeof agentInstallPlan>> {
  const provider = await recordProviderFor(req.provider, req.customAgentsFile);
  const pins = await readAgentPins(projectAgentsDir());
  return agentInstallPlan(req.provider, req.version, provider.agentPackages, pins, flag);
}

/**
 * The install {@link recordVersion} records with: the project's `agents/` when it holds the
 * version's packages, else the agent cache's (installed now, or reused), said on `progress`.
 * `plan`: the request's {@link installPlan} when the caller has it already.
 * @throws UsageError (exit 2) for a provider without a pinned agent package, a bad or unknown version
 */
export async function installVersion(
  req: Pick<VersionRecordRequest, "provider" | "version" | "customAgentsFile" | "cacheRoot" | "env" | "sources" | "progress">,
  plan?: ReturnType<typeof agentInstallPlan>,
): Promise<VersionRecordResult["install"]> {
  plan ??= await installPlan(req);
  const install = (await projectInstallHolds(plan.packages))
    ? { dir: projectAgentsDir(), reused: true }
    : await installAgentVersion(plan, {
        cacheRoot: req.cacheRoot,
        ...(req.env ? { env: req.env } : {}),
        ...(req.sources ? { sources: req.sources } : {}),
        onInstall: (dir) =>
          req.progress(
            `installing ${Object.entries(plan.packages)
              .map(([n, v]) => `${n}@${v}`)
              .join(" ")} into ${dir} (npm)\n`,
          ),
      });
  req.progress(`${req.provider} ${req.version}: agents in ${install.dir}${install.reused ? " (reused)" : ""}\n`);
  return { ...install, packages: plan.packages };
}

/** What {@link recordCells} is asked: a {@link VersionRecordRequest} without the install. */
export type CellsRecordRequest = Omit<VersionRecordRequest, "version" | "cacheRoot" | "env" | "sources" | "out" | "lanes"> & {
  /** Recordings root written (`<out>/<provider>/<cell>/`). */
  out: string;
  /** Oracles root written. */
  lanes: string;
  /** The agents' install to record with; default the project's `agents/`. */
  agentsDir?: string;
  /** How the progress lines name the provider (`codex@0.170.0`, `codex run 2/3`). */
  label: string;
};

/**
 * Records `cells` one after the other, a progress line before and after each.
 * @throws RecordInterruptedError when `signal` aborts; a cell's own failure is caught and listed in `failed`.
 */
export async function recordCells(req: CellsRecordRequest): Promise<Pick<VersionRecordResult, "recorded" | "failed">> {
  const recorded: RecordCellResult[] = [];
  const failed: VersionRecordResult["failed"] = [];
  for (const [i, cell] of req.cells.entries()) {
    const at = `[${i + 1}/${req.cells.length}] ${req.label} ${cell}`;
    req.progress(`${at}: recording\n`);
    try {
      const done = await recordCell({
        providerId: req.provider,
        cell,
        cellsRoot: req.cellsRoot,
        outRoot: req.out,
        lanesRoot: req.lanes,
        redact: req.redact,
        now: req.now,
        ...(req.agentsDir !== undefined ? { agentsDir: req.agentsDir } : {}),
        ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
        ...(req.network !== undefined ? { network: req.network } : {}),
        ...(req.customAgentsFile !== undefined ? { customAgentsFile: req.customAgentsFile } : {}),
        ...(req.signal !== undefined ? { signal: req.signal } : {}),
        ...(req.log !== undefined ? { log: req.log, onStderr: req.log } : {}),
      });
      // A string cut by redaction: the bridge lane replayed from the cut inputs, as a single
      // `record` does (record-cut.ts); without it the recording fails its own check.
      const cut = await replayCutRecording({ provider: req.provider, cell, dir: done.dir }, req.lanes, rerecordRedactor({ patterns: req.redact }));
      if (cut.outcome !== undefined && cut.outcome.status !== "rerecorded") {
        const error = `the recording holds ${cut.cut} cut ${cut.cut === 1 ? "string" : "strings"} and its replay from the cut inputs ${cut.outcome.status}${"reason" in cut.outcome ? ` (${cut.outcome.reason})` : ""}: it will not pass its own check (${done.dir})`;
        failed.push({ cell, error, exitCode: EXIT_CODES.parityFailure });
        req.progress(`${at}: failed: ${error}\n`);
        continue;
      }
      recorded.push(done);
      req.progress(
        `${at}: recorded (${done.manifest.cliVersion}; ${done.events} events, ${done.unhandled} unhandled${cut.cut > 0 ? `; ${cut.cut} long ${cut.cut === 1 ? "string" : "strings"} cut once, bridge lane replayed from the cut inputs` : ""})\n`,
      );
    } catch (error) {
      if (error instanceof RecordInterruptedError || !(error instanceof ParityError)) throw error;
      failed.push({ cell, error: error.message, exitCode: error.exitCode });
      req.progress(`${at}: failed: ${error.message}\n`);
    }
  }
  return { recorded, failed };
}

/** True when the project's own `agents/` install holds exactly these package versions (the pins): nothing to install. */
async function projectInstallHolds(packages: Readonly<Record<string, string>>): Promise<boolean> {
  for (const [name, version] of Object.entries(packages)) {
    const file = path.join(projectAgentsDir(), "node_modules", name, "package.json");
    const installed = await readFile(file, "utf8")
      .then((t) => (JSON.parse(t) as { version?: unknown }).version)
      .catch(() => undefined);
    if (installed !== version) return false;
  }
  return true;
}
