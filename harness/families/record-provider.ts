/**
 * What `parity record` needs to know per provider (docs/design/00-product.md flow 1): which bridge module
 * to spawn, the environment and launch options that make its agent run here offline, the
 * agent CLI's version for the manifest, what its recordings carry that differs from run to
 * run (normalized or redacted), and the paths the redactor must rewrite so two recordings of a
 * cell do not differ by temp directory names. Each bridge family builds its providers
 * (family.ts `recordProviders`); the record flow (harness/record) only calls them.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { ensureIsolatedHome, OPENCODE_OFFLINE_ENV } from "../../stack/acp/agents/agent-isolation.js";
import type { PathRewrite } from "../recording/redact.js";
import type { HostProgram } from "./host-programs.js";
import { RECORDED_INHERITED_PATH, RECORDED_MODEL_ORIGIN, RECORDED_PATHS } from "../recording/recorded-paths.js";
import { packageDistPath } from "../runtime/spawn-bridge.js";
import type { ModelApi, ModelServer } from "../model-server/server.js";
import type { ModelScript } from "../model-server/script.js";
import type { Until } from "../runtime/cell-driver.js";

/** Where a prepared run lives: the temp root and its parts. */
export interface RecordDirs {
  /** The run's temp root; everything below is removed afterwards. */
  root: string;
  /** The cell's working directory (fixture copied in). */
  workspace: string;
  /** The isolated home of the bridge and its agent. */
  home: string;
}

/** How the providers are built for one record (family.ts `recordProviders`). */
export interface RecordProvidersOptions {
  /**
   * Directory of the real agents' install (`<dir>/node_modules/<package>`, the profiles'
   * `{{agents}}`); default {@link agentsDir}, the project's pinned install.
   */
  agentsDir?: string;
}

/** What a provider contributes to one recording run. */
export interface PreparedProvider {
  /** Full environment of the bridge process (the record variable is added by the caller). */
  env: Record<string, string>;
  /** Execution options merged under the cell's own (e.g. `providerOptions.acpLaunchSpec`, from the family's `launchOptions`). */
  options: Record<string, unknown>;
  /** The agent CLI's version string for the manifest. */
  cliVersion: string;
  /** Manifest note. */
  note: string;
  /** The model API the agent was served (manifest `modelApi`); absent without a model endpoint. */
  modelApi?: ModelApi;
}

/**
 * One provider `parity record` can drive. `redactPatterns` and `normalize` are where a family
 * says what its recordings carry that differs from run to run (ids, timestamps, versions);
 * paths are rewritten for every provider ({@link recordPathRewrites}).
 */
export interface RecordProvider {
  id: string;
  /** Compiled bridge module spawned through the bootstrap. */
  modulePath: string;
  /**
   * The npm packages of the real agent, the first being the one whose version the manifest's
   * `cliVersion` names (`parity record --agent-version` installs that one at the asked version,
   * the others at their pins in `agents/package.json`); absent for a provider with no npm agent.
   */
  agentPackages?: readonly string[];
  /** True when the agent takes a model endpoint (the cell's model script is served). */
  takesModelEndpoint: boolean;
  /**
   * Programs of the host the agent warns about when they are missing (host-programs.ts, issue
   * 38): `prepare` refuses each cell without them, and a run of many cells checks them once,
   * before it installs or records anything (cli/record-version.ts `requireHostPrograms`).
   */
  hostPrograms?: readonly HostProgram[];
  /**
   * An event the agent always produces after a session request, asynchronously; the flow waits
   * for it after every `thread/start|resume|fork` so the next prompt never races it (recordings
   * stay deterministic). Absent: no wait.
   */
  sessionSettled?: Until | readonly Until[];
  /** The model API the endpoint speaks to the agent; default OpenAI chat completions. */
  modelApi?: ModelApi;
  /** This agent's variant of cell `name` (cell.json fields to replace; its profile's `cells`), or undefined. */
  cellVariant?(name: string): Readonly<Record<string, unknown>> | undefined;
  /** The cell's model script as this agent must receive it (its tool names); default unchanged. */
  spellScript?(script: ModelScript): ModelScript;
  /** Tool results meaning a rejected call, beyond the endpoint's own list. */
  rejectionPatterns?: readonly RegExp[];
  /** What differs from run to run in the agent's output; every match becomes `REDACTED` (as `--redact`). */
  redactPatterns?: readonly RegExp[];
  /** Values that differ from run to run and must stay valid JSON: each match of `pattern` (global) becomes `replace` in every recorded line. */
  normalize?: ReadonlyArray<{ pattern: RegExp; replace: string }>;
  /**
   * Prepares the workspace/home and returns env and options. `model` is set iff
   * `takesModelEndpoint`; `cell` names the cell being recorded (its name and `cell.json` path).
   */
  prepare(dirs: RecordDirs, model: ModelServer | undefined, cell?: { name: string; file: string }): Promise<PreparedProvider>;
}

