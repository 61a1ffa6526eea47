/**
 * The state of one ACP bridge instance (spec 40: state below, lifecycle above): the resolved
 * options every room reads, the live and setting-up sessions, the skills latched by
 * `skills/configure`, the dynamic-tool host and the `model/list` caches. The options and their
 * defaults are resolved once by `resolveAcpBridgeOptions` (`stack/acp/bridge-runtime.ts`).
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { FileHandle } from "node:fs/promises";
import type { BridgeContext } from "../../bridge-kit/define.js";
import type { Scheduler } from "../../bridge-kit/scheduler.js";
import type { AcpDialectRegistry } from "../dialects/index.js";
import type { AcpModelListResult } from "../model-data/model-list-result.js";
import type { DiscoveryCache, DiscoveryInFlight } from "../model-data/model-discovery-cache.js";
import type { SessionOptionsCache } from "../model-data/model-session-options.js";
import { createReadOrder, type ReadOrder } from "../connection/read-order.js";
import type { AcpSession } from "./session.js";

/**
 * Where agent `fs/*` requests may reach (`interaction/fs-scope.ts`): `any` = the reference (spec 20
 * §2.5), `workspace` = hardening, the session's cwd and write roots in every permission mode.
 */
export type AcpFsScope = "workspace" | "any";

/**
 * Opens the file of an agent's `fs/write_text_file` (`interaction/write-in-place.ts`):
 * `open(path, flags, mode)` of node:fs/promises, or a test's observer around it.
 */
export type OpenFileForWrite = (path: string, flags: number, mode: number) => Promise<FileHandle>;

/**
 * The running dynamic-tool host as the bridge state holds it (`dynamic-tools/host.ts` starts it,
 * `dynamic-tools/calls.ts` reads it, `bridge.ts` closes it).
 */
export interface DynamicToolHost {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/** The bridge options with every default filled in (`resolveAcpBridgeOptions`, `stack/acp/bridge-runtime.ts`). */
export interface ResolvedAcpBridgeOptions {
  scheduler: Scheduler;
  now: () => number;
  initializeTimeoutMs: number;
  authenticateTimeoutMs: number;
  sessionSetupTimeoutMs: number;
  cancelSettleTimeoutMs: number;
  agentTurnQuietMs: number;
  busyRetryPollMs: number;
  busyRetryMaxWaitMs: number;
  maxAgentLineBytes: number;
  modelListTimeoutMs: number;
  /** Spawns agents; `undefined`: `child_process.spawn`. */
  spawn: ((command: string, args: string[], options: SpawnOptions) => ChildProcess) | undefined;
  recordChild: (child: ChildProcess, threadId: string | null) => void;
  sanitizeEnv: (env: Record<string, string | undefined>) => Record<string, string>;
  dialects: AcpDialectRegistry;
  randomToken: () => string;
  mcpProxy: { command: string; args: string[] };
  fsScope: AcpFsScope;
  openFileForWrite: OpenFileForWrite;
}

/** Timeout of one `session/set_config_option` / `session/set_mode` call, in ms (spec 30 §6.3); per-turn options and the native selection share it. */
export const CONFIG_CALL_TIMEOUT_MS = 60_000;

/** A skills root latched by `skills/configure` (spec 20 §1.2). */
export interface SkillsRoot {
  id: string;
  path: string;
  skills: Array<{ name: string; description: string }>;
}

/** Everything one bridge instance serving one runtime holds. */
export interface AcpBridgeRuntime {
  readonly ctx: BridgeContext;
  readonly options: ResolvedAcpBridgeOptions;
  /** Live sessions by bb thread id. */
  readonly sessions: Map<string, AcpSession>;
  /** Sessions still being set up, by bb thread id (a stop aborts them). */
  readonly settingUp: Map<string, AcpSession>;
  /** Latched by `skills/configure`; used at the next session construction. */
  skills: SkillsRoot[];
  /** The dynamic-tool host, once a session with dynamic tools started it. */
  toolHost: Promise<DynamicToolHost> | null;
  /** Last CLI model catalog per list command (JSON of command + list args), the fallback of a failed run. */
  readonly modelCatalogs: Map<string, AcpModelListResult>;
  /** Declared session options per launch spec, read by `model/list` (spec 30 §6.4, 60 s on `options.now`). */
  readonly sessionOptionsCache: SessionOptionsCache;
  /** ACP-native discovery results per launch spec, read by `model/list` (spec 20 §3.11 step 2, 60 s on `options.now`). */
  readonly discoveryCache: DiscoveryCache;
  /** ACP-native discoveries still running per launch spec, shared by concurrent `model/list` requests (spec 20 §3.11 step 2). */
  readonly discoveryInFlight: DiscoveryInFlight;
  /** Where each runtime line acts, in read order (connection/read-order.ts; {@link runtimeLinePlace}). */
  readonly readOrder: ReadOrder;
}

/**
 * The place of a runtime line read just now (call synchronously where it is read): resolves once
 * every agent line read before it, on every live or setting-up session's connection, was handled
 * and the runtime lines read before it reached their places (connection/read-order.ts). With
 * `actedOn` (settles once this line's write to the agent is done), the runtime line read next is
 * placed only after that write.
 */
export function runtimeLinePlace(rt: AcpBridgeRuntime, actedOn?: Promise<void>): Promise<void> {
  const connections = new Set([...rt.settingUp.values(), ...rt.sessions.values()].map((session) => session.connection));
  return rt.readOrder.place(
    [...connections].map((connection) => connection.handledReceived()),
    actedOn,
  );
}

/** Creates the per-context state. */
export function createAcpBridgeRuntime(ctx: BridgeContext, options: ResolvedAcpBridgeOptions): AcpBridgeRuntime {
  return {
    ctx,
    options,
    sessions: new Map(),
    settingUp: new Map(),
    skills: [],
    toolHost: null,
    modelCatalogs: new Map(),
    sessionOptionsCache: new Map(),
    discoveryCache: new Map(),
    discoveryInFlight: new Map(),
    readOrder: createReadOrder(),
  };
}
