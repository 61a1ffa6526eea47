import { randomBytes } from "node:crypto";
import { defineProviderBridge, type BridgeContext, type ProviderBridge } from "../bridge-kit/define.js";
import { runBridgeRequest, type BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { PROVIDER_BRIDGE_PROTOCOL_VERSION, THREAD_DELTA_GRAMMAR_V3 } from "../protocol/handshake.js";
import { BRIDGE_REQUEST_METHODS as M } from "../protocol/methods.js";
import { createEchoSessions, type EchoSessions, type Entropy } from "./sessions.js";

/**
 * The echo bridge: the smallest complete provider bridge (00-product.md layout `echo/`;
 * seed 002 "examples/echo-provider"). It answers every prompt by streaming the prompt back
 * as one agent message; `/clear` is a zero-work prompt and `/hold <text>` keeps its turn
 * open until `thread/stop` or `turn/steer` (see ./answer.ts).
 */

/** The echo's handshake capabilities (seed 002 example): grammar `[3,3]`, restorable sessions. */
export const ECHO_CAPABILITIES = {
  grammarVersions: [THREAD_DELTA_GRAMMAR_V3, THREAD_DELTA_GRAMMAR_V3] as [number, number],
  sessionRestore: true,
  threadArchive: false,
  threadRename: false,
  threadGoalClear: false,
  fork: "none",
  approvalEnforcedBy: "runtime",
  steerMode: "queue",
} as const;

/** Provider id the echo is registered and recorded under. */
export const ECHO_PROVIDER_ID = "echo";

/** Options of {@link createEchoBridge}. */
export interface EchoBridgeOptions {
  /** Random bytes for `providerThreadId`s; defaults to `crypto.randomBytes`. */
  entropy?: Entropy;
}

/** The request handlers of one echo bridge process over its `sessions`. */
export function echoRequestHandlers(ctx: BridgeContext, sessions: EchoSessions): BridgeRequestHandlers {
  return {
    [M.initialize]: () => ({ protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION, capabilities: { ...ECHO_CAPABILITIES } }),
    [M.threadStart]: (_id, params) => sessions.start(params),
    [M.threadResume]: (_id, params) => sessions.resume(params),
    [M.turnStart]: (id, params) => void sessions.startTurn(params, (result) => ctx.io.sendResult(id, result)),
    [M.turnSteer]: (id, params) => void sessions.steer(params, (result) => ctx.io.sendResult(id, result)),
    [M.threadStop]: (id, params) => void sessions.stop(params, (result) => ctx.io.sendResult(id, result)),
    [M.threadDiscard]: () => ({ ok: true }),
  };
}

/**
 * Creates an echo bridge. The bridge value holds no process state: each bridge context
 * (one per process, or per in-process instance) gets its own sessions on first use.
 */
export function createEchoBridge(options: EchoBridgeOptions = {}): ProviderBridge {
  const entropy = options.entropy ?? ((bytes: number) => randomBytes(bytes));
  const byContext = new WeakMap<BridgeContext, { sessions: EchoSessions; handlers: BridgeRequestHandlers }>();
  const stateOf = (ctx: BridgeContext) => {
    let state = byContext.get(ctx);
    if (!state) {
      const sessions = createEchoSessions(ctx.io, entropy);
      state = { sessions, handlers: echoRequestHandlers(ctx, sessions) };
      byContext.set(ctx, state);
    }
    return state;
  };
  return defineProviderBridge({
    handleLine: async (_line, ctx, message) => {
      await runBridgeRequest(ctx.io, message, stateOf(ctx).handlers);
    },
    onClose: (ctx) => {
      byContext.get(ctx)?.sessions.closeAll();
      byContext.delete(ctx);
    },
  });
}

/** The module export the bootstrap loads (PROVIDER_BRIDGE_EXPORT_NAME). */
export const experimental_providerBridge: ProviderBridge = createEchoBridge();
