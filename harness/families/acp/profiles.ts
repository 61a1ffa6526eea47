/**
 * The ACP family's real agents: each shipped agent profile (agent-profiles.ts, data) becomes a
 * record provider run through the ACP bridge with the shipped agent's launch spec fields and
 * bridge options (stack/acp `agents`).
 */
import { findShippedAcpAgent } from "../../../stack/acp/agents/agents.js";
import { profileRecordProvider, type ProfileBridge } from "../profile-provider.js";
import { agentsDir, bridgeModulePath, type RecordProvider } from "../record-provider.js";
import { SHIPPED_AGENT_PROFILES } from "./agent-profiles.js";
import { acpLaunchOptions, ACP_BRIDGE_MODULE } from "./launch.js";

/**
 * The ACP bridge for a profile provider `id` (its display name `name`): the launch spec keeps
 * the shipped agent's fields (its `displayName` when it has one), and the bridge options are
 * the shipped agent's followed by `bridgeOptions` (a custom agent's `acpDialect`).
 */
export function acpProfileBridge(id: string, name: string, bridgeOptions: Record<string, unknown> = {}): ProfileBridge {
  const shipped = findShippedAcpAgent(id);
  return {
    modulePath: bridgeModulePath({ modulePath: ACP_BRIDGE_MODULE }),
    launchOptions: (agent) =>
      acpLaunchOptions(agent, {
        launch: { ...(shipped?.launchSpec ?? {}), displayName: shipped?.launchSpec.displayName ?? name },
        bridgeOptions: { ...(shipped?.bridgeOptions ?? {}), ...bridgeOptions },
      }),
  };
}

/**
 * A record provider for each shipped agent profile, by provider id (opencode, qwen, copilot,
 * gemini, claude, claude-zed, codex, pi), over the agents installed in `agents` (default the
 * project's `agents/`).
 */
export function shippedProfileProviders(agents: string = agentsDir()): Record<string, RecordProvider> {
  return Object.fromEntries(
    Object.values(SHIPPED_AGENT_PROFILES).map((p) => [
      p.id,
      profileRecordProvider(p, {
        id: p.id,
        name: p.name,
        command: p.command,
        args: p.args,
        agentsDir: agents,
        packages: p.packages,
        source: `npm ${p.packages.join(" + ")}`,
        bridge: acpProfileBridge(p.id, p.name),
      }),
    ]),
  );
}
