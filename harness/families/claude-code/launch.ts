import { isRecord } from "../../../stack/protocol/json-value.js";
import type { AgentCommand, AgentLaunch, ReplayAdapter } from "../agent-launch.js";

/** The bridge module, relative to the repository root: the one place its path is written. */
export const CLAUDE_CODE_BRIDGE_MODULE = "dist/stack/claude-code/bridge.js";

/** Where the Claude Code bridge reads its CLI launch: `options.providerOptions.claudeCodeLaunch` (stack/claude-code/sessions.ts). */
const LAUNCH_OPTION = "claudeCodeLaunch";

/**
 * Points the Claude Code launch of one request's `params` at `agent` (spec 10 §5.1 g): the
 * launch's `command` and `args` become the agent's, its `env` empty and its `cwd` dropped (the
 * recording machine's directories may not exist here).
 *
 * @returns true when `params` carried a launch (and was changed in place)
 */
export function pointClaudeCodeLaunchAt(params: Record<string, unknown>, agent: AgentCommand): boolean {
  const options = params.options;
  if (!isRecord(options) || !isRecord(options.providerOptions) || !isRecord(options.providerOptions[LAUNCH_OPTION])) return false;
  const launch: Record<string, unknown> = { ...options.providerOptions[LAUNCH_OPTION] };
  delete launch.cwd;
  launch.command = agent.command;
  launch.args = [...agent.args];
  launch.env = {};
  options.providerOptions[LAUNCH_OPTION] = launch;
  return true;
}

/** The execution options that make the Claude Code bridge start `agent`: `providerOptions.claudeCodeLaunch`. */
export function claudeCodeLaunchOptions(agent: AgentLaunch): Record<string, unknown> {
  const launch = {
    command: agent.command,
    args: [...agent.args],
    ...(agent.env !== undefined ? { env: { ...agent.env } } : {}),
    ...(agent.cwd !== undefined ? { cwd: agent.cwd } : {}),
  };
  return { providerOptions: { [LAUNCH_OPTION]: launch } };
}

/** The env of the Claude Code launch among execution options, or none. */
export function claudeCodeLaunchEnv(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const providerOptions = options.providerOptions;
  if (!isRecord(providerOptions) || !isRecord(providerOptions[LAUNCH_OPTION])) return {};
  const env = providerOptions[LAUNCH_OPTION].env;
  return isRecord(env) ? env : {};
}

/** True for the bridge's `initialize` control request, the first line every Claude Code process gets (stack/claude-code/sessions.ts). */
export function startsClaudeCodeProcess(line: string): boolean {
  if (!line.includes('"initialize"')) return false;
  try {
    const message = JSON.parse(line) as { type?: unknown; request?: { subtype?: unknown } };
    return message.type === "control_request" && message.request?.subtype === "initialize";
  } catch {
    return false;
  }
}

/** The Claude Code family's replay and launch seam: provider `claude-code`, its bridge, its launch re-pointed, `initialize` starting each CLI process. */
export const claudeCodeLaunchSeam: ReplayAdapter = {
  id: "claude-code",
  providers: "claude-code",
  handles: (provider) => provider === "claude-code",
  modulePath: CLAUDE_CODE_BRIDGE_MODULE,
  launchMarker: `"${LAUNCH_OPTION}"`,
  pointAgentAt: pointClaudeCodeLaunchAt,
  launchOptions: claudeCodeLaunchOptions,
  launchEnv: claudeCodeLaunchEnv,
  startsAgent: startsClaudeCodeProcess,
};
