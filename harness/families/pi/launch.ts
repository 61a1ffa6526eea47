/**
 * The pi family's launch (stack/pi/launch.ts): the bridge module, and the execution options'
 * `providerOptions.piLaunchSpec {command, args, env?}` written for a recording, read for
 * redaction and re-pointed at the replay child.
 */
import { isRecord } from "../../../stack/protocol/json-value.js";

/** The pi bridge module, relative to the repository root: the one place it is written. */
export const PI_BRIDGE_MODULE = "dist/stack/pi/bridge.js";
import type { AgentCommand, AgentLaunch, ReplayAdapter } from "../agent-launch.js";

/**
 * Points the pi launch spec at `params.options.providerOptions.piLaunchSpec` at `agent` (spec 10
 * §5.1 g for the pi bridge, stack/pi/launch.ts): `command` and `args` become the agent's, `env`
 * empty. The bridge appends pi's RPC flags, which the replay child ignores.
 *
 * @returns true when `params` carried a pi launch spec (changed in place)
 */
export function pointPiLaunchSpecAt(params: Record<string, unknown>, agent: AgentCommand): boolean {
  const options = params.options;
  if (!isRecord(options)) return false;
  const providerOptions = options.providerOptions;
  if (!isRecord(providerOptions) || !isRecord(providerOptions.piLaunchSpec)) return false;
  providerOptions.piLaunchSpec = { ...providerOptions.piLaunchSpec, command: agent.command, args: [...agent.args], env: {} };
  return true;
}

/** The execution options that make the pi bridge start `agent`: `providerOptions.piLaunchSpec {command, args, env?}`. */
export function piLaunchOptions(agent: AgentLaunch): Record<string, unknown> {
  return { providerOptions: { piLaunchSpec: { command: agent.command, args: [...agent.args], ...(agent.env !== undefined ? { env: { ...agent.env } } : {}) } } };
}

/** The env of the pi launch spec among execution options, or none. */
export function piLaunchEnv(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const providerOptions = options.providerOptions;
  if (!isRecord(providerOptions) || !isRecord(providerOptions.piLaunchSpec)) return {};
  const env = providerOptions.piLaunchSpec.env;
  return isRecord(env) ? env : {};
}

/** The pi family's replay and launch seam: provider `pi`, its bridge, its launch spec re-pointed, `get_state` starting each pi process. */
export const piLaunchSeam: ReplayAdapter = {
  id: "pi",
  providers: "pi",
  handles: (provider) => provider === "pi",
  modulePath: PI_BRIDGE_MODULE,
  launchMarker: '"piLaunchSpec"',
  pointAgentAt: pointPiLaunchSpecAt,
  launchOptions: (agent) => piLaunchOptions(agent),
  launchEnv: piLaunchEnv,
  // The bridge's first command to every pi process is `get_state` with id `pi-1` (stack/pi/rpc.ts counts ids per process).
  startsAgent: (line) => line.startsWith('{"id":"pi-1","type":"get_state"'),
};
