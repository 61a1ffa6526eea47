import { randomBytes } from "node:crypto";
import type { BridgeContext, ProviderBridge } from "../bridge-kit/define.js";
import type { BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { defineSessionBridge, nativeCapabilities, sessionBridgeHandlers } from "../bridge-kit/session-bridge.js";
import { createEchoSessions, type EchoSessions, type Entropy } from "./sessions.js";

/**
 * The echo bridge: the smallest complete provider bridge (docs/design/00-product.md layout `echo/`;
 * spec 02 §8). It answers every prompt by streaming the prompt back
 * as one agent message; `/clear` is a zero-work prompt and `/hold <text>` keeps its turn
 * open until `thread/stop` or `turn/steer` (see ./answer.ts).
 */

/** The echo's handshake capabilities (spec 02 §8): grammar `[3,3]`, restorable sessions. */
export const ECHO_CAPABILITIES = nativeCapabilities({ fork: "none", approvalEnforcedBy: "runtime", steerMode: "queue" });

/** Provider id the echo is registered and recorded under. */
export const ECHO_PROVIDER_ID = "echo";

/** Options of {@link createEchoBridge}. */
export interface EchoBridgeOptions {
  /** Random bytes for `providerThreadId`s; defaults to `crypto.randomBytes`. */
  entropy?: Entropy;
}

/** The request handlers of one echo bridge process over its `sessions` (bridge-kit's standard table). */
export function echoRequestHandlers(ctx: BridgeContext, sessions: EchoSessions): BridgeRequestHandlers {
  return sessionBridgeHandlers(ctx, sessions, ECHO_CAPABILITIES);
}

/**
 * Creates an echo bridge. The bridge value holds no process state: each bridge context
 * (one per process, or per in-process instance) gets its own sessions on first use.
 */
export function createEchoBridge(options: EchoBridgeOptions = {}): ProviderBridge {
  const entropy = options.entropy ?? ((bytes: number) => randomBytes(bytes));
  return defineSessionBridge({ capabilities: ECHO_CAPABILITIES, createSessions: (ctx) => createEchoSessions(ctx.io, entropy) });
}

/** The module export the bootstrap loads (PROVIDER_BRIDGE_EXPORT_NAME). */
export const experimental_providerBridge: ProviderBridge = createEchoBridge();
