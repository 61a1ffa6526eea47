/**
 * The replay seams of the shipped bridge families, in {@link BRIDGE_FAMILIES}' order (index.ts):
 * what a replay and `parity check` need of a family (which providers it owns, its bridge module,
 * how a recorded agent launch is re-pointed at the stand-in, which recorded line starts an agent
 * process), without the record, conform and probe code the full family objects carry. The replay
 * and the gate import this list and the shared shapes, nothing else of this folder, so `parity check` does not load
 * the agent profiles, fixture agents, conformance sessions and probes of every family, nor the
 * ACP bridge's dialects (`check --help`: 4 % fewer instructions, bench/README.md).
 */
import type { ReplayAdapter } from "./agent-launch.js";

export type { ReplayAdapter } from "./agent-launch.js";
import { acpLaunchSeam } from "./acp/launch.js";
import { claudeCodeLaunchSeam } from "./claude-code/launch.js";
import { codexLaunchSeam } from "./codex/launch.js";
import { echoLaunchSeam } from "./echo/launch.js";
import { piLaunchSeam } from "./pi/launch.js";

/** Every shipped family's replay seam; each family of `BRIDGE_FAMILIES` is its seam plus its other hooks (test/families/replay-adapters-list.test.ts). */
export const REPLAY_ADAPTERS: readonly ReplayAdapter[] = [echoLaunchSeam, acpLaunchSeam, codexLaunchSeam, claudeCodeLaunchSeam, piLaunchSeam];

/**
 * True when a recorded `bridge→provider` line starts a new agent process: a JSON-RPC
 * `initialize` request (`isInitialize`, decided by the caller from the line's shape), or a line
 * an adapter's `startsAgent` hook claims (agent-launch.ts).
 */
export function startsAgentProcess(line: string, isInitialize: boolean, adapters: readonly ReplayAdapter[] = REPLAY_ADAPTERS): boolean {
  return isInitialize || adapters.some((adapter) => adapter.startsAgent?.(line) === true);
}
