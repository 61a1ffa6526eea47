import { REPLAY_ADAPTERS, type ReplayAdapter } from "../../families/replay-adapters.js";
import { isRecord } from "../../../stack/protocol/json-value.js";

/**
 * Where the replay points a bridge: the replay child's command line, the workspace that
 * stands in for the recorded `cwd`, and the harness's own PATH (spec 10 §5.1 g).
 */
export interface RuntimeLineRewrite {
  /** Command the bridge must run instead of the agent (the node binary). */
  childCommand: string;
  /** Its arguments: the replay child script and its flags. */
  childArgs: string[];
  /** Directory that replaces a string `params.cwd`. */
  workspace: string;
  /** Value that replaces a string `params.options.envVars.PATH`; undefined leaves it. */
  path: string | undefined;
}

/**
 * Rewrites one recorded `runtime→bridge` line before it is written (spec 10 §5.1 g):
 * - a string `params.cwd` becomes the replay workspace;
 * - a string `params.options.envVars.PATH` becomes the harness's PATH;
 * - every adapter's `pointAgentAt` hook points the agent launch the line carries (whatever the
 *   method) at the replay child (for ACP: harness/families/acp/launch.ts).
 * Lines that need none of this (or are not JSON objects) are returned unchanged, byte for
 * byte; rewritten lines are re-serialized with their key order kept.
 *
 * @param adapters the bridge families whose agent launches are re-pointed (default: the shipped ones)
 */
export function rewriteRuntimeLine(line: string, rewrite: RuntimeLineRewrite, adapters: readonly ReplayAdapter[] = REPLAY_ADAPTERS): string {
  const launches = adapters.filter((adapter) => adapter.pointAgentAt !== undefined && (adapter.launchMarker === undefined || line.includes(adapter.launchMarker)));
  if (!line.includes('"cwd"') && !line.includes('"PATH"') && launches.length === 0) return line;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return line;
  }
  if (!isRecord(value) || !isRecord(value.params)) return line;
  const params = value.params;
  let changed = false;
  if (typeof params.cwd === "string") {
    params.cwd = rewrite.workspace;
    changed = true;
  }
  const options = params.options;
  if (rewrite.path !== undefined && isRecord(options) && isRecord(options.envVars) && typeof options.envVars.PATH === "string") {
    options.envVars.PATH = rewrite.path;
    changed = true;
  }
  const agent = { command: rewrite.childCommand, args: rewrite.childArgs };
  for (const adapter of launches) if (adapter.pointAgentAt!(params, agent)) changed = true;
  return changed ? JSON.stringify(value) : line;
}
