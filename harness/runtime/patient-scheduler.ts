/**
 * Waits that count the bridge's stillness, not the wall clock. A conformance run bounds every
 * wait for an answer or event (spec 10 §7 `timeoutMs`), but on a loaded machine a healthy bridge
 * can take longer than that to load or to answer `initialize` (seen at load 33: a verdict that
 * depended on the load). A {@link patientScheduler} lets a due timer fire only once the bridge's
 * process tree has not run at all for the whole period: while the bridge (or its agent) is still
 * getting CPU, the wait goes on. A bridge that sleeps without answering still fails after
 * `timeoutMs`; one that has crashed ends every wait at once through its channel.
 */
import type { ScheduledHandle, ScheduleOptions, Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { sampleTree, treeProgress } from "./process-tree.js";

/**
 * How many periods a timer may be put off in all: bounds a bridge that spins without ever
 * answering (a stillness that never comes), so it still fails, late.
 */
export const PATIENCE_PERIODS = 12;

/** Reads a process tree's progress: a value that changes whenever any of its processes ran; undefined when unknown. */
export type ProgressProbe = () => string | undefined;

/**
 * A scheduler over `base` whose timers, when due, fire only if `progress` reads the same as when
 * they were armed (or `progress` cannot tell); otherwise they are armed again for the same period,
 * at most {@link PATIENCE_PERIODS} periods in all. `now` and `cancel` are `base`'s.
 */
export function patientScheduler(base: Scheduler, progress: ProgressProbe): Scheduler {
  interface Patient {
    current: ScheduledHandle | undefined;
  }
  return {
    schedule(ms: number, fn: () => void, options?: ScheduleOptions): ScheduledHandle {
      const patient: Patient = { current: undefined };
      let periods = 0;
      const arm = (before: string | undefined): void => {
        periods += 1;
        patient.current = base.schedule(
          ms,
          () => {
            const after = progress();
            if (before !== undefined && after !== undefined && after !== before && periods < PATIENCE_PERIODS) arm(after);
            else fn();
          },
          options,
        );
      };
      arm(progress());
      return patient as unknown as ScheduledHandle;
    },
    cancel(handle) {
      base.cancel((handle as unknown as Patient | undefined)?.current);
    },
    now: () => base.now(),
  };
}

/**
 * The progress of the process tree rooted at `pid` as `/proc` shows it (Linux): every thread's
 * run count, in tree order ({@link treeProgress} of one {@link sampleTree} look, the same walk
 * the replay's idleness judgement uses); undefined when the root is gone or `/proc` is not there.
 */
export function processTreeProgress(pid: number): string | undefined {
  return treeProgress(sampleTree(pid));
}
