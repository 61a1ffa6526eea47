/**
 * `session.ended` (spec 10 §2.12). `session.reset` is handled by the assemble loop, because it
 * deletes the thread state rather than acting on it.
 */
import { claimTurn, finishTurn } from "./turns.js";
import type { DeltaContext } from "./context.js";
import { buildEvent, turnScope } from "./events.js";
import { closeEcho, isTextItem, settleAccumulated } from "./items.js";

/**
 * Ends the unkeyed turn: target = cur, or a turn claimed via pending input; with none nothing
 * happens. Each open item that is not thread-attached is settled in insertion order — text
 * items with streamed text keep what they have, everything else is close-echoed `interrupted`
 * — all scoped to the target turn; then `turn/completed{interrupted}` and finishTurn.
 */
export function handleSessionEnded(ctx: DeltaContext): void {
  const { state } = ctx;
  const target = state.currentTurnId ?? claimTurn(ctx);
  if (target === undefined) return;
  for (const [keyString, open] of [...state.openItems]) {
    if (open.threadAttached) continue;
    state.openItems.delete(keyString);
    const streamed = open.text !== "" || open.summaryText !== "";
    const item = streamed && isTextItem(open.item) ? settleAccumulated(open.item, open) : closeEcho(open.item, { status: "interrupted" });
    ctx.emit(buildEvent("item/completed", turnScope(target), { item }));
  }
  ctx.emit(buildEvent("turn/completed", turnScope(target), { status: "interrupted" }));
  finishTurn(ctx);
}
