/**
 * The 60 s cache of ACP-native model discovery (spec 20 §3.11 step 2: "cached 60 s per agent
 * command"). One entry per launch spec (the same key as the declared-options cache,
 * model-session-options.ts) plus the request flags that change what discovery sees or keeps
 * (the picker's client capability, the reasoning-probe priority). Entries live in per-bridge
 * state (`AcpBridgeRuntime.discoveryCache`) and age on the bridge's injected clock. Only a
 * successful discovery is stored: a failure is never remembered, so the next `model/list` asks
 * the agent again.
 */
import type { AcpModelListResult } from "./model-list-result.js";
import { sessionOptionsCacheKey } from "./model-session-options.js";

/** How long a discovery result stays fresh, in ms (spec 20 §3.11 step 2: 60 s). */
export const DISCOVERY_CACHE_TTL_MS = 60_000;

/** One cached discovery: the list before the launch-spec overlays, read at `readAt` (ms on the bridge clock). */
export interface DiscoveryCacheEntry {
  readAt: number;
  list: AcpModelListResult;
}

/** Per-bridge discovery cache, keyed by {@link discoveryCacheKey}. */
export type DiscoveryCache = Map<string, DiscoveryCacheEntry>;

/**
 * The cache key of one discovery: the launch spec's agent identity (command, args, env, cwd, as
 * {@link sessionOptionsCacheKey}) with the picker flag and the probe priority ids. Pure.
 */
export function discoveryCacheKey(
  spec: { command: string; args: readonly string[]; env?: Record<string, string> | undefined; cwd?: string | undefined },
  cwd: string,
  extras: { parameterizedModelPicker: boolean; reasoningProbePriorityModelIds: readonly string[] },
): string {
  return JSON.stringify([sessionOptionsCacheKey(spec, cwd), extras.parameterizedModelPicker, extras.reasoningProbePriorityModelIds]);
}

/**
 * The cached list for `key` when read less than {@link DISCOVERY_CACHE_TTL_MS} before `now()` (ms),
 * else `undefined`; a stale entry (or one from a clock that went back) is dropped. The clock is
 * read only when there is an entry to age (an injected clock may not be ready before the first discovery).
 */
export function freshDiscovery(cache: DiscoveryCache, key: string, now: () => number): AcpModelListResult | undefined {
  const entry = cache.get(key);
  if (!entry) return undefined;
  const at = now();
  if (at - entry.readAt >= DISCOVERY_CACHE_TTL_MS || at < entry.readAt) {
    cache.delete(key);
    return undefined;
  }
  return entry.list;
}