/**
 * Path rewrites for a run: the inherited `PATH` (every agent's env starts from it), workspace,
 * home, temp root and this package's root (longest first is the redactor's job), each also as
 * its real path where that differs.
 *
 * An agent may name a directory by its real path rather than the one it was given: GitHub
 * Copilot CLI 1.0.102 reports its install as resolved through a symlinked `agents/node_modules`
 * (`/work/main/agents/node_modules/@github/copilot/…` from a worktree whose `agents/node_modules`
 * links there), and a temp root under a symlinked TMPDIR resolves the same way. So each
 * directory's real path, and the real path of the agents' install, get the same placeholder.
 *
 * @param realpath resolves a path's symlinks (default `fs.realpathSync.native`); a path that does
 *   not exist keeps only its given spelling
 */
export function recordPathRewrites(dirs: RecordDirs, inheritedPath = process.env.PATH ?? "", modelOrigin?: string, realpath: (p: string) => string = realpathSync.native): PathRewrite[] {
  const given: PathRewrite[] = [
    { from: dirs.workspace, to: RECORDED_PATHS.workspace },
    { from: dirs.home, to: RECORDED_PATHS.home },
    { from: dirs.root, to: RECORDED_PATHS.root },
    { from: packageRoot(), to: RECORDED_PATHS.repo },
  ];
  // Below the package root, only the agents' install is a symlink in practice (a worktree sharing one).
  const agentsInstall = { from: path.join(agentsDir(), "node_modules"), to: `${RECORDED_PATHS.repo}/agents/node_modules` };
  const real = [...given, agentsInstall].flatMap((rewrite) => {
    const resolved = resolvedOrUndefined(realpath, rewrite.from);
    return resolved !== undefined && resolved !== rewrite.from ? [{ from: resolved, to: rewrite.to }] : [];
  });
  return [
    // The loopback model endpoint's port changes every run; an agent quotes its URL in errors (codex-acp's 401).
    ...(modelOrigin !== undefined ? [{ from: modelOrigin, to: RECORDED_MODEL_ORIGIN }] : []),
    // Only a PATH of several entries: a single directory is rewritten like any other path, or not at all.
    ...(inheritedPath.includes(":") ? [{ from: inheritedPath, to: RECORDED_INHERITED_PATH }] : []),
    ...given,
    ...real,
  ];
}

function resolvedOrUndefined(realpath: (p: string) => string, p: string): string | undefined {
  try {
    return realpath(p);
  } catch {
    return undefined;
  }
}

/**
 * Detectors for the recording machine's own `PATH` entries (issue 24, "portable recordings"): the
 * entries of `inheritedPath` that are neither system directories (`/usr/…`, `/bin`, `/sbin`) nor
 * this package's (`/repo/…` once rewritten), as `redact` spells them (home → `/home/user`).
 * The record flow sweeps a staged recording with them, so a launch spec whose `PATH` escaped
 * {@link recordPathRewrites} (a profile that reordered or filtered the inherited entries) fails
 * the record (exit 3, nothing written) instead of carrying e.g. `/root/.npm/_npx/…/node_modules/.bin`.
 *
 * @param redact the run's textual redaction (paths and home rewritten)
 * @returns one pattern per such entry, bounded so it matches no longer path (`/node_modules/.bin`
 *   does not match inside `/repo/node_modules/.bin`)
 */
export function machinePathDetectors(inheritedPath: string, redact: (text: string) => string): RegExp[] {
  const system = /^\/(usr\/|bin$|sbin$)/;
  const entries = new Set(
    inheritedPath
      .split(":")
      .map((e) => e.replace(/\/+$/, ""))
      .filter((e) => e.startsWith("/") && e !== "" && !system.test(e)),
  );
  return (
    [...entries]
      .map((entry) => redact(entry))
      // A placeholder itself (a PATH entry that was the run's home) is what every recording names.
      .filter((entry) => !entry.startsWith(`${RECORDED_PATHS.repo}/`) && !Object.values<string>(RECORDED_PATHS).includes(entry))
      .map((entry) => new RegExp(`(?<![A-Za-z0-9_./-])${entry.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9_.-])`))
  );
}

/** This package's root directory. */
export function packageRoot(): string {
  return path.dirname(packageDistPath());
}

/** An isolated home: HOME and every XDG base directory inside `home` (created; stack/acp's `ensureIsolatedHome`). */
export async function isolatedHomeEnv(home: string): Promise<Record<string, string>> {
  return ensureIsolatedHome(home);
}

/** The environment every recorded process starts from: PATH, LANG=C.UTF-8, TZ=UTC (the rest is the provider's). */
export const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", TZ: "UTC" });

/** The opencode binary this package depends on (`node_modules/.bin/opencode`). */
export function opencodeBinary(): string {
  return path.join(packageRoot(), "node_modules", ".bin", "opencode");
}

/** Env flags that keep opencode offline (no models.dev fetch, no self-update); defined in stack/acp, shared with the probe. */
export { OPENCODE_OFFLINE_ENV };

/** Where the real agents are installed (`npm run agents:install`): `<package>/agents`. */
export function agentsDir(): string {
  return path.join(packageRoot(), "agents");
}

/** A family's bridge module (its `modulePath`, relative to the repository root, or absolute) as an absolute path here. */
export function bridgeModulePath(family: { readonly modulePath: string }): string {
  return path.resolve(packageRoot(), family.modulePath);
}
