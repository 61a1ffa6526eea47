/**
 * `item.outputDelta` and `command.outputSnapshot` (spec 10 §2.9).
 */
import type { ThreadDeltaOf } from "../protocol/thread-delta.js";
import { fallBackOrDrop, itemIdFor, keyStringOf, parentToolCallId, turnOrFallBack, type DeltaContext } from "./context.js";
import { buildEvent, turnScope } from "./events.js";

/**
 * `item.outputDelta`: turn = vouched else cur (no turn → fallback or drop); never synthesizes an
 * open. The id is the open item's, else the mapped one, else a minted and registered one; the
 * text is emitted as given.
 */
export function handleOutputDelta(ctx: DeltaContext, delta: ThreadDeltaOf<"item.outputDelta">): void {
  const { state } = ctx;
  const turnId = turnOrFallBack(ctx, delta);
  if (turnId === undefined) return;
  const open = state.openItems.get(keyStringOf(delta.key));
  const providerItemId = delta.key.providerItemId;
  const id = itemIdFor(ctx, providerItemId, open?.bbItemId);
  const type = delta.channel === "command" ? "item/commandExecution/outputDelta" : "item/fileChange/outputDelta";
  ctx.emit(
    buildEvent(type, turnScope(turnId), {
      itemId: id,
      delta: delta.text,
      parentToolCallId: parentToolCallId(ctx, delta.key.parentRef) ?? open?.item.parentToolCallId,
    }),
  );
}

/**
 * `command.outputSnapshot`: needs cur (else fallback or drop) and an open item under the key
 * (else dropped silently). Against the previous snapshot: empty or equal → nothing; none → the
 * full text; an extension → the suffix; anything else → the full text with `reset:true`.
 */
export function handleOutputSnapshot(ctx: DeltaContext, delta: ThreadDeltaOf<"command.outputSnapshot">): void {
  const { state } = ctx;
  const turnId = state.currentTurnId;
  if (turnId === undefined) {
    fallBackOrDrop(ctx, delta);
    return;
  }
  const keyString = keyStringOf(delta.key);
  const open = state.openItems.get(keyString);
  if (!open) return;
  const previous = state.commandSnapshots.get(keyString);
  const text = delta.text;
  if (text === "" || text === previous) return;
  state.commandSnapshots.set(keyString, text);
  let output = text;
  let reset: true | undefined;
  if (previous !== undefined) {
    if (text.startsWith(previous)) output = text.slice(previous.length);
    else reset = true;
  }
  ctx.emit(
    buildEvent("item/commandExecution/outputDelta", turnScope(turnId), {
      itemId: open.bbItemId,
      delta: output,
      reset,
      parentToolCallId: open.item.parentToolCallId,
    }),
  );
}
