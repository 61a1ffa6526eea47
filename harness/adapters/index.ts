/**
 * The agent-launch seam and the shipped bridge families' replay adapters (see agent-launch.ts).
 */
import { acpReplayAdapter } from "./acp.js";
import type { ReplayAdapter } from "./agent-launch.js";
import { echoReplayAdapter } from "./echo.js";
import { piReplayAdapter } from "./pi.js";

export type { AgentCommand, AgentLaunch, LaunchBase, ReplayAdapter } from "./agent-launch.js";
export { acpLaunchEnv, acpLaunchOptions, acpReplayAdapter, pointAcpLaunchSpecAt } from "./acp.js";
export { echoReplayAdapter } from "./echo.js";
export { piLaunchEnv, piLaunchOptions, piReplayAdapter, pointPiLaunchSpecAt } from "./pi.js";

/** The adapters of the bridges this package ships, in lookup order. */
export const SHIPPED_REPLAY_ADAPTERS: readonly ReplayAdapter[] = [acpReplayAdapter, echoReplayAdapter, piReplayAdapter];
