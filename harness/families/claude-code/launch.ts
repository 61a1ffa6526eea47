/**
 * The Claude Code family's CLI launch (stack/claude-code/sessions.ts): the request field that
 * carries it (`options.providerOptions.claudeCodeLaunch = {command, args, env?, cwd?}`), through
 * the native families' one seam (../native-launch.ts), and the line that starts a CLI process.
 */
import type { AgentLaunch } from "../agent-launch.js";
import { nativeLaunchOptions, nativeLaunchSeam } from "../native-launch.js";

/** The bridge module, relative to the repository root: the one place its path is written. */
export const CLAUDE_CODE_BRIDGE_MODULE = "dist/stack/claude-code/bridge.js";

/** Where the Claude Code bridge reads its CLI launch: `options.providerOptions.claudeCodeLaunch` (stack/claude-code/sessions.ts). */
const LAUNCH_OPTION = "claudeCodeLaunch";

/** The execution options that make the Claude Code bridge start `agent`: `providerOptions.claudeCodeLaunch`. */
export function claudeCodeLaunchOptions(agent: AgentLaunch): Record<string, unknown> {
  return nativeLaunchOptions(agent, LAUNCH_OPTION);
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
export const claudeCodeLaunchSeam = nativeLaunchSeam({ id: "claude-code", modulePath: CLAUDE_CODE_BRIDGE_MODULE, key: LAUNCH_OPTION, startsAgent: startsClaudeCodeProcess });
