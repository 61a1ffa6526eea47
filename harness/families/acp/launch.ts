/**
 * The ACP family's agent launch (spec 30 §3.1; spec 10 §5.1 g): where a request carries the
 * agent's command line (`providerOptions.acpLaunchSpec`), written for a recording, read for
 * redaction, re-pointed for a replay.
 */
import { dialectIdOfCommand } from "../../../stack/acp/dialects/commands.js";
import { isRecord } from "../../../stack/protocol/json-value.js";
import type { AgentCommand, AgentLaunch, LaunchBase, ReplayAdapter } from "../agent-launch.js";

/**
 * Points an ACP launch spec at `agent` (spec 10 §5.1 g): the spec at
 * `params.options.providerOptions.acpLaunchSpec` (whatever the method) keeps its other keys but
 * loses `modelCli` and `cwd` (the agent's own directory on the recording machine: it may not
 * exist here, and the replay child needs none), gets `command` and `args` of `agent`, and
 * `env: {}`; when no `providerOptions.acpDialect` is set, the dialect the recorded command implies
 * (spec 30 §1.2: `cursor-agent` → `cursor`) is pinned explicitly, since the replay child's
 * command (node) would select the generic one and a recording made before dialects existed
 * would replay as a generic agent.
 *
 * @returns true when `params` carried a launch spec (and was changed in place)
 */
export function pointAcpLaunchSpecAt(params: Record<string, unknown>, agent: AgentCommand): boolean {
  const options = params.options;
  if (!isRecord(options)) return false;
  const providerOptions = options.providerOptions;
  if (!isRecord(providerOptions) || !isRecord(providerOptions.acpLaunchSpec)) return false;
  const spec: Record<string, unknown> = { ...providerOptions.acpLaunchSpec };
  if (providerOptions.acpDialect === undefined && typeof spec.command === "string") {
    const implied = dialectIdOfCommand(spec.command);
    if (implied !== undefined) providerOptions.acpDialect = implied;
  }
  delete spec.modelCli;
  delete spec.cwd;
  spec.command = agent.command;
  spec.args = [...agent.args];
  spec.env = {};
  providerOptions.acpLaunchSpec = spec;
  return true;
}

/**
 * The execution options that make the ACP bridge start `agent` (spec 30 §3.1):
 * `providerOptions` = the base bridge options, then `acpLaunchSpec` = the base launch fields
 * followed by `command`, `args`, and `env` / `cwd` when the agent has them.
 */
export function acpLaunchOptions(agent: AgentLaunch, base: LaunchBase = {}): Record<string, unknown> {
  const acpLaunchSpec = {
    ...(base.launch ?? {}),
    command: agent.command,
    args: [...agent.args],
    ...(agent.env !== undefined ? { env: { ...agent.env } } : {}),
    ...(agent.cwd !== undefined ? { cwd: agent.cwd } : {}),
  };
  return { providerOptions: { ...(base.bridgeOptions ?? {}), acpLaunchSpec } };
}

/** The env of the ACP launch spec among execution options (`providerOptions.acpLaunchSpec.env`), or none. */
export function acpLaunchEnv(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const providerOptions = options.providerOptions;
  if (!isRecord(providerOptions) || !isRecord(providerOptions.acpLaunchSpec)) return {};
  const env = providerOptions.acpLaunchSpec.env;
  return typeof env === "object" && env !== null ? (env as Record<string, unknown>) : {};
}

/** The ACP bridge module, relative to the repository root: the one place it is written (the family's `modulePath`). */
export const ACP_BRIDGE_MODULE = "dist/stack/acp/bridge.js";

/** The ACP family's replay and launch seam: providers `acp-*`, {@link ACP_BRIDGE_MODULE}, its launch spec re-pointed. */
export const acpLaunchSeam: ReplayAdapter = {
  id: "acp",
  providers: "acp-*",
  handles: (provider) => provider.startsWith("acp-"),
  modulePath: ACP_BRIDGE_MODULE,
  launchMarker: '"acpLaunchSpec"',
  pointAgentAt: pointAcpLaunchSpecAt,
  launchOptions: acpLaunchOptions,
  launchEnv: acpLaunchEnv,
};
