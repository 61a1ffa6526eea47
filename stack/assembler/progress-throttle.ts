/**
 * The progress throttle: at most one progress event per key per window, seeded by `item.open`
 * (spec 10 §2.10). Time is the injected clock reading of the current `assemble` call.
 */
import type { ThreadEvent } from "../protocol/thread-events.js";
import type { DeltaContext } from "./context.js";
import type { ThreadState } from "./thread-state.js";

/** Starts the key's window at `now`, as `item.open` does. */
export function seedProgressWindow(state: ThreadState, keyString: string, now: number): void {
  state.progressLastEmit.set(keyString, now);
}

/** Forgets the key's window and pending entry, as a close does. */
export function forgetProgressKey(state: ThreadState, keyString: string): void {
  state.progressLastEmit.delete(keyString);
  state.pendingProgress.delete(keyString);
}

/** Drops pending progress that belongs to a turn (message progress), as finishTurn does. */
export function dropTurnScopedProgress(state: ThreadState): void {
  for (const [keyString, pending] of state.pendingProgress) {
    if (pending.turnScoped) state.pendingProgress.delete(keyString);
  }
}

/**
 * Emits `event` now, or holds it as the key's pending progress when it arrives inside the window
 * without `flush` (replacing an older pending one). A key with no window emits at once.
 */
export function throttleProgress(ctx: DeltaContext, keyString: string, event: ThreadEvent, options: { flush: boolean; turnScoped: boolean }): void {
  const { state, now } = ctx;
  const last = state.progressLastEmit.get(keyString);
  if (!options.flush && last !== undefined && now - last < ctx.env.progressThrottleMs) {
    state.pendingProgress.set(keyString, { event, turnScoped: options.turnScoped });
    return;
  }
  state.pendingProgress.delete(keyString);
  state.progressLastEmit.set(keyString, now);
  ctx.emit(event);
}

/**
 * The trailing edge (spec 10 §2.10): emits every pending progress whose window has elapsed,
 * except for keys in `skipKeys` (keys with an `item.progress` in the current batch).
 */
export function flushElapsedProgress(ctx: DeltaContext, skipKeys: ReadonlySet<string>): void {
  const { state, now } = ctx;
  for (const [keyString, pending] of state.pendingProgress) {
    if (skipKeys.has(keyString)) continue;
    const last = state.progressLastEmit.get(keyString);
    if (last !== undefined && now - last < ctx.env.progressThrottleMs) continue;
    state.pendingProgress.delete(keyString);
    state.progressLastEmit.set(keyString, now);
    ctx.emit(pending.event);
  }
}
