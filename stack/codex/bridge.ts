/**
 * The native Codex bridge: the provider-bridge protocol (v2, grammar v3) on one side,
 * `codex app-server` on the other (spec 60 "Codex"; 00-product.md `stack/`). Loaded by the
 * bootstrap as `dist/stack/codex/bridge.js` (`experimental_providerBridge`);
 * `createCodexBridge(options)` builds one with another scheduler or other timeouts.
 */
import { defineProviderBridge, type BridgeContext, type ProviderBridge } from "../bridge-kit/define.js";
import { runBridgeRequest, type BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { createRealScheduler, type Scheduler } from "../bridge-kit/scheduler.js";
import { PROVIDER_BRIDGE_PROTOCOL_VERSION, THREAD_DELTA_GRAMMAR_V3 } from "../protocol/handshake.js";
import { BRIDGE_REQUEST_METHODS as M } from "../protocol/methods.js";
import { CodexSessions, type CodexTimeouts } from "./sessions.js";

/** The provider id the Codex bridge is registered and recorded under. */
export const CODEX_PROVIDER_ID = "codex";

/**
 * The handshake capabilities, as Codex 0.171.0 supports them: sessions restore in a new process
 * (`thread/resume`), forks through a turn (`thread/fork {lastTurnId}`: the checkpoint is a Codex
 * turn id, sent on every turn boundary), a steer joins the running turn (`turn/steer`), and Codex
 * enforces its own approval policy (it asks; the runtime answers).
 */
export const CODEX_CAPABILITIES = {
  grammarVersions: [THREAD_DELTA_GRAMMAR_V3, THREAD_DELTA_GRAMMAR_V3] as [number, number],
  sessionRestore: true,
  threadArchive: false,
  threadRename: false,
  threadGoalClear: false,
  fork: "checkpoint",
  approvalEnforcedBy: "provider",
  steerMode: "inject",
} as const;

/** Default timeouts (ms): they only bound a hung app-server. */
export const CODEX_DEFAULT_TIMEOUTS: CodexTimeouts = { requestMs: 120_000, interruptMs: 10_000, killGraceMs: 2_000 };

/** Options of {@link createCodexBridge}. */
export interface CodexBridgeOptions {
  /** Timers and clock (default the real ones). */
  scheduler?: Scheduler;
  timeouts?: Partial<CodexTimeouts>;
}

/** The request handlers of one bridge process over its `sessions`. */
export function codexRequestHandlers(ctx: BridgeContext, sessions: CodexSessions): BridgeRequestHandlers {
  return {
    [M.initialize]: () => ({ protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION, capabilities: { ...CODEX_CAPABILITIES } }),
    [M.threadStart]: (_id, params) => sessions.start(params),
    [M.threadResume]: (_id, params) => sessions.resume(params),
    [M.threadFork]: (_id, params) => sessions.fork(params),
    [M.turnStart]: (id, params) => sessions.startTurn(params, (result) => ctx.io.sendResult(id, result)),
    [M.turnSteer]: (id, params) => sessions.steer(params, (result) => ctx.io.sendResult(id, result)),
    [M.threadStop]: (id, params) => sessions.stop(params, (result) => ctx.io.sendResult(id, result)),
    [M.threadDiscard]: () => ({ ok: true }),
  };
}

/** Creates a Codex bridge; each bridge context gets its own sessions on first use. */
export function createCodexBridge(options: CodexBridgeOptions = {}): ProviderBridge {
  const scheduler = options.scheduler ?? createRealScheduler();
  const timeouts = { ...CODEX_DEFAULT_TIMEOUTS, ...(options.timeouts ?? {}) };
  const byContext = new WeakMap<BridgeContext, { sessions: CodexSessions; handlers: BridgeRequestHandlers }>();
  const stateOf = (ctx: BridgeContext) => {
    let state = byContext.get(ctx);
    if (!state) {
      const sessions = new CodexSessions(ctx, scheduler, timeouts);
      state = { sessions, handlers: codexRequestHandlers(ctx, sessions) };
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

/** The module export the bootstrap loads. */
export const experimental_providerBridge: ProviderBridge = createCodexBridge();
