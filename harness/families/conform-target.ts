/**
 * `parity conform --bridge <name | module path>` (spec 10 §7): a family's `conform.name`
 * resolves through that family's hook; anything else is a path to a module exporting
 * `experimental_providerBridge`, spawned through the bootstrap.
 */
import path from "node:path";
import { spawnOptions, withLaunchSpec, type BridgeTarget, type BridgeTargetOptions } from "../conformance/target.js";
import { childProcessTransport } from "../conformance/transport.js";
import type { BridgeFamily } from "./family.js";
import { bridgeModulePath } from "./record-provider.js";

/** The `--bridge` names of `families` that have a conform hook, in their order. */
export function conformBridgeNames(families: readonly BridgeFamily[]): string[] {
  return families.flatMap((family) => (family.conform ? [family.conform.name] : []));
}

/**
 * Resolves `--bridge <name | module path>`: a family's conform name, else a path to a module
 * exporting `experimental_providerBridge`, spawned with provider id `--provider-id` (default:
 * the module's file name without extension) and the `--session` fixture (default: an ordinary
 * prompt only, so the zero-work and interrupt rules report nothing). A family's own bridge named
 * by its path keeps the family's `passesAgentSessionId`.
 *
 * @throws what the family's `conform.resolve` throws
 */
export function resolveConformTarget(bridge: string, options: BridgeTargetOptions, families: readonly BridgeFamily[]): BridgeTarget {
  const named = families.find((family) => family.conform?.name === bridge);
  if (named?.conform) return named.conform.resolve(options, bridgeModulePath(named));
  const base = bridge.split(/[\\/]/).pop() ?? bridge;
  const providerId = options.providerId ?? base.replace(/\.[cm]?js$/, "");
  const owner = families.find((family) => path.resolve(options.cwd, bridge) === bridgeModulePath(family));
  const transport = childProcessTransport(spawnOptions(bridge, providerId, options));
  return {
    modulePath: bridge,
    transport: owner?.conform?.passesAgentSessionId ? { ...transport, passesAgentSessionId: true } : transport,
    session: withLaunchSpec(options.session ?? { cwd: options.cwd }, options.launchSpec),
  };
}
