/**
 * Waiting in the walk (see `runSchedule` in scheduler.ts): live events are handled as they
 * arrive; between them the bridge's process tree is sampled until it is idle (or blocked),
 * never judged by how long it took. Only the wall-clock ceiling bounds the wait.
 */
import { settlementOf } from "../idleness.js";
import type { Settlement } from "./schedule-types.js";
import { handleEvent } from "./walk-lines.js";
import type { ScheduleWalk } from "./walk-state.js";

/** Longest pause between two looks at a busy bridge, in ms (it only spaces the looks; nothing is judged by it). */
const MAX_POLL_MS = 50;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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

/**
 * Two looks at the bridge's process tree with this process's input drained between them:
 * `event` when a live event arrived meanwhile, else whether the tree reached `want`.
 */
async function lookTwice(walk: ScheduleWalk, want: Exclude<Settlement, "busy">): Promise<"event" | "settled" | "not yet"> {
  const { io } = walk;
  const first = io.writesPending?.() ? undefined : io.sampleTree!({ untilBusy: true });
  if (!first || !first.tasks.every((t) => t.state === "S")) return "not yet";
  // Two turns of this process's event loop include a full I/O poll: every line the
  // tree wrote before the first look has been read (and queued) by the second.
  await nextTurn();
  await nextTurn();
  if (await drainQueue(walk)) return "event";
  const second = io.writesPending?.() ? undefined : io.sampleTree!({ untilBusy: true });
  if (!second) return "not yet";
  const settlement = settlementOf(first, second, walk.timeouts.timerHorizonMs);
  if (io.trace && settlement !== walk.lastSettlement) {
    walk.lastSettlement = settlement;
    const states = second.tasks.map((t) => t.state).join("");
    io.trace(`.. bridge ${settlement} (threads ${states}, timer ${second.rootTimerMs === "other" ? "none: not in its event loop" : `${second.rootTimerMs ?? "?"} ms`})`);
  }
  return settlement === "idle" || (want === "blocked" && settlement === "blocked") ? "settled" : "not yet";
}

/**
 * Waits until an event arrives (handled, `event`), the bridge tree reaches `want` (`settled`)
 * or the wall-clock ceiling `until` passes (`ceiling`).
 */
export async function settle(walk: ScheduleWalk, want: Exclude<Settlement, "busy">, until = walk.deadline): Promise<"event" | "settled" | "ceiling"> {
  const { io, timeouts } = walk;
  let pollMs = 1;
  for (;;) {
    if (await drainQueue(walk)) return "event";
    const remaining = until - walk.now();
    if (remaining <= 0) return "ceiling";
    if (!io.sampleTree) {
      const event = await io.queue.next(Math.min(timeouts.fallbackQuietMs, remaining));
      if (event === "quiet") return remaining <= timeouts.fallbackQuietMs ? "ceiling" : "settled";
      handleEvent(walk, event);
      return "event";
    }
    const looked = await lookTwice(walk, want);
    if (looked !== "not yet") return looked;
    const event = await io.queue.next(Math.min(pollMs, Math.max(1, remaining)));
    pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
    if (event !== "quiet") {
      handleEvent(walk, event);
      return "event";
    }
  }
}
