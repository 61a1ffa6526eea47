import { randomBytes } from "node:crypto";
import { sanitizeInheritedChildProcessEnv } from "../bridge-kit/child-env.js";
import { defineProviderBridge, type BridgeContext, type ProviderBridge } from "../bridge-kit/define.js";
import { recordProviderChildIo } from "../bridge-kit/record-process.js";
import { runBridgeRequest, type BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { PROVIDER_BRIDGE_PROTOCOL_VERSION, THREAD_DELTA_GRAMMAR_V3 } from "../protocol/handshake.js";
import { BRIDGE_REQUEST_METHODS as M } from "../protocol/methods.js";
import type { SessionDeps } from "./session.js";
import { createClaudeSessions, type ClaudeSessions, type Entropy } from "./sessions.js";

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
export const CLAUDE_CODE_CAPABILITIES = {
  grammarVersions: [THREAD_DELTA_GRAMMAR_V3, THREAD_DELTA_GRAMMAR_V3] as [number, number],
  sessionRestore: true,
  threadArchive: false,
  threadRename: false,
  threadGoalClear: false,
  fork: "none",
  approvalEnforcedBy: "runtime",
  steerMode: "inject",
} as const;

/** Options of {@link createClaudeCodeBridge}. */
export interface ClaudeCodeBridgeOptions {
  /** Random bytes for new session ids; defaults to `crypto.randomBytes`. */
  entropy?: Entropy;
  /** Replaces how the CLI is spawned (tests). */
  spawn?: SessionDeps["spawn"];
}

/** The request handlers of one bridge process over its `sessions`. */
export function claudeCodeRequestHandlers(ctx: BridgeContext, sessions: ClaudeSessions): BridgeRequestHandlers {
  return {
    [M.initialize]: () => ({ protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION, capabilities: { ...CLAUDE_CODE_CAPABILITIES } }),
    [M.threadStart]: (_id, params) => sessions.start(params),
    [M.threadResume]: (_id, params) => sessions.resume(params),
    [M.turnStart]: async (id, params) => {
      await sessions.startTurn(params, () => ctx.io.sendResult(id, { threadId: params.threadId }));
      return undefined;
    },
    [M.turnSteer]: (id, params) => {
      sessions.steer(params, () => ctx.io.sendResult(id, { threadId: params.threadId }));
      return undefined;
    },
    [M.threadStop]: async (_id, params) => {
      await sessions.stop(params.threadId, params.intent);
      return { ok: true };
    },
    [M.threadDiscard]: () => ({ ok: true }),
  };
}

/**
 * Creates the bridge. The value holds no process state: each bridge context gets its own
 * sessions on first use.
 */
export function createClaudeCodeBridge(options: ClaudeCodeBridgeOptions = {}): ProviderBridge {
  const entropy = options.entropy ?? ((bytes: number) => randomBytes(bytes));
  const byContext = new WeakMap<BridgeContext, { sessions: ClaudeSessions; handlers: BridgeRequestHandlers }>();
  const stateOf = (ctx: BridgeContext) => {
    let state = byContext.get(ctx);
    if (!state) {
      const deps: SessionDeps = {
        io: ctx.io,
        log: (text) => ctx.log(text),
        env: sanitizeInheritedChildProcessEnv({ env: ctx.env }),
        recordChild: (child, threadId) => recordProviderChildIo(child, { threadId }),
        ...(options.spawn ? { spawn: options.spawn } : {}),
      };
      const sessions = createClaudeSessions(deps, entropy);
      state = { sessions, handlers: claudeCodeRequestHandlers(ctx, sessions) };
      byContext.set(ctx, state);
    }
    return state;
  };
  return defineProviderBridge({
    handleLine: async (_line, ctx, message) => {
      await runBridgeRequest(ctx.io, message, stateOf(ctx).handlers);
    },
    onClose: async (ctx) => {
      await byContext.get(ctx)?.sessions.closeAll();
      byContext.delete(ctx);
    },
  });
}

/** The module export the bootstrap loads (PROVIDER_BRIDGE_EXPORT_NAME). */
export const experimental_providerBridge: ProviderBridge = createClaudeCodeBridge();
