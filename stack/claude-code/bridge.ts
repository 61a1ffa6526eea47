import { randomBytes } from "node:crypto";
import type { BridgeContext, ProviderBridge } from "../bridge-kit/define.js";
import type { BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { createRealScheduler, type Scheduler } from "../bridge-kit/scheduler.js";
import { defineSessionBridge, nativeCapabilities, sessionBridgeHandlers, type BridgeSessions } from "../bridge-kit/session-bridge.js";
import type { SessionDeps } from "./session.js";
import { createClaudeSessions, type Entropy } from "./sessions.js";

/**
 * The Claude Code bridge (spec 60 "Claude Code: stream-json"): drives the `claude` CLI over its
 * stream-json wire and control protocol, one CLI process per session, and emits the
 * provider-bridge protocol with grammar-v3 deltas (spec 10). `stack/claude-code/README.md` maps
 * each stream-json message to what it becomes; SPEC-COVERAGE.md lists every one.
 */

/** Provider id the bridge is registered and recorded under. */
export const CLAUDE_CODE_PROVIDER_ID = "claude-code";

/**
 * The handshake capabilities: grammar `[3,3]`; sessions restore with `--resume`; approvals asked
 * of the runtime; a steer is taken into the running turn (the CLI hands a user line sent
 * mid-turn to the model with its next tool result, "absorbed_mid_turn"). No fork, archive,
 * rename or goals.
 */
export const CLAUDE_CODE_CAPABILITIES = nativeCapabilities({ fork: "none", approvalEnforcedBy: "runtime", steerMode: "inject" });

/** Options of {@link createClaudeCodeBridge}. */
export interface ClaudeCodeBridgeOptions {
  /** Random bytes for new session ids; defaults to `crypto.randomBytes`. */
  entropy?: Entropy;
  /** Timers (default the real ones). */
  scheduler?: Scheduler;
  /** Replaces how the CLI is spawned (tests). */
  spawn?: SessionDeps["spawn"];
}

/** The request handlers of one bridge process over its `sessions` (the standard table). */
export function claudeCodeRequestHandlers(ctx: BridgeContext, sessions: BridgeSessions): BridgeRequestHandlers {
  return sessionBridgeHandlers(ctx, sessions, CLAUDE_CODE_CAPABILITIES);
}

/**
 * Creates the bridge. The value holds no process state: each bridge context gets its own
 * sessions on first use.
 */
export function createClaudeCodeBridge(options: ClaudeCodeBridgeOptions = {}): ProviderBridge {
  const entropy = options.entropy ?? ((bytes: number) => randomBytes(bytes));
  const scheduler = options.scheduler ?? createRealScheduler();
  const depsOf = (ctx: BridgeContext): SessionDeps => ({
    io: ctx.io,
    log: (text) => ctx.log(text),
    inheritedEnv: ctx.env,
    scheduler,
    ...(options.spawn ? { spawn: options.spawn } : {}),
  });
  return defineSessionBridge({ capabilities: CLAUDE_CODE_CAPABILITIES, createSessions: (ctx) => createClaudeSessions(depsOf(ctx), entropy) });
}

/** The module export the bootstrap loads (PROVIDER_BRIDGE_EXPORT_NAME). */
export const experimental_providerBridge: ProviderBridge = createClaudeCodeBridge();
