/**
 * The quiet judge: where nothing tells whether the bridge is idle (no `/proc`: not Linux), a
 * window of silence is taken to mean it is. The one judge that depends on time; the replay
 * uses it only when no other can be had (choose.ts).
 */
import type { IdlenessJudge } from "./judge.js";

/** A judge that calls the bridge idle after `quietMs` (ms) without a live event. */
export function createQuietJudge(quietMs: number): IdlenessJudge {
  return {
    name: "quiet",
    async look(context) {
      const window = Math.min(quietMs, context.remainingMs);
      if (await context.waitForEvent(window)) return "event";
      // A window cut short by the ceiling proves nothing: the walk then ends at its ceiling.
      return window < quietMs ? "busy" : "idle";
    },
    pauseMs: () => 0,
    close: () => undefined,
  };
}
