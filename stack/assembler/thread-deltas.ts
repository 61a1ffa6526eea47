/**
 * Deltas that carry no item: usage, context window, compaction, diffs, thread metadata,
 * provider notices and unhandled raw events, each scoped per spec 10 §2.6.
 */
import type { ThreadDeltaOf } from "../protocol/thread-delta.js";
import { attachedTurn, fallBackOrDrop, parentToolCallId, vouchedTurn, type DeltaContext } from "./context.js";
import { buildEvent, buildProviderUnhandled, buildThreadIdentity, buildThreadStarted, scopeFor, threadScope, turnScope } from "./events.js";

/** `usage` → `thread/tokenUsage/updated` in vouched, else cur ?? last; dropped silently otherwise. */
export function handleUsage(ctx: DeltaContext, delta: ThreadDeltaOf<"usage">): void {
  const turnId = vouchedTurn(ctx, delta.providerTurnId) ?? ctx.state.currentTurnId ?? ctx.state.lastTurnId;
  if (turnId === undefined) return;
  ctx.emit(
    buildEvent("thread/tokenUsage/updated", turnScope(turnId), {
      tokenUsage: { total: delta.total, last: delta.last, modelContextWindow: delta.modelContextWindow },
    }),
  );
}

/** `contextWindow` → `thread/contextWindowUsage/updated` in vouched; `open` → cur; `currentOrLast` → cur ?? last; else thread scope. */
export function handleContextWindow(ctx: DeltaContext, delta: ThreadDeltaOf<"contextWindow">): void {
  const turnId = attachedTurn(ctx, delta.providerTurnId, delta.attach);
  ctx.emit(
    buildEvent("thread/contextWindowUsage/updated", scopeFor(turnId), {
      contextWindowUsage: { usedTokens: delta.used, modelContextWindow: delta.size ?? null, estimated: delta.estimated },
    }),
  );
}

/** `context.compacted` → `thread/compacted` in vouched, else cur ?? last; else fallback or drop. */
export function handleContextCompacted(ctx: DeltaContext, delta: ThreadDeltaOf<"context.compacted">): void {
  const turnId = vouchedTurn(ctx, delta.providerTurnId) ?? ctx.state.currentTurnId ?? ctx.state.lastTurnId;
  if (turnId === undefined) {
    fallBackOrDrop(ctx, delta);
    return;
  }
  ctx.emit(buildEvent("thread/compacted", turnScope(turnId)));
}

/** `context.cleared` → `thread/context/cleared` in cur ?? last; dropped otherwise. */
export function handleContextCleared(ctx: DeltaContext): void {
  const turnId = ctx.state.currentTurnId ?? ctx.state.lastTurnId;
  if (turnId === undefined) return;
  ctx.emit(buildEvent("thread/context/cleared", turnScope(turnId)));
}

/** `turn.diff` → `turn/diff/updated` in vouched, else cur; dropped otherwise. */
export function handleTurnDiff(ctx: DeltaContext, delta: ThreadDeltaOf<"turn.diff">): void {
  const turnId = vouchedTurn(ctx, delta.providerTurnId) ?? ctx.state.currentTurnId;
  if (turnId === undefined) return;
  ctx.emit(buildEvent("turn/diff/updated", turnScope(turnId), { diff: delta.diff }));
}

/** `thread.started` → `thread/started` (no `providerThreadId` key). */
export function handleThreadStarted(ctx: DeltaContext): void {
  ctx.emit(buildThreadStarted());
}

/** `thread.identity` → `thread/identity` with the real `providerThreadId`. */
export function handleThreadIdentity(ctx: DeltaContext, delta: ThreadDeltaOf<"thread.identity">): void {
  ctx.emit(buildThreadIdentity(delta.providerThreadId));
}

/** `thread.name` → `thread/name/updated{threadName}`. */
export function handleThreadName(ctx: DeltaContext, delta: ThreadDeltaOf<"thread.name">): void {
  ctx.emit(buildEvent("thread/name/updated", threadScope(), { threadName: delta.name }));
}

/** `extension.state` → `thread/extensionState/updated{kind, payload}`. */
export function handleExtensionState(ctx: DeltaContext, delta: ThreadDeltaOf<"extension.state">): void {
  ctx.emit(buildEvent("thread/extensionState/updated", threadScope(), { kind: delta.extensionKind, payload: delta.payload }));
}

/** `provider.rateLimits` → `provider/rateLimits/updated{rateLimits}`. */
export function handleRateLimits(ctx: DeltaContext, delta: ThreadDeltaOf<"provider.rateLimits">): void {
  ctx.emit(buildEvent("provider/rateLimits/updated", threadScope(), { rateLimits: delta.rateLimits }));
}

/** `provider.modelFallback` → `provider/modelFallback` in cur ?? last, else thread scope. */
export function handleModelFallback(ctx: DeltaContext, delta: ThreadDeltaOf<"provider.modelFallback">): void {
  ctx.emit(
    buildEvent("provider/modelFallback", scopeFor(ctx.state.currentTurnId ?? ctx.state.lastTurnId), {
      originalModel: delta.originalModel,
      fallbackModel: delta.fallbackModel,
      reason: delta.reason,
      message: delta.message,
    }),
  );
}

/** `provider.warning` → `provider/warning` (category defaults to `general`) in cur when `vouchedTurn`, else thread scope. */
export function handleWarning(ctx: DeltaContext, delta: ThreadDeltaOf<"provider.warning">): void {
  const turnId = delta.vouchedTurn ? ctx.state.currentTurnId : undefined;
  ctx.emit(
    buildEvent("provider/warning", scopeFor(turnId), {
      category: delta.category ?? "general",
      summary: delta.summary,
      details: delta.details,
    }),
  );
}

/**
 * `unhandled` → `provider/unhandled`: dropped when `onlyIfNoTurn` and cur exists; otherwise in
 * vouched, else cur when `vouchedTurn`, else thread scope; the parent is minted from `parentRef`.
 */
export function handleUnhandled(ctx: DeltaContext, delta: ThreadDeltaOf<"unhandled">): void {
  if (delta.onlyIfNoTurn && ctx.state.currentTurnId !== undefined) return;
  const turnId = vouchedTurn(ctx, delta.providerTurnId) ?? (delta.vouchedTurn ? ctx.state.currentTurnId : undefined);
  const parent = parentToolCallId(ctx, delta.parentRef);
  ctx.emit(buildProviderUnhandled(ctx.env.providerId, delta.rawType, delta.raw, scopeFor(turnId), parent));
}
