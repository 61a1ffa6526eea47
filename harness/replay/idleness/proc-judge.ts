/**
 * The `/proc` judge: the bridge's process tree looked at twice, with this process's own input
 * drained between the looks (harness/runtime/process-tree.ts samples it). It needs nothing from
 * the bridge, so it serves every bridge the replay starts, whatever starts it.
 */
import type { TreeSample, TreeSampler } from "../../runtime/process-tree.js";
import type { IdlenessJudge, LookContext, Settlement } from "./judge.js";

/** Longest pause between two looks at a busy bridge, in ms (it only spaces the looks; nothing is judged by it). */
const MAX_PAUSE_MS = 50;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * How settled a process tree is, judged from two snapshots taken with the caller's own input
 * drained between them (docs/design/00-product.md, Determinism: pacing by causal order, never by time):
 * - `busy`: some thread is runnable or in an uninterruptible wait, or ran between the
 *   snapshots (its run count moved: put on a CPU; or its run time: taken off one, so a run
 *   already begun when the first snapshot read its count is seen too), or the tree changed, or the root's main thread sleeps in something other
 *   than its event loop's wait (say a `write` to a full pipe);
 * - `blocked`: every thread slept through both snapshots, but the root waits on a timer
 *   due within `timerHorizonMs` — it has consumed its input and will act on its own soon;
 * - `idle`: every thread slept through both, and the root has no timer due within the
 *   horizon: nothing will happen until someone writes to it.
 * A runnable thread the kernel has not yet scheduled shows `R` and counts as busy: CPU time
 * that did not move proves nothing on a loaded machine. The second snapshot's wait is trusted
 * because the sampler reads it before the run counts (see `createTreeSampler`).
 */
export function settlementOf(first: TreeSample, second: TreeSample, timerHorizonMs: number): Settlement {
  if (first.tasks.length !== second.tasks.length) return "busy";
  for (let i = 0; i < first.tasks.length; i += 1) {
    const a = first.tasks[i]!;
    const b = second.tasks[i]!;
    if (a.tid !== b.tid || a.state !== "S" || b.state !== "S" || a.timeslices !== b.timeslices || a.ranNs !== b.ranNs) return "busy";
  }
  const timer = second.rootTimerMs;
  if (timer === "other" || first.rootTimerMs === "other") return "busy";
  if (timer !== undefined && timer >= 0 && timer <= timerHorizonMs) return "blocked";
  return "idle";
}

/**
 * A judge of the tree `sampler` looks at; a bridge timer due within `timerHorizonMs` (ms) makes
 * it `blocked`. Each look stops sampling at the first thread found awake (a busy tree is looked
 * at often). Two turns of this process's event loop between the looks include a full I/O poll:
 * every line the tree wrote before the first look has been read (and queued) by the second.
 */
export function createProcJudge(sampler: TreeSampler, timerHorizonMs: number): IdlenessJudge {
  let last: Settlement | undefined;
  const traced = (context: LookContext, settlement: Settlement, second: TreeSample): void => {
    if (!context.trace || settlement === last) return;
    last = settlement;
    const states = second.tasks.map((t) => t.state).join("");
    const timer = second.rootTimerMs === "other" ? "none: not in its event loop" : `${second.rootTimerMs ?? "?"} ms`;
    context.trace(`.. bridge ${settlement} (threads ${states}, timer ${timer})`);
  };
  return {
    name: "proc",
    async look(context) {
      const first = context.pending() ? undefined : sampler.sample({ untilBusy: true });
      if (!first || !first.tasks.every((t) => t.state === "S")) return "busy";
      await nextTurn();
      await nextTurn();
      if (await context.drain()) return "event";
      const second = context.pending() ? undefined : sampler.sample({ untilBusy: true });
      if (!second) return "busy";
      const settlement = settlementOf(first, second, timerHorizonMs);
      traced(context, settlement, second);
      return settlement;
    },
    pauseMs: (attempt) => Math.min(2 ** attempt, MAX_PAUSE_MS),
    close: () => sampler.close(),
  };
}
