import type { ScheduledHandle, Scheduler } from "../../../stack/bridge-kit/scheduler.js";

/**
 * A FIFO of live events with one consumer (the scheduler). `next(timeoutMs)` resolves
 * with the oldest event, or with `"quiet"` when nothing arrived for `timeoutMs`
 * (spec 10 §5 Determinism: the timeout only detects divergence, it never paces).
 */
export interface EventQueue<T> {
  push(event: T): void;
  /** Resolves with the next event, or `"quiet"` after `timeoutMs` ms without one. */
  next(timeoutMs: number): Promise<T | "quiet">;
  /** Events waiting to be taken. */
  readonly size: number;
}

/**
 * Creates an empty {@link EventQueue} whose quiet timeouts run on `scheduler` (spec 40 §6: time
 * is injected; a test passes a fake one and decides when a wait ends, never a real-time window).
 */
export function createEventQueue<T>(scheduler: Scheduler): EventQueue<T> {
  // A ring of two stacks keeps push/take O(1) amortized on 200 000-line replays.
  let head: T[] = [];
  let headAt = 0;
  let waiter: ((event: T) => void) | undefined;
  return {
    push(event) {
      if (waiter) {
        const wake = waiter;
        waiter = undefined;
        wake(event);
        return;
      }
      head.push(event);
    },
    next(timeoutMs) {
      if (headAt < head.length) {
        const event = head[headAt] as T;
        headAt += 1;
        if (headAt > 4096 && headAt * 2 > head.length) {
          head = head.slice(headAt);
          headAt = 0;
        }
        return Promise.resolve(event);
      }
      return new Promise<T | "quiet">((resolve) => {
        const timer: ScheduledHandle = scheduler.schedule(timeoutMs, () => {
          waiter = undefined;
          resolve("quiet");
        });
        waiter = (event) => {
          scheduler.cancel(timer);
          resolve(event);
        };
      });
    },
    get size() {
      return head.length - headAt;
    },
  };
}
