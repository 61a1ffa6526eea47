/**
 * How a replay starts its bridge (spec 10 §5.1 "Bridge process"): through the bootstrap, exactly
 * as a runtime starts it, with the harness's one bridge spawner (`harness/runtime/bridge-process.ts`),
 * its events queued for the walk. Used by a replay itself and by the bridge pool that starts
 * bridges ahead of their replays.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { RELAY_DIR_ENV_VAR } from "../../../stack/bridge-kit/bootstrap-relay-wire.js";
import type { Scheduler } from "../../../stack/bridge-kit/scheduler.js";
import type { ReplayAdapter } from "../../families/agent-launch.js";
import { spawnBridgeProcess, type BridgeLaunch, type SpawnedBridge } from "../../runtime/bridge-process.js";
import { createEventQueue, type EventQueue } from "../walk/event-queue.js";
import type { ReplayEvent } from "../walk/schedule-types.js";
import { replayProfileFor } from "./profiles.js";
import { socketParent } from "../../runtime/unix-socket-path.js";
import { findRepoRoot, replayArtifacts, spawnedModule } from "./repo-paths.js";

/** Most stderr a replay keeps from the bridge, in characters (the tail is kept). */
export const MAX_BRIDGE_STDERR_CHARS = 64 * 1024;

/**
 * Node flags of a replayed bridge. V8's memory reducer arms an 8 s timer on the bridge's event
 * loop after activity; it is indistinguishable from the bridge's own timers, which the replay
 * waits for when judging idleness (harness/replay/idleness/). It only schedules garbage collection.
 */
const REPLAY_NODE_FLAGS = ["--no-memory-reducer"];

/**
 * A replay's bridge launch, but for its data directory (made per start); `relayInProcess`: the
 * bootstrap is told the replay's relay directory and serves spawns of its relay script itself.
 */
export type ReplayLaunch = Omit<BridgeLaunch, "dataDir"> & { relayInProcess?: boolean };

/**
 * What the bridge spawns as its agent during a replay (harness/replay/stand-ins/):
 * - `in-process` (default): the relay, served inside the bridge process by the bootstrap
 *   (stack/bridge-kit/bootstrap-relay-spawn.ts) wherever the bridge spawns it as given, else a
 *   perl relay process;
 * - `relay`: a perl relay process for every agent session;
 * - `node`: the Node replay child.
 * The relay kinds need `perl` on PATH; without it the Node replay child is used.
 */
export type AgentProcessKind = "in-process" | "relay" | "node";

/** The options of a replay that decide how its bridge starts (part of `ReplayOptions`). */
export interface BridgeLaunchOptions {
  /** Repository whose `dist/` holds the bootstrap, the replay child and the bridges (default: this one). */
  repoRoot?: string;
  /** Bridge module to load instead of the provider's profile module (absolute or relative to `repoRoot`). */
  modulePath?: string;
  /** The bridge families the replay knows (default: the shipped ones); the provider's gives the bridge module. */
  adapters?: readonly ReplayAdapter[];
  /** Provider id passed to the bootstrap (default: the manifest's provider). */
  providerId?: string;
  /** Extra environment for the bridge process. */
  env?: NodeJS.ProcessEnv;
  /** Bound on one line the bridge writes, in bytes (default 64 MiB, harness/runtime/bridge-process.ts); a longer line is a `line-too-long` divergence. */
  maxLineBytes?: number;
  /** What the bridge spawns as its agent ({@link AgentProcessKind}; default `in-process`). */
  agentProcess?: AgentProcessKind;
}

/** A bridge process started through the bootstrap with its private directories and event queue, not yet driven. */
export interface StartedBridge {
  /** The replay's private temporary directory (the bridge's data directory is inside). */
  base: string;
  queue: EventQueue<ReplayEvent>;
  bridge: SpawnedBridge;
  /** What the bridge was started with; a replay takes it only when its own launch is the same. */
  launch: BridgeLaunch;
}

/** Where a replay looks for a bridge already started like the one it needs. */
export interface PrestartedBridges {
  /** Removes and returns a started bridge whose launch equals `launch` but for its data directory, or undefined. */
  take(launch: ReplayLaunch): Promise<StartedBridge> | undefined;
}

/** The launch of `provider`'s bridge from the repository `root`, module `modulePath` (absolute). */
export function bridgeLaunchOf(root: string, provider: string, modulePath: string, options: BridgeLaunchOptions): ReplayLaunch {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  delete env.BB_PROVIDER_BRIDGE_RECORD_DIR;
  return {
    bootstrapPath: replayArtifacts(root).bootstrap,
    modulePath: spawnedModule(modulePath),
    providerId: options.providerId ?? provider,
    cwd: root,
    env,
    nodeFlags: REPLAY_NODE_FLAGS,
    stderrTailChars: MAX_BRIDGE_STDERR_CHARS,
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    relayInProcess: (options.agentProcess ?? "in-process") === "in-process",
  };
}

/**
 * Starts a bridge as a replay would, in a fresh private directory; its events wait in the
 * returned queue (its quiet waits on `scheduler`) until a walk reads them.
 */
export async function startBridge(launch: ReplayLaunch, scheduler: Scheduler): Promise<StartedBridge> {
  // The stand-in's relay.sock / child.sock go in `base`: a long TMPDIR falls back to a short parent (unix-socket-path.ts).
  const base = await mkdtemp(join(socketParent(tmpdir(), join("pr-XXXXXX", "relay.sock")), "pr-"));
  let dataDir: string;
  try {
    dataDir = await mkdtemp(join(base, "data-"));
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }
  const queue = createEventQueue<ReplayEvent>(scheduler);
  // The relay directory is this replay's own (`base`): the stand-in writes its script and socket there.
  const env = launch.relayInProcess ? { ...launch.env, [RELAY_DIR_ENV_VAR]: base } : launch.env;
  const full: BridgeLaunch = { ...launch, dataDir, env };
  const bridge = spawnBridgeProcess(full, (event) => queue.push(event));
  return { base, queue, bridge, launch: full };
}

/**
 * The bridge launch of a replay of `provider` with `options`, for starting one ahead of it.
 *
 * @throws UsageError for a provider with no replay profile; Error when artifacts are missing
 */
export function replayBridgeLaunch(provider: string, options: BridgeLaunchOptions = {}): ReplayLaunch {
  const root = options.repoRoot ?? findRepoRoot();
  const modulePathRel = options.modulePath ?? replayProfileFor(provider, options.adapters).modulePath;
  return bridgeLaunchOf(root, provider, isAbsolute(modulePathRel) ? modulePathRel : resolve(root, modulePathRel), options);
}
