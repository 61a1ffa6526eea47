/**
 * The delta assembler: grammar-v3 `thread/delta` batches in, canonical thread events out
 * (spec 10 §2). This module holds the `assemble` loop (spec 10 §2.13) and the dispatch by kind;
 * each concern lives in its own module.
 */
import { parseThreadDeltaParams, type ThreadDelta } from "../protocol/thread-delta.js";
import type { ThreadEvent } from "../protocol/thread-events.js";
import { keyStringOf, type AssemblerEnv, type DeltaContext } from "./context.js";
import { createIdMinter } from "./ids.js";
import { handleItemClose, handleItemOpen } from "./item-lifecycle.js";
import { handleItemProgress } from "./item-progress.js";
import { MAX_ASSEMBLER_THREADS } from "./limits.js";
import { resolveDeltaAssemblerOptions, type DeltaAssemblerOptions } from "./options.js";
import { handleOutputDelta, handleOutputSnapshot } from "./output.js";
import { flushElapsedProgress } from "./progress-throttle.js";
import { handleSessionEnded } from "./session.js";
import { acceptEvent, flushAllText, flushElapsedText, type TextSink } from "./text-batcher.js";
import { handleTextClose, handleTextDelta } from "./text-streams.js";
import {
  handleContextCleared,
  handleContextCompacted,
  handleContextWindow,
  handleExtensionState,
  handleModelFallback,
  handleRateLimits,
  handleThreadIdentity,
  handleThreadName,
  handleThreadStarted,
  handleTurnDiff,
  handleUnhandled,
  handleUsage,
  handleWarning,
} from "./thread-deltas.js";
import { createThreadRegistry, type ThreadState } from "./thread-state.js";
import { handleInputAccepted, handleProviderError, handleTurnBoundary, handleTurnOpen } from "./turns.js";

/** A delta assembler instance (spec 10 §2.1). Every method is scoped by the runtime's thread id. */
export interface DeltaAssembler {
  /**
   * Validates one `thread/delta` params object and returns the events it produces, in order.
   * Events carry `threadId: ""` (the runtime fills it).
   * @throws InvalidThreadDeltaError when the params or any delta is invalid; no state changes then.
   */
  assemble(params: { threadId: string; deltas: readonly unknown[] }): ThreadEvent[];
  /** The bb item id mapped from a provider item id, if known. */
  getBbItemId(threadId: string, providerItemId: string): string | undefined;
  /** The provider item id mapped to a bb item id, if known. */
  getProviderItemId(threadId: string, bbItemId: string): string | undefined;
  /** The bb turn id mapped from a provider turn id, if known. */
  getBbTurnId(threadId: string, providerTurnId: string): string | undefined;
  /** The provider turn id mapped to a bb turn id, if known. */
  getProviderTurnId(threadId: string, bbTurnId: string): string | undefined;
  /** The open unkeyed turn ("cur") only; keyed turns are not reported. */
  getOpenTurnId(threadId: string): string | undefined;
}

/** Kinds that flush buffered text before they are handled (spec 10 §2.11, §2.13). */
const FLUSHING_KINDS: ReadonlySet<ThreadDelta["kind"]> = new Set(["item.textClose", "item.close", "session.ended"]);

