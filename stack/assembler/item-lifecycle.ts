/**
 * `item.open` and `item.close` (spec 10 §2.7): opening, replacing and reopening items, close
 * dedup, dual-settle via close-echo, and terminal items built from the close's shape.
 */
import type { ThreadDeltaKey, ThreadDeltaOf } from "../protocol/thread-delta.js";
import { attachedTurn, fallBackOrDrop, itemIdFor, keyStringOf, parentToolCallId, turnOrFallBack, type DeltaContext } from "./context.js";
import { buildEvent, threadScope, turnScope } from "./events.js";
import { buildItem, closeEcho, closeFieldsOf, isThreadAttachedShape, itemMatchesShape, withPresentation } from "./items.js";
import { forgetProgressKey, seedProgressWindow } from "./progress-throttle.js";
import type { ThreadState } from "./thread-state.js";

/**
 * A new tool (or any non-compaction) open detaches anonymous assistant streams: open agentMessage
 * items without `providerItemId` under the same `parentRef` are dropped silently (spec 10 §2.7 step 2).
 */
function detachAnonymousMessages(state: ThreadState, key: ThreadDeltaKey): void {
  for (const [keyString, open] of state.openItems) {
    if (open.item.type === "agentMessage" && open.key.providerItemId === undefined && open.key.parentRef === key.parentRef) {
      state.openItems.delete(keyString);
    }
  }
}

/**
 * `item.open` (spec 10 §2.6–2.7): turn = vouched, else cur ?? last with `attach:"currentOrLast"`,
 * else cur; no turn → fallback or drop. Reopens reuse the mapped id; the new item replaces
 * whatever was held under the key; the progress window is seeded; `item/started` is emitted.
 */
export function handleItemOpen(ctx: DeltaContext, delta: ThreadDeltaOf<"item.open">): void {
  const { state } = ctx;
  const turnId = attachedTurn(ctx, delta.providerTurnId, delta.attach);
  if (turnId === undefined) {
    fallBackOrDrop(ctx, delta);
    return;
  }
  const keyString = keyStringOf(delta.key);
  state.settledItemKeys.delete(keyString);
  if (delta.item.type !== "compaction") detachAnonymousMessages(state, delta.key);
  const providerItemId = delta.key.providerItemId;
  const id = itemIdFor(ctx, providerItemId);
  const parent = parentToolCallId(ctx, delta.key.parentRef);
  const item = buildItem(delta.item, id, { parentToolCallId: parent, presentation: delta.presentation });
  state.openItems.set(keyString, {
    bbItemId: id,
    key: delta.key,
    item,
    threadAttached: isThreadAttachedShape(delta.item),
    text: "",
    summaryText: "",
  });
  seedProgressWindow(state, keyString, ctx.now);
  ctx.emit(buildEvent("item/started", turnScope(turnId), { item }));
}

/**
 * `item.close` (spec 10 §2.6–2.7): thread-attached shapes need no turn, others use vouched else
 * cur (no turn → fallback or drop). Settled provider keys are deduped; an open item of another
 * type is first settled by close-echo (dual-settle, same id); then the terminal item is built
 * from the close's shape, the key is cleaned up and settled, and the completion is emitted
 * (thread-scoped for backgroundTask and background delegation).
 */
export function handleItemClose(ctx: DeltaContext, delta: ThreadDeltaOf<"item.close">): void {
  const { state } = ctx;
  const threadAttached = isThreadAttachedShape(delta.item);
  let turnId: string | undefined;
  if (!threadAttached) {
    turnId = turnOrFallBack(ctx, delta);
    if (turnId === undefined) return;
  }
  const keyString = keyStringOf(delta.key);
  const providerItemId = delta.key.providerItemId;
  if (providerItemId !== undefined && state.settledItemKeys.has(keyString)) return;

  const open = state.openItems.get(keyString);
  if (open && turnId !== undefined && !itemMatchesShape(open.item, delta.item)) {
    const echo = closeEcho(open.item, {
      status: delta.status,
      resultText: delta.resultText,
      exitCode: delta.exitCode,
      aggregatedOutput: delta.aggregatedOutput,
    });
    ctx.emit(buildEvent("item/completed", turnScope(turnId), { item: withPresentation(echo, open.item.presentation) }));
  }

  const id = itemIdFor(ctx, providerItemId, open?.bbItemId);
  const parent = parentToolCallId(ctx, delta.key.parentRef) ?? open?.item.parentToolCallId;
  const presentation = delta.presentation ?? open?.item.presentation;
  const item = buildItem(delta.item, id, { parentToolCallId: parent, presentation }, closeFieldsOf(delta, open?.item));

  state.openItems.delete(keyString);
  state.commandSnapshots.delete(keyString);
  forgetProgressKey(state, keyString);
  if (providerItemId !== undefined) state.settledItemKeys.add(keyString);

  if (delta.item.type === "backgroundTask") {
    ctx.emit(buildEvent("item/backgroundTask/completed", threadScope(), { item }));
  } else if (delta.item.type === "delegation" && delta.item.background) {
    ctx.emit(buildEvent("item/delegation/completed", threadScope(), { item }));
  } else {
    ctx.emit(buildEvent("item/completed", turnScope(turnId as string), { item }));
  }
}
