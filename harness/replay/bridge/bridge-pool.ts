/**
 * Bridges started ahead of their replays, so a bridge's start-up (a Node process loading its
 * modules, the longest wait before a replay can write its first line) overlaps what the caller
 * still has to do: read recordings and allowlists, plan batches, make workspaces. Each bridge is
 * started exactly as the replay would start it (`startBridge`: through the bootstrap, as a runtime
 * starts it) and only a replay whose own launch is the same takes it; what nobody took is stopped
 * by {@link BridgePool.close}. A bridge that waited reads nothing and writes nothing until its
 * replay begins, so nothing a verdict depends on changes.
 */
import { rm } from "node:fs/promises";
import { createRealScheduler, type Scheduler } from "../../../stack/bridge-kit/scheduler.js";
import { replayBridgeLaunch, startBridge, type BridgeLaunchOptions, type PrestartedBridges, type ReplayLaunch, type StartedBridge } from "./launch.js";

/** Bridges started ahead; a replay given the pool as `ReplayOptions.bridges` takes a matching one. */
export interface BridgePool extends PrestartedBridges {
  /**
   * Starts, now, the bridge a replay of `provider` with `options` would start. A provider the
   * replay cannot handle starts nothing (its replay reports that itself).
   */
  start(provider: string, options?: BridgeLaunchOptions): void;
  /**
   * As {@link BridgePool.start}, unless a bridge started exactly so is already waiting: a
   * bridge asked for ahead of a batch that an earlier guess already started is not started twice.
   */
  ensureWaiting(provider: string, options?: BridgeLaunchOptions): void;
  /**
   * Resolves once every bridge started so far has its process spawned (or failed to start): a
   * start makes the bridge's directories before it spawns, so a caller about to block its event
   * loop (loading modules) waits for this first, or the spawn waits for it.
   */
  spawned(): Promise<void>;
  /** Stops every bridge no replay took and removes its directory; awaits their exits. */
  close(): Promise<void>;
}

/** The launch as a comparable text: everything but the data directory, the environment's entries sorted. */
function keyOf(launch: ReplayLaunch): string {
  const env = Object.entries(launch.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([launch.bootstrapPath, launch.modulePath, launch.providerId, launch.cwd, env, launch.maxLineBytes ?? null, launch.relayInProcess ?? false]);
}

/** An empty {@link BridgePool}; its bridges' event queues wait on `scheduler` (default the real one). */
export function createBridgePool(scheduler: Scheduler = createRealScheduler()): BridgePool {
  const waiting: Array<{ key: string; started: Promise<StartedBridge> }> = [];
  const start = (provider: string, options: BridgeLaunchOptions, unlessWaiting: boolean): void => {
    let launch: ReplayLaunch;
    try {
      launch = replayBridgeLaunch(provider, options);
    } catch {
      return;
    }
    const key = keyOf(launch);
    if (unlessWaiting && waiting.some((w) => w.key === key)) return;
    const started = startBridge(launch, scheduler);
    // A start that failed is reported by the replay that takes it (or dropped by close).
    started.catch(() => undefined);
    waiting.push({ key, started });
  };
  return {
    start: (provider, options = {}) => start(provider, options, false),
    ensureWaiting: (provider, options = {}) => start(provider, options, true),
    take(launch) {
      const key = keyOf(launch);
      const at = waiting.findIndex((w) => w.key === key);
      return at === -1 ? undefined : waiting.splice(at, 1)[0]!.started;
    },
    async spawned() {
      await Promise.allSettled(waiting.map((w) => w.started));
    },
    async close() {
      const left = waiting.splice(0);
      await Promise.all(
        left.map(async ({ started }) => {
          let bridge: StartedBridge;
          try {
            bridge = await started;
          } catch {
            return;
          }
          bridge.bridge.kill();
          await bridge.bridge.whenExited();
          await rm(bridge.base, { recursive: true, force: true });
        }),
      );
    },
  };
}
