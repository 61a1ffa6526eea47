/**
 * Time as a dependency (spec 40 §6, §12): every timer and clock reading of a bridge goes through a
 * {@link Scheduler} handed to it, so a test can run the bridge on a fake clock it advances by hand
 * and no verdict waits on a real-time window. This module holds the interface and the one real
 * implementation; it is the only module of `stack/` that calls `setTimeout` / `clearTimeout`.
 */

declare const scheduledBrand: unique symbol;

/** An opaque handle of one scheduled callback, given back to {@link Scheduler.cancel}. */
export type ScheduledHandle = { readonly [scheduledBrand]: true };

/** Options of one {@link Scheduler.schedule} call. */
export interface ScheduleOptions {
  /**
   * Whether the pending callback keeps a Node process alive (default true). `false` is
   * `Timeout.unref()`: for timers that only tidy up after work that has its own handles.
   * A fake scheduler ignores it.
   */
  keepAlive?: boolean;
}

/** Timers and a clock, as `setTimeout` / `clearTimeout` / `Date.now` but injected. */
export interface Scheduler {
  /**
   * Calls `fn` once, `ms` milliseconds from now (0 or less: on the next timer turn). Callbacks due
   * at the same time run in the order they were scheduled. A throwing `fn` throws out of the
   * timer turn, as a `setTimeout` callback would.
   */
  schedule(ms: number, fn: () => void, options?: ScheduleOptions): ScheduledHandle;
  /** Cancels a scheduled callback. `undefined`, or a handle already run or cancelled, is a no-op. */
  cancel(handle: ScheduledHandle | undefined): void;
  /** The current time in milliseconds since the Unix epoch (a fake clock's reading in tests). */
  now(): number;
}

/**
 * The real scheduler: Node's timers and the high-resolution wall clock
 * (`performance.timeOrigin + performance.now()`, monotonic within the process).
 */
export function createRealScheduler(): Scheduler {
  const noop = (): void => undefined;
  return {
    schedule(ms, fn, options) {
      const timer = setTimeout(fn, Math.max(0, ms));
      if (options?.keepAlive === false) timer.unref();
      return timer as unknown as ScheduledHandle;
    },
    // Node runs every timer of a process off one libuv timer and does not re-arm it when a timer
    // is cleared: the event loop still wakes when the cleared timer was due, for nothing, and until
    // then the process looks, from outside, like one that will act on its own soon. A replay judges
    // a bridge idle by exactly that (the timeout of its event loop's wait,
    // harness/replay/idleness/) and would sit out every cancelled timer (a second after each
    // agent it stops). A no-op 0 ms timer makes Node re-arm its libuv timer for the next live
    // callback, or stop it, a millisecond later.
    cancel(handle) {
      if (handle === undefined) return;
      clearTimeout(handle as unknown as NodeJS.Timeout);
      setTimeout(noop, 0).unref();
    },
    now: () => performance.timeOrigin + performance.now(),
  };
}

/** The part of a child process {@link killAfter} needs. */
export interface Killable {
  kill(signal?: NodeJS.Signals): boolean;
}

/**
 * Sends `signal` to `child` once `ms` milliseconds pass on `scheduler` (what `execFile`'s `timeout`
 * option does, on the injected clock). Returns the cancel to call when the child has ended.
 */
export function killAfter(scheduler: Scheduler, child: Killable, ms: number, signal: NodeJS.Signals = "SIGTERM"): () => void {
  const handle = scheduler.schedule(ms, () => child.kill(signal));
  return () => scheduler.cancel(handle);
}

/**
 * Resolves after `ms` milliseconds on `scheduler` (a promise form of {@link Scheduler.schedule}).
 * Never rejects.
 */
export function delay(scheduler: Scheduler, ms: number, options?: ScheduleOptions): Promise<void> {
  return new Promise((resolve) => scheduler.schedule(ms, resolve, options));
}

/**
 * Resolves when `promise` settles or after `ms` milliseconds on `scheduler`, whichever is first;
 * the timer is cancelled either way. Never rejects (a rejected `promise` counts as settled).
 */
export function settleWithin(scheduler: Scheduler, promise: Promise<unknown>, ms: number): Promise<void> {
  let handle: ScheduledHandle | undefined;
  const timeout = new Promise<void>((resolve) => (handle = scheduler.schedule(ms, resolve)));
  const settled = promise.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([settled, timeout]).finally(() => scheduler.cancel(handle));
}

/**
 * Calls `tick` every `ms` milliseconds on `scheduler` until the returned stop is called (what
 * `setInterval` does, on the injected clock; each tick is scheduled when the previous one ran).
 * `options.keepAlive` as in {@link Scheduler.schedule}.
 */
export function every(scheduler: Scheduler, ms: number, tick: () => void, options?: ScheduleOptions): () => void {
  let handle: ScheduledHandle | undefined;
  let stopped = false;
  const arm = (): void => {
    handle = scheduler.schedule(
      ms,
      () => {
        if (stopped) return;
        arm();
        tick();
      },
      options,
    );
  };
  arm();
  return () => {
    stopped = true;
    scheduler.cancel(handle);
  };
}
