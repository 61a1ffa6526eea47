/**
 * `item.textDelta` and `item.textClose` (spec 10 §2.8): synthesized starts, accumulation per
 * channel, and settlement of text items.
 */
import type { TextChannel, ThreadDeltaOf } from "../protocol/thread-delta.js";
import type { ThreadEventType } from "../protocol/thread-events.js";
import { itemIdFor, keyStringOf, mappedItemId, mintItemId, parentToolCallId, turnOrFallBack, type DeltaContext } from "./context.js";
import { buildEvent, turnScope } from "./events.js";
import { freshTextItem, isTextItem, settleTextItem, synthesizedTextItem } from "./items.js";

/** The delta event each text channel emits (spec 10 §2.2). */
export const TEXT_DELTA_EVENT_TYPES: Readonly<Record<TextChannel, ThreadEventType>> = {
  agentMessage: "item/agentMessage/delta",
  reasoningText: "item/reasoning/textDelta",
  reasoningSummary: "item/reasoning/summaryTextDelta",
  plan: "item/plan/delta",
};

/**
 * `item.textDelta`: turn = vouched else cur (no turn → fallback or drop). The id is the open
 * item's, else the mapped one; with neither, an id is minted (registered when there is a
 * provider id) and a started text item without presentation is synthesized. Text accumulates on
 * the open item (`reasoningSummary` separately); a settled provider id gets no accumulation but
 * still a delta under its mapped id.
 */
export function handleTextDelta(ctx: DeltaContext, delta: ThreadDeltaOf<"item.textDelta">): void {
  const { state } = ctx;
  const turnId = turnOrFallBack(ctx, delta);
  if (turnId === undefined) return;
  const keyString = keyStringOf(delta.key);
  const providerItemId = delta.key.providerItemId;
  const parent = parentToolCallId(ctx, delta.key.parentRef);
  let open = state.openItems.get(keyString);
  let id = open?.bbItemId ?? mappedItemId(ctx, providerItemId);
  if (id === undefined) {
    id = mintItemId(ctx, providerItemId);
    const item = synthesizedTextItem(delta.channel, id, parent);
    open = { bbItemId: id, key: delta.key, item, threadAttached: false, text: "", summaryText: "" };
    state.openItems.set(keyString, open);
    ctx.emit(buildEvent("item/started", turnScope(turnId), { item }));
  }
  if (open) {
    if (delta.channel === "reasoningSummary") open.summaryText += delta.text;
    else open.text += delta.text;
  }
  ctx.emit(
    buildEvent(TEXT_DELTA_EVENT_TYPES[delta.channel], turnScope(turnId), {
      itemId: id,
      delta: delta.text,
      parentToolCallId: parent ?? open?.item.parentToolCallId,
    }),
  );
}

/**
 * `item.textClose` (spec 10 §2.8): dedups settled provider ids, always releases the key, then
 * settles with `text ?? accumulated` — nothing when that is empty, or whitespace-only without
 * provider-final text. A non-text or missing open item yields a fresh channel item. Provider ids
 * are registered and settled, and `item/completed` is emitted.
 */
export function handleTextClose(ctx: DeltaContext, delta: ThreadDeltaOf<"item.textClose">): void {
  const { state } = ctx;
  const turnId = turnOrFallBack(ctx, delta);
  if (turnId === undefined) return;
  const keyString = keyStringOf(delta.key);
  const providerItemId = delta.key.providerItemId;
  if (providerItemId !== undefined && state.settledItemKeys.has(keyString)) return;
  const open = state.openItems.get(keyString);
  state.openItems.delete(keyString);

  const accumulated = open === undefined ? undefined : delta.channel === "reasoningSummary" ? open.summaryText : open.text;
  const final = delta.text ?? accumulated;
  if (final === undefined || final === "") return;
  if (delta.text === undefined && final.trim() === "") return;

  const item =
    open && isTextItem(open.item)
      ? settleTextItem(open.item, delta.channel, final, open)
      : freshTextItem(delta.channel, itemIdFor(ctx, providerItemId, open?.bbItemId), final, parentToolCallId(ctx, delta.key.parentRef) ?? open?.item.parentToolCallId);
  if (providerItemId !== undefined) {
    state.itemIds.register(providerItemId, item.id);
    state.settledItemKeys.add(keyString);
  }
  ctx.emit(buildEvent("item/completed", turnScope(turnId), { item }));
}
