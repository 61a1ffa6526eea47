/**
 * The state of one ACP bridge instance and its resolved options (one options object, resolved
 * once, defaults in one place; spec 40).
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { randomBytes } from "node:crypto";
import { open } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { recordProviderChildIo } from "../bridge-kit/record-process.js";
import { sanitizeInheritedChildProcessEnv } from "../bridge-kit/child-env.js";
import { createRealScheduler, type Scheduler } from "../bridge-kit/scheduler.js";
import { defaultAcpDialectRegistry, type AcpDialectRegistry } from "./dialects/index.js";
import { DEFAULT_MAX_AGENT_LINE_BYTES } from "./connection/connection.js";
import type { AcpFsScope, OpenFileForWrite, ResolvedAcpBridgeOptions } from "./state/runtime.js";

export { createAcpBridgeRuntime, runtimeLinePlace, type AcpBridgeRuntime, type OpenFileForWrite, type ResolvedAcpBridgeOptions, type SkillsRoot } from "./state/runtime.js";

/** Timeouts of the ACP bridge, in ms (spec 30 §5, §6.3). They only detect a stuck agent. */
export const ACP_BRIDGE_DEFAULTS = {
  /** `initialize` (spec 30 §6.3). */
  initializeTimeoutMs: 60_000,
  /** `authenticate`. */
  authenticateTimeoutMs: 120_000,
  /** `session/new|load|resume|fork`. */
  sessionSetupTimeoutMs: 300_000,
  /** Wait for an interrupted turn to settle after `session/cancel` (spec 30 §5 step 3). */
  cancelSettleTimeoutMs: 4_000,
  /** Quiet period that ends an agent-initiated turn `end_turn` (spec 30 §6.2). */
  agentTurnQuietMs: 5_000,
  /** Poll period while waiting for a busy agent to go quiet before a prompt retry (spec 30 §6.2). */
  busyRetryPollMs: 2_000,
  /** Longest wait for a busy agent to go quiet (about 10 minutes). */
  busyRetryMaxWaitMs: 600_000,
  /** Cap on one agent stdout line, in bytes. */
  maxAgentLineBytes: DEFAULT_MAX_AGENT_LINE_BYTES,
  /** `model/list`: each discovery request and the CLI list command (spec 30 §6.4). */
  modelListTimeoutMs: 30_000,
} as const;

/** Options of an ACP bridge instance; everything has a default (see {@link ACP_BRIDGE_DEFAULTS}). */
export interface AcpBridgeOptions {
  /**
   * Every timer of the bridge (agent request timeouts, the agent-turn quiet period, the cancel
   * settle wait, busy polls, the model list command's limit, kill grace) and its clock; default
   * the real one (bridge-kit/scheduler.ts). Tests pass a fake one and advance it by hand.
   */
  scheduler?: Scheduler;
  /** Clock in ms for translators and caches; default the scheduler's `now` (core code never calls `Date.now()` itself). */
  now?: () => number;
  initializeTimeoutMs?: number;
  authenticateTimeoutMs?: number;
  sessionSetupTimeoutMs?: number;
  cancelSettleTimeoutMs?: number;
  agentTurnQuietMs?: number;
  busyRetryPollMs?: number;
  busyRetryMaxWaitMs?: number;
  maxAgentLineBytes?: number;
  modelListTimeoutMs?: number;
  /** Spawns agents (tests inject); default `child_process.spawn`. */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  /** Tees an agent right after spawn; default bridge-kit `recordProviderChildIo` (no-op unless recording). */
  recordChild?: (child: ChildProcess, threadId: string | null) => void;
  /** The shared child-env allowlist; default bridge-kit `sanitizeInheritedChildProcessEnv`. */
  sanitizeEnv?: (env: Record<string, string | undefined>) => Record<string, string>;
  dialects?: AcpDialectRegistry;
  /** Entropy for the dynamic-tool host token (32 random bytes, hex, by default). */
  randomToken?: () => string;
  /** How agents launch the `bb-bridge` MCP proxy; default: this node + the compiled `dynamic-tools/mcp-main.js` beside this module. */
  mcpProxy?: { command: string; args: string[] };
  /**
   * Where agent `fs/*` requests may reach (fs-scope.ts): `any` (default) = the reference (spec 20
   * §2.5: reads anywhere, `full` writes anywhere, accept-edits writes in the write roots);
   * `workspace` = hardening, the session's cwd and write roots in every permission mode.
   */
  fsScope?: AcpFsScope;
  /**
   * Opens the file of an agent's `fs/write_text_file` (interaction/write-in-place.ts); default
   * node:fs/promises `open`. Tests inject one that looks at the file between the open and the
   * first write, where a concurrent reader of the agent's would.
   */
  openFileForWrite?: OpenFileForWrite;
}

/** Resolves options once (spec 40 §5). A non-positive or non-finite timeout, or an unknown `fsScope`, is a TypeError naming it. */
export function resolveAcpBridgeOptions(options: AcpBridgeOptions = {}): ResolvedAcpBridgeOptions {
  const pick = (name: keyof typeof ACP_BRIDGE_DEFAULTS): number => {
    const value = options[name] ?? ACP_BRIDGE_DEFAULTS[name];
    if (!Number.isFinite(value) || value <= 0) throw new TypeError(`ACP bridge option ${name} must be a positive number (got ${value})`);
    return value;
  };
  const fsScope = options.fsScope ?? "any";
  if (fsScope !== "workspace" && fsScope !== "any") throw new TypeError(`ACP bridge option fsScope must be "workspace" or "any" (got ${String(fsScope)})`);
  const scheduler = options.scheduler ?? createRealScheduler();
  return {
    scheduler,
    now: options.now ?? (() => scheduler.now()),
    initializeTimeoutMs: pick("initializeTimeoutMs"),
    authenticateTimeoutMs: pick("authenticateTimeoutMs"),
    sessionSetupTimeoutMs: pick("sessionSetupTimeoutMs"),
    cancelSettleTimeoutMs: pick("cancelSettleTimeoutMs"),
    agentTurnQuietMs: pick("agentTurnQuietMs"),
    busyRetryPollMs: pick("busyRetryPollMs"),
    busyRetryMaxWaitMs: pick("busyRetryMaxWaitMs"),
    maxAgentLineBytes: pick("maxAgentLineBytes"),
    modelListTimeoutMs: pick("modelListTimeoutMs"),
    spawn: options.spawn,
    recordChild: options.recordChild ?? ((child, threadId) => recordProviderChildIo(child, { threadId })),
    sanitizeEnv: options.sanitizeEnv ?? ((env) => sanitizeInheritedChildProcessEnv({ env })),
    dialects: options.dialects ?? defaultAcpDialectRegistry,
    randomToken: options.randomToken ?? (() => randomBytes(32).toString("hex")),
    mcpProxy: options.mcpProxy ?? { command: process.execPath, args: [fileURLToPath(new URL("./dynamic-tools/mcp-main.js", import.meta.url))] },
    fsScope,
    openFileForWrite: options.openFileForWrite ?? open,
  };
}
