/**
 * What every delta handler works with, and the id lookups they share: key strings, vouched
 * turns, parent tool calls, item ids and the no-turn fallback (spec 10 §1.2, §2.1, §2.6).
 */
import { KEY_PART_SEPARATOR, type Attach, type NoTurnFallback, type ThreadDeltaKey } from "../protocol/thread-delta.js";
import type { ThreadEvent } from "../protocol/thread-events.js";
import { buildProviderUnhandled, threadScope } from "./events.js";
import type { IdMinter } from "./ids.js";
import type { ThreadState } from "./thread-state.js";

/** Settings of one assembler instance, shared by every thread. */
export interface AssemblerEnv {
  providerId: string;
  ids: IdMinter;
  /** Progress throttle window, in ms (spec 10 §2.10). */
  progressThrottleMs: number;
  /** Text batching window, in ms; 0 disables batching (spec 10 §2.11). */
  textDeltaFlushMs: number;
}

/** One delta being handled: the thread's state, the clock reading of this `assemble` call, and the event sink. */
export interface DeltaContext {
  env: AssemblerEnv;
  state: ThreadState;
  /** `now()` read once per `assemble` call, in ms. */
  now: number;
  /** Emits an event through the thread's text batcher (spec 10 §2.11). */
  emit(event: ThreadEvent): void;
}

/** The internal key string: the three key parts (missing = `""`) joined with U+001F (spec 10 §1.2). */
export function keyStringOf(key: ThreadDeltaKey): string {
  return [key.providerItemId ?? "", key.channel ?? "", key.parentRef ?? ""].join(KEY_PART_SEPARATOR);
}

/**
 * The bb turn mapped from `providerTurnId`, minted and registered silently (no `turn/started`)
 * on first sight; `undefined` when the delta carries no `providerTurnId` (spec 10 §2.1).
 */
export function vouchedTurn(ctx: DeltaContext, providerTurnId: string | undefined): string | undefined {
  if (providerTurnId === undefined) return undefined;
  const known = ctx.state.turnIds.bbId(providerTurnId);
  if (known !== undefined) return known;
  const minted = ctx.env.ids.nextTurnId();
  ctx.state.turnIds.register(providerTurnId, minted);
  return minted;
}

/**
 * The turn an `attach`-carrying delta (`item.open`, `contextWindow`) lands in: vouched, else
 * cur ?? last with `attach:"currentOrLast"`, else cur; `undefined` when none applies (spec 10 §2.6).
 */
export function attachedTurn(ctx: DeltaContext, providerTurnId: string | undefined, attach: Attach | undefined): string | undefined {
  const { state } = ctx;
  return vouchedTurn(ctx, providerTurnId) ?? (attach === "currentOrLast" ? (state.currentTurnId ?? state.lastTurnId) : state.currentTurnId);
}

/**
 * The bb id of the parent tool call named by `parentRef`, minted and registered at once when
 * unknown so the raw provider id never leaks (spec 10 §2.1).
 */
export function parentToolCallId(ctx: DeltaContext, parentRef: string | undefined): string | undefined {
  if (parentRef === undefined) return undefined;
  return ctx.state.itemIds.bbId(parentRef) ?? mintItemId(ctx, parentRef);
}

/** A new item id, registered under `providerItemId` when there is one. */
export function mintItemId(ctx: DeltaContext, providerItemId: string | undefined): string {
  const minted = ctx.env.ids.nextItemId();
  if (providerItemId !== undefined) ctx.state.itemIds.register(providerItemId, minted);
  return minted;
}

/** The mapped bb id of `providerItemId`, if any. */
export function mappedItemId(ctx: DeltaContext, providerItemId: string | undefined): string | undefined {
  return providerItemId === undefined ? undefined : ctx.state.itemIds.bbId(providerItemId);
}

/**
 * The bb id of an item: the open item's (`openId`), else the one mapped from `providerItemId`,
 * else a new one, registered under `providerItemId` when there is one (spec 10 §2.1, §2.7).
 */
export function itemIdFor(ctx: DeltaContext, providerItemId: string | undefined, openId?: string): string {
  return openId ?? mappedItemId(ctx, providerItemId) ?? mintItemId(ctx, providerItemId);
}

/** A delta that may fall back to thread-scoped `provider/unhandled` when no turn applies. */
export interface FallbackCarrier {
  key?: ThreadDeltaKey;
  noTurnFallback?: NoTurnFallback | undefined;
}

/**
 * No turn applies: emits the delta's `noTurnFallback` as thread-scoped `provider/unhandled`
 * (parent minted from `key.parentRef`), or drops the delta when it has none. A turnless delta
 * never claims pending input (spec 10 §2.6).
 */
export function fallBackOrDrop(ctx: DeltaContext, delta: FallbackCarrier): void {
  const fallback = delta.noTurnFallback;
  if (!fallback) return;
  const parent = parentToolCallId(ctx, delta.key?.parentRef);
  ctx.emit(buildProviderUnhandled(ctx.env.providerId, fallback.rawType, fallback.raw, threadScope(), parent));
}

/**
 * The turn of an item delta: the vouched turn, else cur (spec 10 §2.6). With neither, the delta
 * falls back or is dropped ({@link fallBackOrDrop}) and `undefined` tells the handler to stop.
 */
export function turnOrFallBack(ctx: DeltaContext, delta: FallbackCarrier & { providerTurnId?: string | undefined }): string | undefined {
  const turnId = vouchedTurn(ctx, delta.providerTurnId) ?? ctx.state.currentTurnId;
  if (turnId === undefined) fallBackOrDrop(ctx, delta);
  return turnId;
}
