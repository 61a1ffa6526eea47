/**
 * `item.progress` (spec 10 §2.7): background-task and delegation snapshots (thread scope) and
 * tool-call progress messages (turn scope), all through the progress throttle (spec 10 §2.10).
 */
import type { ThreadDeltaOf } from "../protocol/thread-delta.js";
import type { ThreadEvent } from "../protocol/thread-events.js";
import { keyStringOf, mappedItemId, parentToolCallId, turnOrFallBack, type DeltaContext } from "./context.js";
import { buildEvent, definedFields, threadScope, turnScope } from "./events.js";
import { buildItem } from "./items.js";
import { throttleProgress } from "./progress-throttle.js";

/**
 * Handles one `item.progress`. A snapshot needs no turn; a message uses vouched else cur (no
 * turn → fallback or drop). The id is the open item's, else the mapped one, else the raw
 * `providerItemId` (which leaks, and the host grammar then drops the event), else a new one.
 * Progress never updates the held item.
 */
export function handleItemProgress(ctx: DeltaContext, delta: ThreadDeltaOf<"item.progress">): void {
  const { state } = ctx;
  const snapshot = delta.snapshot;
  let turnId: string | undefined;
  if (!snapshot) {
    turnId = turnOrFallBack(ctx, delta);
    if (turnId === undefined) return;
  }
  const keyString = keyStringOf(delta.key);
  const open = state.openItems.get(keyString);
  const providerItemId = delta.key.providerItemId;
  const id = open?.bbItemId ?? mappedItemId(ctx, providerItemId) ?? providerItemId ?? ctx.env.ids.nextItemId();
  const parent = parentToolCallId(ctx, delta.key.parentRef);

  let event: ThreadEvent;
  if (snapshot?.type === "delegation") {
    const openSummary = open?.item.type === "delegation" ? open.item.summary : undefined;
    const item = definedFields({
      type: "delegation",
      id,
      childRef: snapshot.childRef,
      label: snapshot.label,
      status: "pending",
      background: snapshot.background,
      summary: snapshot.summary ?? openSummary,
      parentToolCallId: parent ?? open?.item.parentToolCallId,
      presentation: open?.item.presentation,
    });
    event = buildEvent("item/delegation/progress", threadScope(), { item });
  } else if (snapshot?.type === "backgroundTask") {
    event = buildEvent("item/backgroundTask/progress", threadScope(), {
      item: buildItem(snapshot, id, { parentToolCallId: parent }),
    });
  } else {
    event = buildEvent("item/toolCall/progress", turnScope(turnId as string), {
      itemId: id,
      message: delta.message,
      parentToolCallId: parent ?? open?.item.parentToolCallId,
    });
  }
  throttleProgress(ctx, keyString, event, { flush: delta.flush === true, turnScoped: !snapshot });
}
