/**
 * What `parity record` needs to know per provider (00-product.md flow 1): which bridge module
 * to spawn, the environment and launch options that make its agent run here offline, the
 * agent CLI's version for the manifest, and the paths the redactor must rewrite so two
 * recordings of a cell do not differ by temp directory names.
 */
import path from "node:path";
import { ensureIsolatedHome, OPENCODE_OFFLINE_ENV } from "../../stack/acp/agents/agent-isolation.js";
import { UsageError } from "../errors.js";
import type { PathRewrite } from "../recording/redact.js";
import { RECORDED_PATHS } from "../recording/recorded-paths.js";
import { packageDistPath } from "../runtime/spawn-bridge.js";
import type { ModelApi, ModelServer } from "../model-server/server.js";
import type { ModelScript } from "../model-server/script.js";
import { FIXTURE_RECORD_PROVIDERS } from "./fixture-provider.js";
import type { Until } from "../runtime/cell-driver.js";
import { SHIPPED_AGENT_PROFILES } from "./agent-profiles.js";
import { profileRecordProvider } from "./profile-provider.js";
import { piRecordProvider } from "./pi-provider.js";

/** Where a prepared run lives: the temp root and its parts. */
export interface RecordDirs {
  /** The run's temp root; everything below is removed afterwards. */
  root: string;
  /** The cell's working directory (fixture copied in). */
  workspace: string;
  /** The isolated home of the bridge and its agent. */
  home: string;
}

/** What a provider contributes to one recording run. */
export interface PreparedProvider {
  /** Full environment of the bridge process (the record variable is added by the caller). */
  env: Record<string, string>;
  /** Execution options merged under the cell's own (e.g. `providerOptions.acpLaunchSpec`). */
  options: Record<string, unknown>;
  /** The agent CLI's version string for the manifest. */
  cliVersion: string;
  /** Manifest note. */
  note: string;
  /** The model API the agent was served (manifest `modelApi`); absent without a model endpoint. */
  modelApi?: ModelApi;
}

/** One provider `parity record` can drive. */
export interface RecordProvider {
  id: string;
  /** Compiled bridge module spawned through the bootstrap. */
  modulePath: string;
  /** True when the agent takes a model endpoint (the cell's model script is served). */
  takesModelEndpoint: boolean;
  /**
   * An event the agent always produces after a session request, asynchronously; the flow waits
   * for it after every `thread/start|resume|fork` so the next prompt never races it (recordings
   * stay deterministic). Absent: no wait.
   */
  sessionSettled?: Until | readonly Until[];
  /** The model API the endpoint speaks to the agent; default OpenAI chat completions. */
  modelApi?: ModelApi;
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

/** Path rewrites for a run: workspace, home, temp root and this package's root (longest first is the redactor's job). */
export function recordPathRewrites(dirs: RecordDirs): PathRewrite[] {
  return [
    { from: dirs.workspace, to: RECORDED_PATHS.workspace },
    { from: dirs.home, to: RECORDED_PATHS.home },
    { from: dirs.root, to: RECORDED_PATHS.root },
    { from: packageRoot(), to: RECORDED_PATHS.repo },
  ];
}

/** This package's root directory. */
export function packageRoot(): string {
  return path.dirname(packageDistPath());
}

/** An isolated home: HOME and every XDG base directory inside `home` (created; stack/acp's `ensureIsolatedHome`). */
export async function isolatedHomeEnv(home: string): Promise<Record<string, string>> {
  return ensureIsolatedHome(home);
}

const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", TZ: "UTC" });

/** The opencode binary this package depends on (`node_modules/.bin/opencode`). */
export function opencodeBinary(): string {
  return path.join(packageRoot(), "node_modules", ".bin", "opencode");
}

/** Env flags that keep opencode offline (no models.dev fetch, no self-update); defined in stack/acp, shared with the probe. */
export { OPENCODE_OFFLINE_ENV };

const echo: RecordProvider = {
  id: "echo",
  modulePath: packageDistPath("stack", "echo", "bridge.js"),
  takesModelEndpoint: false,
  async prepare(dirs) {
    return {
      env: { ...baseEnv(), ...(await isolatedHomeEnv(dirs.home)) },
      options: {},
      cliVersion: "bridge-parity echo",
      note: "The echo bridge has no provider child, so both provider lanes are empty.",
    };
  },
};

/** Where the real agents are installed (`npm run agents:install`): `<package>/agents`. */
export function agentsDir(): string {
  return path.join(packageRoot(), "agents");
}

/** A record provider for each shipped agent profile (agent-profiles.ts). */
function shippedProfileProviders(): Record<string, RecordProvider> {
  return Object.fromEntries(
    Object.values(SHIPPED_AGENT_PROFILES).map((p) => [
      p.id,
      profileRecordProvider(p, { id: p.id, name: p.name, command: p.command, args: p.args, agentsDir: agentsDir(), source: `npm ${p.packages.join(" + ")}` }),
    ]),
  );
}

/**
 * The providers `parity record` knows, by id: the real agents of the shipped profiles
 * (opencode, qwen, copilot, gemini, claude, claude-zed, codex, pi; offline), the echo bridge,
 * and the fixture-agent providers (`fixture-provider.ts`: acp-cursor, acp-grok, acp-omp,
 * acp-hermes-agent against the scripted fixture agent, where the real CLI cannot run here).
 */
export const RECORD_PROVIDERS: Readonly<Record<string, RecordProvider>> = { ...shippedProfileProviders(), echo, pi: piRecordProvider(agentsDir()), ...FIXTURE_RECORD_PROVIDERS };

/**
 * Looks up a provider.
 * @throws UsageError naming the known providers.
 */
export function recordProvider(id: string): RecordProvider {
  const found = RECORD_PROVIDERS[id];
  if (!found) throw new UsageError(`--provider "${id}": parity record knows ${Object.keys(RECORD_PROVIDERS).join(", ")}`);
  return found;
}