function dispatch(ctx: DeltaContext, delta: ThreadDelta): void {
  switch (delta.kind) {
    case "input.accepted":
      return handleInputAccepted(ctx, delta);
    case "turn.open":
      return handleTurnOpen(ctx, delta);
    case "turn.boundary":
      return handleTurnBoundary(ctx, delta);
    case "item.open":
      return handleItemOpen(ctx, delta);
    case "item.close":
      return handleItemClose(ctx, delta);
    case "item.progress":
      return handleItemProgress(ctx, delta);
    case "item.textDelta":
      return handleTextDelta(ctx, delta);
    case "item.textClose":
      return handleTextClose(ctx, delta);
    case "item.outputDelta":
      return handleOutputDelta(ctx, delta);
    case "command.outputSnapshot":
      return handleOutputSnapshot(ctx, delta);
    case "usage":
      return handleUsage(ctx, delta);
    case "contextWindow":
      return handleContextWindow(ctx, delta);
    case "context.compacted":
      return handleContextCompacted(ctx, delta);
    case "context.cleared":
      return handleContextCleared(ctx);
    case "thread.started":
      return handleThreadStarted(ctx);
    case "session.ended":
      return handleSessionEnded(ctx);
    case "session.reset":
      // Handled by the assemble loop: it deletes the state instead of acting on it.
      return;
    case "turn.diff":
      return handleTurnDiff(ctx, delta);
    case "thread.identity":
      return handleThreadIdentity(ctx, delta);
    case "thread.name":
      return handleThreadName(ctx, delta);
    case "extension.state":
      return handleExtensionState(ctx, delta);
    case "provider.rateLimits":
      return handleRateLimits(ctx, delta);
    case "provider.error":
      return handleProviderError(ctx, delta);
    case "provider.modelFallback":
      return handleModelFallback(ctx, delta);
    case "provider.warning":
      return handleWarning(ctx, delta);
    case "unhandled":
      return handleUnhandled(ctx, delta);
  }
}

/**
 * Creates a delta assembler (spec 10 §2.1). Id counters are per instance, shared by all
 * threads and never reset; thread states are kept in LRU order (256 threads, idle ones evicted).
 * @throws DeltaAssemblerOptionsError on an empty provider id or prefix, or a negative window.
 */
export function createDeltaAssembler(options: DeltaAssemblerOptions): DeltaAssembler {
  const resolved = resolveDeltaAssemblerOptions(options);
  const env: AssemblerEnv = {
    providerId: resolved.providerId,
    ids: createIdMinter(resolved.idPrefix),
    progressThrottleMs: resolved.progressThrottleMs,
    textDeltaFlushMs: resolved.textDeltaFlushMs,
  };
  const threads = createThreadRegistry(MAX_ASSEMBLER_THREADS);

  const contextFor = (state: ThreadState, now: number, out: ThreadEvent[]): { ctx: DeltaContext; sink: TextSink } => {
    const sink: TextSink = { state, windowMs: env.textDeltaFlushMs, now, out };
    return { ctx: { env, state, now, emit: (event) => acceptEvent(sink, event) }, sink };
  };

  return {
    assemble(params) {
      const { threadId, deltas } = parseThreadDeltaParams(params);
      const now = resolved.now();
      const out: ThreadEvent[] = [];

      const existing = threads.peek(threadId);
      if (existing && deltas[0]?.kind !== "session.reset") {
        const { ctx, sink } = contextFor(existing, now, out);
        flushElapsedText(sink);
        const progressKeys = new Set<string>();
        for (const delta of deltas) if (delta.kind === "item.progress") progressKeys.add(keyStringOf(delta.key));
        flushElapsedProgress(ctx, progressKeys);
      }

      for (const delta of deltas) {
        if (delta.kind === "session.reset") {
          const state = threads.peek(threadId);
          if (state) {
            flushAllText(contextFor(state, now, out).sink);
            threads.delete(threadId);
          }
          continue;
        }
        const { ctx, sink } = contextFor(threads.stateFor(threadId), now, out);
        if (FLUSHING_KINDS.has(delta.kind)) flushAllText(sink);
        dispatch(ctx, delta);
      }
      return out;
    },
    getBbItemId: (threadId, providerItemId) => threads.peek(threadId)?.itemIds.bbId(providerItemId),
    getProviderItemId: (threadId, bbItemId) => threads.peek(threadId)?.itemIds.providerId(bbItemId),
    getBbTurnId: (threadId, providerTurnId) => threads.peek(threadId)?.turnIds.bbId(providerTurnId),
    getProviderTurnId: (threadId, bbTurnId) => threads.peek(threadId)?.turnIds.providerId(bbTurnId),
    getOpenTurnId: (threadId) => threads.peek(threadId)?.currentTurnId,
  };
}
