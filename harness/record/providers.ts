/**
 * What `parity record` needs to know per provider (00-product.md flow 1): which bridge module
 * to spawn, the environment and launch options that make its agent run here offline, the
 * agent CLI's version for the manifest, and the paths the redactor must rewrite so two
 * recordings of a cell do not differ by temp directory names.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { findShippedAcpAgent } from "../../stack/acp/agents.js";
import { ensureIsolatedHome, OPENCODE_OFFLINE_ENV } from "../../stack/acp/agent-isolation.js";
import { UsageError } from "../errors.js";
import type { PathRewrite } from "../recording/redact.js";
import { packageDistPath } from "../runtime/spawn-bridge.js";
import type { ModelServer } from "../model-server/server.js";
import { FIXTURE_RECORD_PROVIDERS } from "./fixture-provider.js";
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
  sessionSettled?: Until;
  /**
   * Prepares the workspace/home and returns env and options. `model` is set iff
   * `takesModelEndpoint`; `cell` names the cell being recorded (its name and `cell.json` path).
   */
  prepare(dirs: RecordDirs, model: ModelServer | undefined, cell?: { name: string; file: string }): Promise<PreparedProvider>;
}

/** The fixed paths temp directories are rewritten to in a recording. */
export const RECORDED_PATHS = { workspace: "/tmp/parity-workspace", home: "/home/user", root: "/tmp/parity-record", repo: "/repo" } as const;

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

/** Provider and model names opencode's config declares for the loopback endpoint. */
export const OPENCODE_LOOPBACK = { provider: "parity", model: "scripted" } as const;

/**
 * The workspace `opencode.json` for a run: one provider (`@ai-sdk/openai-compatible`) whose
 * `baseURL` is the loopback endpoint, set as `model` and `small_model`, and every
 * permission `ask` (the bridge forwards asks as `interaction/request`s, or answers them in
 * permission mode `full`).
 */
export function opencodeConfig(baseUrl: string): Record<string, unknown> {
  const ref = `${OPENCODE_LOOPBACK.provider}/${OPENCODE_LOOPBACK.model}`;
  return {
    $schema: "https://opencode.ai/config.json",
    provider: {
      [OPENCODE_LOOPBACK.provider]: {
        npm: "@ai-sdk/openai-compatible",
        name: "Parity loopback",
        options: { baseURL: baseUrl, apiKey: "none" },
        models: { [OPENCODE_LOOPBACK.model]: { name: "Scripted model" } },
      },
    },
    model: ref,
    small_model: ref,
    autoupdate: false,
    share: "disabled",
    permission: { edit: "ask", bash: "ask", webfetch: "ask" },
  };
}

async function versionOf(command: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(command, ["--version"], { env, timeout: 30_000 });
  return stdout.trim().split("\n").pop() ?? "";
}

const acpOpencode: RecordProvider = {
  id: "acp-opencode",
  modulePath: packageDistPath("stack", "acp", "bridge.js"),
  takesModelEndpoint: true,
  // opencode sends `available_commands_update` shortly after every session/new|resume|fork.
  sessionSettled: { event: "thread/extensionState/updated", fields: { kind: "bb/provider-commands" } },
  async prepare(dirs, model) {
    if (!model) throw new UsageError("acp-opencode needs a model endpoint: the cell has no model script");
    const binary = opencodeBinary();
    if (!existsSync(binary)) throw new UsageError(`opencode is not installed at ${binary} (devDependency opencode-ai)`);
    const env = { ...baseEnv(), ...(await isolatedHomeEnv(dirs.home)), ...OPENCODE_OFFLINE_ENV };
    await writeFile(path.join(dirs.workspace, "opencode.json"), `${JSON.stringify(opencodeConfig(model.baseUrl), null, 2)}\n`);
    const agent = findShippedAcpAgent("acp-opencode");
    if (!agent) throw new UsageError("acp-opencode is not a shipped ACP agent");
    // Port 0 on loopback: parallel recordings each get their own opencode server port.
    const launch = { ...agent.launchSpec, command: binary, args: [...agent.launchSpec.args, "--port", "0", "--hostname", "127.0.0.1"], env };
    const version = await versionOf(binary, env);
    return {
      env,
      options: { providerOptions: { ...agent.bridgeOptions, acpLaunchSpec: launch } },
      cliVersion: `opencode ${version}`,
      note: `opencode ${version} (npm opencode-ai) run offline: isolated HOME/XDG dirs, models fetch and autoupdate off, its model a project-owned loopback OpenAI-compatible endpoint playing the cell's model script.`,
    };
  },
};

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

/**
 * The providers `parity record` knows, by id: opencode (real, offline), the echo bridge, and
 * the fixture-agent providers (FIXTURES' `fixture-provider.ts`: acp-cursor, acp-grok, acp-omp,
 * acp-hermes-agent against the scripted fixture agent, where the real CLI cannot run here).
 */
export const RECORD_PROVIDERS: Readonly<Record<string, RecordProvider>> = { "acp-opencode": acpOpencode, echo, ...FIXTURE_RECORD_PROVIDERS };

/**
 * Looks up a provider.
 * @throws UsageError naming the known providers.
 */
export function recordProvider(id: string): RecordProvider {
  const found = RECORD_PROVIDERS[id];
  if (!found) throw new UsageError(`--provider "${id}": parity record knows ${Object.keys(RECORD_PROVIDERS).join(", ")}`);
  return found;
}
