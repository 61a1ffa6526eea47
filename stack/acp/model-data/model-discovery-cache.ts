/**
 * The 60 s cache of ACP-native model discovery (spec 20 §3.11 step 2: "cached 60 s per agent
 * command"). One entry per launch spec (the same key as the declared-options cache,
 * model-session-options.ts) plus the request flags that change what discovery sees or keeps
 * (the picker's client capability, the reasoning-probe priority). Entries live in per-bridge
 * state (`AcpBridgeRuntime.discoveryCache`) and age on the bridge's injected clock. Only a
 * successful discovery is stored: a failure is never remembered, so the next `model/list` asks
 * the agent again.
 *
 * A discovery still running is shared per key (`AcpBridgeRuntime.discoveryInFlight`): concurrent
 * `model/list` requests for the same agent wait on one throwaway agent rather than each launching
 * their own, and all get its result or its failure. The entry is dropped once it settles.
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

/** Per-bridge discoveries still running, keyed by {@link discoveryCacheKey}; each settles with the list or the discovery's error. */
export type DiscoveryInFlight = Map<string, Promise<AcpModelListResult>>;

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

/**
 * The discovery of `key`: the cached list when fresh ({@link freshDiscovery}), else the discovery
 * already running for `key`, else `discover()` started now and registered in `inFlight` until it
 * settles. A result is cached at `now()` (ms) when it arrives; a failure rejects every waiter with
 * the same error and leaves neither a cache entry nor an in-flight entry, so the next call
 * discovers again. The check and the registration happen before the first await, so two calls in
 * the same tick share one discovery.
 * @throws whatever `discover()` throws.
 */
export function sharedDiscovery(
  state: { cache: DiscoveryCache; inFlight: DiscoveryInFlight },
  key: string,
  now: () => number,
  discover: () => Promise<AcpModelListResult>,
): Promise<AcpModelListResult> {
  const cached = freshDiscovery(state.cache, key, now);
  if (cached) return Promise.resolve(cached);
  const running = state.inFlight.get(key);
  if (running) return running;
  const started = discover()
    .then((list) => {
      state.cache.set(key, { readAt: now(), list });
      return list;
    })
    .finally(() => state.inFlight.delete(key));
  state.inFlight.set(key, started);
  return started;
}
