/**
 * The one launch seam of the native bridge families (Codex, Claude Code, pi): each of their
 * bridges reads the agent's command line from one key of the session requests' execution
 * options, `options.providerOptions.<key> = {command, args, env?, cwd?}` (stack/codex/launch.ts,
 * stack/claude-code/sessions.ts, stack/pi/launch.ts). This module writes that launch for a
 * recording, reads its env for redaction and re-points it at the replay child (spec 10 §5.1 g);
 * a native family gives only its key, its bridge module and, for agents without a JSON-RPC
 * `initialize`, which line starts an agent process. On `parity check`'s path to its first spawn:
 * it imports no zod (test/qa/check-path.test.ts).
 */
import { isRecord } from "../../stack/protocol/json-value.js";
import type { AgentCommand, AgentLaunch, ReplayAdapter } from "./agent-launch.js";

/** What a native family tells the seam. */
export interface NativeLaunch {
  /** Family and provider id (`codex`): a native family owns exactly one provider. */
  readonly id: string;
  /** The bridge module, relative to the repository root (`dist/stack/<family>/bridge.js`). */
  readonly modulePath: string;
  /** The key under `options.providerOptions` the bridge reads its launch from (`codexAppServer`). */
  readonly key: string;
  /** False when the bridge's launch has no `cwd` (pi's spec is strict): a given `cwd` is left out. Default true. */
  readonly carriesCwd?: boolean;
  /** {@link ReplayAdapter.startsAgent}, for agents without a JSON-RPC `initialize`. */
  readonly startsAgent?: (line: string) => boolean;
}

/** The launch at `options.providerOptions[key]` when it is an object, else undefined. */
function launchAt(options: unknown, key: string): Record<string, unknown> | undefined {
  if (!isRecord(options) || !isRecord(options.providerOptions)) return undefined;
  const launch = options.providerOptions[key];
  return isRecord(launch) ? launch : undefined;
}

/**
 * Points the launch at `params.options.providerOptions[key]` at `agent`, in place: `command` and
 * `args` become the agent's, `env` empty (the recording's env names the recording machine's
 * homes), `cwd` dropped (the recording machine's directories may not exist here). Keys keep
 * their recorded order; the ones the launch lacked come last.
 *
 * @returns true when `params` carried a launch (and was changed in place)
 */
export function pointNativeLaunchAt(params: Record<string, unknown>, agent: AgentCommand, key: string): boolean {
  const launch = launchAt(params.options, key);
  if (launch === undefined) return false;
  const { cwd: _cwd, ...rest } = launch;
  ((params.options as Record<string, unknown>).providerOptions as Record<string, unknown>)[key] = { ...rest, command: agent.command, args: [...agent.args], env: {} };
  return true;
}

/** The execution options that make the bridge start `agent`: `{providerOptions: {[key]: {command, args, env?, cwd?}}}`. */
export function nativeLaunchOptions(agent: AgentLaunch, key: string, carriesCwd = true): Record<string, unknown> {
  const launch = {
    command: agent.command,
    args: [...agent.args],
    ...(agent.env !== undefined ? { env: { ...agent.env } } : {}),
    ...(carriesCwd && agent.cwd !== undefined ? { cwd: agent.cwd } : {}),
  };
  return { providerOptions: { [key]: launch } };
}

/** The env of the launch at `options.providerOptions[key]`, or none. */
export function nativeLaunchEnv(options: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> {
  const env = launchAt(options, key)?.env;
  return isRecord(env) ? env : {};
}

/** A native family's replay and launch seam (agent-launch.ts `ReplayAdapter`) from what it tells ({@link NativeLaunch}). */
export function nativeLaunchSeam(native: NativeLaunch): ReplayAdapter {
  const { id, modulePath, key, carriesCwd = true, startsAgent } = native;
  return {
    id,
    providers: id,
    handles: (provider) => provider === id,
    modulePath,
    launchMarker: `"${key}"`,
    pointAgentAt: (params, agent) => pointNativeLaunchAt(params, agent, key),
    launchOptions: (agent) => nativeLaunchOptions(agent, key, carriesCwd),
    launchEnv: (options) => nativeLaunchEnv(options, key),
    ...(startsAgent !== undefined ? { startsAgent } : {}),
  };
}
