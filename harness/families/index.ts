/**
 * The bridge families this package ships, in one list, and the lookups the flows make in it
 * (family.ts). A new family is one folder `harness/families/<id>/` and one line in
 * {@link BRIDGE_FAMILIES} (README.md). Every lookup takes the list as an argument (default the
 * shipped one), so a caller — a test — may bring its own family without touching a flow.
 */
import type { BridgeTarget, BridgeTargetOptions } from "../conformance/target.js";
import { UsageError } from "../errors.js";
import { conformBridgeNames, resolveConformTarget } from "./conform-target.js";
import { acpFamily } from "./acp/index.js";
import { codexFamily } from "./codex/index.js";
import { claudeCodeFamily } from "./claude-code/index.js";
import { customAgentsByFamily, readCustomAgentsText } from "./custom-agents-file.js";
import { echoFamily } from "./echo/index.js";
import type { BridgeFamily } from "./family.js";
import { piFamily } from "./pi/index.js";
import type { RecordProvider, RecordProvidersOptions } from "./record-provider.js";

export type { AgentCommand, AgentLaunch, LaunchBase, ReplayAdapter } from "./agent-launch.js";
export type { BridgeFamily, FamilyCommandProbeRequest, FamilyConform, FamilyCustomAgents, FamilyProbe, FamilyProviderProbeRequest, FamilyRecordProviders, ProbeAnswer, ProbeSpawn } from "./family.js";

/** The bridge families this package ships (the order `parity conform --help` lists their names in). */
export const BRIDGE_FAMILIES: readonly BridgeFamily[] = [echoFamily, acpFamily, codexFamily, claudeCodeFamily, piFamily];

/** The family whose `handles` accepts `provider`, or undefined. */
export function familyOf(provider: string, families: readonly BridgeFamily[] = BRIDGE_FAMILIES): BridgeFamily | undefined {
  return families.find((family) => family.handles(provider));
}

/**
 * Every provider `parity record --provider` knows, by id: all families' real agents, then the
 * bridges that run alone, then the fixture agents (shipped: opencode … pi, echo, then
 * acp-cursor, acp-grok, acp-omp-fixture, acp-hermes-agent).
 */
export function recordProviders(families: readonly BridgeFamily[] = BRIDGE_FAMILIES, options: RecordProvidersOptions = {}): Record<string, RecordProvider> {
  const groups = families.map((family) => family.recordProviders(options));
  return Object.assign({}, ...groups.map((g) => g.agents ?? {}), ...groups.map((g) => g.bridges ?? {}), ...groups.map((g) => g.fixtures ?? {})) as Record<string, RecordProvider>;
}

/**
 * The provider to record: an agent of `customAgentsFile` when one of its entries is
 * `providerId` (read by the family the entry names, ACP by default), else one of
 * {@link recordProviders} built with `options` (where the real agents are installed).
 *
 * @throws UsageError naming the known providers for an unknown one; InputError naming the file
 *   for a bad customAgents file or a custom agent whose command cannot start.
 */
export async function recordProviderFor(
  providerId: string,
  customAgentsFile: string | undefined,
  families: readonly BridgeFamily[] = BRIDGE_FAMILIES,
  options: RecordProvidersOptions = {},
): Promise<RecordProvider> {
  if (customAgentsFile !== undefined) {
    const readers = families.filter((family) => family.customAgents !== undefined);
    const byFamily = customAgentsByFamily(
      await readCustomAgentsText(customAgentsFile),
      customAgentsFile,
      readers.map((f) => f.id),
    );
    for (const family of readers) {
      const text = byFamily.get(family.id);
      const found = text === undefined ? undefined : await family.customAgents!.recordProvider(text, providerId, customAgentsFile);
      if (found) return found;
    }
  }
  const all = recordProviders(families, options);
  const found = all[providerId];
  if (!found) throw new UsageError(`--provider "${providerId}": parity record knows ${Object.keys(all).join(", ")}`);
  return found;
}

/**
 * The providers `parity probe --provider` knows: every one of {@link recordProviders} whose
 * family has a `probe` hook (shipped: the thirteen ACP agents, real and fixture).
 */
export function probeProviderIds(families: readonly BridgeFamily[] = BRIDGE_FAMILIES): string[] {
  return Object.keys(recordProviders(families)).filter((id) => familyOf(id, families)?.probe !== undefined);
}

/**
 * The family whose probe asks `providerId`'s agent (`parity probe --provider`).
 *
 * @throws UsageError naming the provider's family when it has no probe, or the probe-able providers when no family owns it.
 */
export function probeFamilyOf(providerId: string, families: readonly BridgeFamily[] = BRIDGE_FAMILIES): BridgeFamily & { probe: NonNullable<BridgeFamily["probe"]> } {
  const family = familyOf(providerId, families);
  if (family?.probe) return family as BridgeFamily & { probe: NonNullable<BridgeFamily["probe"]> };
  const why = family ? `the ${family.id} bridge family has no probe` : "no bridge family owns it";
  throw new UsageError(`--provider ${providerId}: ${why} (parity probe knows ${probeProviderIds(families).join(", ")})`);
}

/**
 * The family that probes a bare `--command`: the first in the list whose probe takes commands.
 *
 * @throws UsageError when none does.
 */
export function commandProbeFamily(families: readonly BridgeFamily[] = BRIDGE_FAMILIES): BridgeFamily & { probe: NonNullable<BridgeFamily["probe"]> } {
  const family = families.find((f) => f.probe?.command !== undefined);
  if (!family) throw new UsageError("--command: no bridge family probes a bare agent command; give --provider <id>");
  return family as BridgeFamily & { probe: NonNullable<BridgeFamily["probe"]> };
}

/** The env every family's agent launch among execution `options` gives its agent (the record flow redacts its secret values). */
export function launchEnvOf(options: Readonly<Record<string, unknown>>, families: readonly BridgeFamily[] = BRIDGE_FAMILIES): NodeJS.ProcessEnv {
  return Object.assign({}, ...families.map((family) => family.launchEnv?.(options) ?? {})) as NodeJS.ProcessEnv;
}

/** The `--bridge` names `parity conform` knows (shipped: echo, acp). */
export function knownBridgeNames(families: readonly BridgeFamily[] = BRIDGE_FAMILIES): string[] {
  return conformBridgeNames(families);
}

/** Resolves `parity conform --bridge <name | module path>` (conform-target.ts). */
export function resolveBridgeTarget(bridge: string, options: BridgeTargetOptions, families: readonly BridgeFamily[] = BRIDGE_FAMILIES): BridgeTarget {
  return resolveConformTarget(bridge, options, families);
}

export { bridgeModulePath } from "./record-provider.js";
export { withoutRecordProfiles } from "./custom-agents-file.js";

export { REPLAY_ADAPTERS, startsAgentProcess } from "./replay-adapters.js";
export { PROVIDER_PAIRS, findPair, pairName, customAgentPairs, type ProviderPair } from "./pairs.js";
