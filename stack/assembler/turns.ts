/**
 * The two turn spaces (spec 10 §2.5): the unkeyed current turn ("cur") with its input queue, and
 * keyed turns vouched by `providerTurnId`, which never touch cur, the queue or finishTurn.
 */
import type { ThreadDeltaOf } from "../protocol/thread-delta.js";
import { buildEvent, scopeFor, turnScope } from "./events.js";
import { parentToolCallId, vouchedTurn, type DeltaContext } from "./context.js";
import { dropTurnScopedProgress } from "./progress-throttle.js";

/**
 * Opens an unkeyed turn: mints its id, makes it cur, emits `turn/started` and then one
 * `turn/input/accepted` per queued client request id, FIFO (spec 10 §2.5).
 */
export function openUnkeyedTurn(ctx: DeltaContext): string {
  const turnId = ctx.env.ids.nextTurnId();
  ctx.state.currentTurnId = turnId;
  ctx.emit(buildEvent("turn/started", turnScope(turnId)));
  const queued = ctx.state.pendingAccepted.splice(0);
  for (const clientRequestId of queued) {
    ctx.emit(buildEvent("turn/input/accepted", turnScope(turnId), { clientRequestId }));
  }
  return turnId;
}

/** Opens an unkeyed turn only when idle with input pending (spec 10 §2.5 case 2 and 3). */
export function claimTurn(ctx: DeltaContext): string | undefined {
  if (ctx.state.currentTurnId !== undefined || ctx.state.pendingAccepted.length === 0) return undefined;
  return openUnkeyedTurn(ctx);
}

/**
 * Ends the unkeyed turn (spec 10 §2.5): `last = cur ?? last`, cur cleared, open items that are
 * not thread-attached deleted silently, turn-scoped pending progress dropped, every command
 * snapshot cleared. The queue, the maps and the settled keys are kept.
 */
export function finishTurn(ctx: DeltaContext): void {
  const state = ctx.state;
  state.lastTurnId = state.currentTurnId ?? state.lastTurnId;
  state.currentTurnId = undefined;
  for (const [keyString, open] of state.openItems) {
    if (!open.threadAttached) state.openItems.delete(keyString);
  }
  dropTurnScopedProgress(state);
  state.commandSnapshots.clear();
}

/** `input.accepted`: keyed → the vouched turn; else the open unkeyed turn; else queued (spec 10 §2.5). */
export function handleInputAccepted(ctx: DeltaContext, delta: ThreadDeltaOf<"input.accepted">): void {
  const turnId = vouchedTurn(ctx, delta.providerTurnId) ?? ctx.state.currentTurnId;
  if (turnId === undefined) {
    ctx.state.pendingAccepted.push(delta.clientRequestId);
    return;
  }
  ctx.emit(buildEvent("turn/input/accepted", turnScope(turnId), { clientRequestId: delta.clientRequestId }));
}

/**
 * `turn.open`: keyed → always `turn/started` (with the parent tool call when `parentRef` is set);
 * unkeyed → opens cur unless one is open (spec 10 §2.5).
 */
export function handleTurnOpen(ctx: DeltaContext, delta: ThreadDeltaOf<"turn.open">): void {
  const keyed = vouchedTurn(ctx, delta.providerTurnId);
  if (keyed !== undefined) {
    const parent = parentToolCallId(ctx, delta.parentRef);
    ctx.emit(buildEvent("turn/started", turnScope(keyed), { parentToolCallId: parent }));
    return;
  }
  if (ctx.state.currentTurnId === undefined) openUnkeyedTurn(ctx);
}

/**
 * `turn.boundary`: keyed → always `turn/completed`, nothing else; unkeyed → completes cur, or a
 * turn claimed with `claimIfIdle` while idle with input pending, then runs finishTurn. With no
 * target nothing happens (spec 10 §2.5).
 */
export function handleTurnBoundary(ctx: DeltaContext, delta: ThreadDeltaOf<"turn.boundary">): void {
  const fields = { status: delta.status, error: delta.error, providerCheckpointId: delta.providerCheckpointId };
  const keyed = vouchedTurn(ctx, delta.providerTurnId);
  if (keyed !== undefined) {
    ctx.emit(buildEvent("turn/completed", turnScope(keyed), fields));
    return;
  }
  const target = ctx.state.currentTurnId ?? (delta.claimIfIdle ? claimTurn(ctx) : undefined);
  if (target === undefined) return;
  ctx.emit(buildEvent("turn/completed", turnScope(target), fields));
  finishTurn(ctx);
}

/**
 * `provider.error` (spec 10 §2.5): the turn is vouched, else none when `threadScoped`, else cur,
 * else one claimed via pending input, else thread scope. Always emits `provider/error` (the
 * delta's `category` is not forwarded); with `settlesTurn` and a turn, also emits
 * `turn/completed{failed}` and runs finishTurn — even for a keyed turn.
 */
export function handleProviderError(ctx: DeltaContext, delta: ThreadDeltaOf<"provider.error">): void {
  const turnId = vouchedTurn(ctx, delta.providerTurnId) ?? (delta.threadScoped ? undefined : (ctx.state.currentTurnId ?? claimTurn(ctx)));
  ctx.emit(
    buildEvent("provider/error", scopeFor(turnId), {
      message: delta.message,
      detail: delta.detail,
      willRetry: delta.willRetry,
      errorInfo: delta.errorInfo,
    }),
  );
  if (delta.settlesTurn && turnId !== undefined) {
    ctx.emit(buildEvent("turn/completed", turnScope(turnId), { status: "failed" }));
    finishTurn(ctx);
  }
}
