/**
 * Test helper: a {@link Scheduler} on a fake clock that only moves when the test says so
 * (`advance(ms)`), so a bridge's quiet periods, settle waits, polls and timeouts happen at a causal
 * point the test picks instead of after a real-time window.
 *
 * Callbacks run synchronously inside `advance`, in due-time order (ties in scheduling order), each
 * with `now()` at its due time; a callback scheduled by a callback runs in the same `advance` when it
 * falls due within it. `whenPending` lets a test wait (event-driven) until the code under test has
 * armed the timer it is about to fire.
 */
import type { ScheduledHandle, Scheduler } from "../../stack/bridge-kit/scheduler.js";

/** One pending callback as a test sees it. */
export interface FakeTimer {
  /** Fake-clock time it falls due, ms. */
  readonly dueAt: number;
  /** The delay it was scheduled with, ms. */
  readonly delayMs: number;
}

/** A scheduler on a fake clock (see module doc). */
export interface FakeScheduler extends Scheduler {
  /** Moves the clock forward by `ms` (≥ 0), running every callback that falls due on the way. */
  advance(ms: number): void;
  /** The pending callbacks, earliest first. */
  pending(): FakeTimer[];
  /**
   * Resolves once a callback matching `predicate` (default: any) is pending: at once when one
   * already is, else when the code under test schedules one. Never rejects; the test's own guard
   * bounds a wait that never ends.
   */
  whenPending(predicate?: (timer: FakeTimer) => boolean): Promise<FakeTimer>;
  /**
   * Resolves when the code under test cancels a pending callback matching `predicate` from now on
   * (a wait that ended before its time: a child exited, an answer came). Never rejects.
   */
  whenCancelled(predicate?: (timer: FakeTimer) => boolean): Promise<FakeTimer>;
}

interface Task extends FakeTimer {
  readonly seq: number;
  readonly fn: () => void;
}

/** Creates a fake scheduler whose clock starts at `startMs` (default 0). */
export function createFakeScheduler(startMs = 0): FakeScheduler {
  let now = startMs;
  let seq = 1;
  const tasks = new Map<number, Task>();
  type Watcher = { predicate: (timer: FakeTimer) => boolean; resolve(timer: FakeTimer): void };
  const watchers: Watcher[] = [];
  const cancelWatchers: Watcher[] = [];
  const notify = (list: Watcher[], timer: FakeTimer): void => {
    for (const watcher of [...list]) {
      if (!watcher.predicate(timer)) continue;
      list.splice(list.indexOf(watcher), 1);
      watcher.resolve(timer);
    }
  };
  const view = (task: Task): FakeTimer => ({ dueAt: task.dueAt, delayMs: task.delayMs });
  const ordered = (): Task[] => [...tasks.values()].sort((a, b) => a.dueAt - b.dueAt || a.seq - b.seq);

  return {
    now: () => now,
    schedule(ms, fn) {
      const delayMs = Math.max(0, ms);
      const task: Task = { dueAt: now + delayMs, delayMs, seq: seq++, fn };
      tasks.set(task.seq, task);
      notify(watchers, view(task));
      return task.seq as unknown as ScheduledHandle;
    },
    cancel(handle) {
      const task = handle === undefined ? undefined : tasks.get(handle as unknown as number);
      if (task === undefined) return;
      tasks.delete(task.seq);
      notify(cancelWatchers, view(task));
    },
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError(`advance(ms) needs ms >= 0 (got ${ms})`);
      const target = now + ms;
      for (;;) {
        const next = ordered()[0];
        if (next === undefined || next.dueAt > target) break;
        tasks.delete(next.seq);
        now = next.dueAt;
        next.fn();
      }
      now = target;
    },
    pending: () => ordered().map(view),
    whenPending(predicate = () => true) {
      const found = ordered().map(view).find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => watchers.push({ predicate, resolve }));
    },
    whenCancelled(predicate = () => true) {
      return new Promise((resolve) => cancelWatchers.push({ predicate, resolve }));
    },
  };
}
