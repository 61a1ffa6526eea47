/**
 * The agent-launch seam and the shipped bridge families' replay adapters (see agent-launch.ts).
 */
import { acpReplayAdapter } from "./acp.js";
import type { ReplayAdapter } from "./agent-launch.js";
import { echoReplayAdapter } from "./echo.js";
import { claudeCodeReplayAdapter } from "./claude-code.js";

export type { AgentCommand, AgentLaunch, LaunchBase, ReplayAdapter } from "./agent-launch.js";
export { acpLaunchEnv, acpLaunchOptions, acpReplayAdapter, pointAcpLaunchSpecAt } from "./acp.js";
export { echoReplayAdapter } from "./echo.js";
export { claudeCodeLaunchEnv, claudeCodeLaunchOptions, claudeCodeReplayAdapter, pointClaudeCodeLaunchAt, startsClaudeCodeProcess } from "./claude-code.js";

/** The adapters of the bridges this package ships, in lookup order. */
export const SHIPPED_REPLAY_ADAPTERS: readonly ReplayAdapter[] = [acpReplayAdapter, echoReplayAdapter, claudeCodeReplayAdapter];

/** True when a non-JSON-RPC `bridge→provider` line starts an agent process of one of the shipped families ({@link ReplayAdapter.startsAgent}). */
export function startsAgentProcess(line: string): boolean {
  return SHIPPED_REPLAY_ADAPTERS.some((adapter) => adapter.startsAgent?.(line) === true);
}
