/**
 * Waiting in the walk (see `runSchedule` in scheduler.ts): live events are handled as they
 * arrive; between them the replay's idleness judge (harness/replay/idleness/) is asked how
 * settled the bridge is until it is idle (or blocked), never judged by how long it took. Only
 * the wall-clock ceiling bounds the wait.
 */
import type { LookContext, Settlement } from "../idleness/index.js";
import { handleEvent } from "./walk-lines.js";
import type { ScheduleWalk } from "./walk-state.js";

/** Handles every queued event; true when there was one. */
export async function drainQueue(walk: ScheduleWalk): Promise<boolean> {
  const { queue } = walk.io;
  let any = false;
  while (queue.size > 0) {
    const event = await queue.next(0);
    if (event !== "quiet") handleEvent(walk, event);
    any = true;
  }
  return any;
}

/** Waits up to `ms` for one live event and handles it; true when one came. */
async function waitForEvent(walk: ScheduleWalk, ms: number): Promise<boolean> {
  const event = await walk.io.queue.next(ms);
  if (event === "quiet") return false;
  handleEvent(walk, event);
  return true;
}

/** What the judge may use of `walk` for one look. */
function lookContext(walk: ScheduleWalk, remainingMs: number): LookContext {
  const { io } = walk;
  return {
    drain: () => drainQueue(walk),
    waitForEvent: (ms) => waitForEvent(walk, ms),
    pending: () => io.writesPending?.() ?? false,
    remainingMs,
    ...(io.trace ? { trace: io.trace } : {}),
  };
}

/**
 * Waits until an event arrives (handled, `event`), the bridge tree reaches `want` (`settled`)
 * or the wall-clock ceiling `until` passes (`ceiling`).
 */
export async function settle(walk: ScheduleWalk, want: Exclude<Settlement, "busy">, until = walk.deadline): Promise<"event" | "settled" | "ceiling"> {
  const { idleness } = walk.io;
  for (let attempt = 0; ; attempt += 1) {
    if (await drainQueue(walk)) return "event";
    const remaining = until - walk.now();
    if (remaining <= 0) return "ceiling";
    const looked = await idleness.look(lookContext(walk, remaining));
    if (looked === "event") return "event";
    if (looked === "idle" || (want === "blocked" && looked === "blocked")) return "settled";
    const pause = idleness.pauseMs(attempt);
    if (pause > 0 && (await waitForEvent(walk, Math.min(pause, Math.max(1, remaining))))) return "event";
  }
}
