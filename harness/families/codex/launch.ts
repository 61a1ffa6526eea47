/**
 * The Codex family's app-server launch (stack/codex/launch.ts): the request field that carries
 * it (`options.providerOptions.codexAppServer = {command, args, env?, cwd?}`), written for a
 * recording, read for redaction, re-pointed at the replay child for a replay (spec 10 §5.1 g).
 */
import { CODEX_LAUNCH_OPTION } from "../../../stack/codex/launch-option.js";
import { isRecord } from "../../../stack/protocol/json-value.js";
import type { AgentCommand, AgentLaunch, ReplayAdapter } from "../agent-launch.js";

/** The Codex bridge module, relative to the repository root: the one place it is written. */
export const CODEX_BRIDGE_MODULE = "dist/stack/codex/bridge.js";

/**
 * Points the `codexAppServer` launch of one runtime line's `params` at `agent`: `command` and
 * `args` replaced, `env: {}` (the recording's env names the recording machine's CODEX_HOME),
 * `cwd` dropped (the replay child needs none).
 *
 * @returns true when `params` carried a launch (and was changed in place)
 */
export function pointCodexLaunchAt(params: Record<string, unknown>, agent: AgentCommand): boolean {
  const options = params.options;
  if (!isRecord(options) || !isRecord(options.providerOptions)) return false;
  const launch = options.providerOptions[CODEX_LAUNCH_OPTION];
  if (!isRecord(launch)) return false;
  const { cwd: _cwd, ...rest } = launch;
  options.providerOptions[CODEX_LAUNCH_OPTION] = { ...rest, command: agent.command, args: [...agent.args], env: {} };
  return true;
}

/** The execution options that make the Codex bridge start `agent` as its app-server. */
export function codexLaunchOptions(agent: AgentLaunch): Record<string, unknown> {
  const launch = {
    command: agent.command,
    args: [...agent.args],
    ...(agent.env !== undefined ? { env: { ...agent.env } } : {}),
    ...(agent.cwd !== undefined ? { cwd: agent.cwd } : {}),
  };
  return { providerOptions: { [CODEX_LAUNCH_OPTION]: launch } };
}

/** The env of the `codexAppServer` launch among execution options, or none. */
export function codexLaunchEnv(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const providerOptions = options.providerOptions;
  if (!isRecord(providerOptions) || !isRecord(providerOptions[CODEX_LAUNCH_OPTION])) return {};
  const env = (providerOptions[CODEX_LAUNCH_OPTION] as Record<string, unknown>).env;
  return isRecord(env) ? env : {};
}

/** The replay and launch seam of the Codex family: provider `codex`, its bridge, its launch re-pointed. */
export const codexLaunchSeam: ReplayAdapter = {
  id: "codex",
  providers: "codex",
  handles: (provider) => provider === "codex",
  modulePath: CODEX_BRIDGE_MODULE,
  launchMarker: `"${CODEX_LAUNCH_OPTION}"`,
  pointAgentAt: pointCodexLaunchAt,
  launchOptions: codexLaunchOptions,
  launchEnv: codexLaunchEnv,
};
