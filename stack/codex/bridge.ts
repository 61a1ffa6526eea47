/**
 * The native Codex bridge: the provider-bridge protocol (v2, grammar v3) on one side,
 * `codex app-server` on the other (spec 60 "Codex"; docs/design/00-product.md `stack/`). Loaded by the
 * bootstrap as `dist/stack/codex/bridge.js` (`experimental_providerBridge`);
 * `createCodexBridge(options)` builds one with another scheduler or other timeouts.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { BridgeContext, ProviderBridge } from "../bridge-kit/define.js";
import type { BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { createRealScheduler, type Scheduler } from "../bridge-kit/scheduler.js";
import { defineSessionBridge, nativeCapabilities, sessionBridgeHandlers } from "../bridge-kit/session-bridge.js";
import { CodexSessions, type CodexTimeouts } from "./sessions.js";

/** The provider id the Codex bridge is registered and recorded under. */
export const CODEX_PROVIDER_ID = "codex";

/**
 * The handshake capabilities, as Codex 0.171.0 supports them: sessions restore in a new process
 * (`thread/resume`), forks through a turn (`thread/fork {lastTurnId}`: the checkpoint is a Codex
 * turn id, sent on every turn boundary), a steer joins the running turn (`turn/steer`), and Codex
 * enforces its own approval policy (it asks; the runtime answers).
 */
export const CODEX_CAPABILITIES = nativeCapabilities({ fork: "checkpoint", approvalEnforcedBy: "provider", steerMode: "inject" });

/** Default timeouts (ms): they only bound a hung app-server. */
export const CODEX_DEFAULT_TIMEOUTS: CodexTimeouts = { requestMs: 120_000, interruptMs: 10_000, killGraceMs: 2_000 };

/** Options of {@link createCodexBridge}. */
export interface CodexBridgeOptions {
  /** Timers and clock (default the real ones). */
  scheduler?: Scheduler;
  timeouts?: Partial<CodexTimeouts>;
  /** Replaces how the app-server is spawned (tests); default `child_process.spawn`. */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
}

/** The request handlers of one bridge process over its `sessions` (the standard table, with `thread/fork`). */
export function codexRequestHandlers(ctx: BridgeContext, sessions: CodexSessions): BridgeRequestHandlers {
  return sessionBridgeHandlers(ctx, sessions, CODEX_CAPABILITIES);
}

/** Creates a Codex bridge; each bridge context gets its own sessions on first use. */
export function createCodexBridge(options: CodexBridgeOptions = {}): ProviderBridge {
  const scheduler = options.scheduler ?? createRealScheduler();
  const timeouts = { ...CODEX_DEFAULT_TIMEOUTS, ...(options.timeouts ?? {}) };
  return defineSessionBridge({ capabilities: CODEX_CAPABILITIES, createSessions: (ctx) => new CodexSessions(ctx, scheduler, timeouts, options.spawn) });
}

/** The module export the bootstrap loads. */
export const experimental_providerBridge: ProviderBridge = createCodexBridge();
