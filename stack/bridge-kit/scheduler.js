/**
 * Time as a dependency (spec 40 §6, §12): every timer and clock reading of a bridge goes through a
 * {@link Scheduler} handed to it, so a test can run the bridge on a fake clock it advances by hand
 * and no verdict waits on a real-time window. This module holds the interface and the one real
 * implementation; it is the only module of `stack/` that calls `setTimeout` / `clearTimeout`.
 */
/**
 * The real scheduler: Node's timers and the high-resolution wall clock
 * (`performance.timeOrigin + performance.now()`, monotonic within the process).
 */
export function createRealScheduler() {
    return {
        schedule(ms, fn, options) {
            const timer = setTimeout(fn, Math.max(0, ms));
            if (options?.keepAlive === false)
                timer.unref();
            return timer;
        },
        cancel(handle) {
            if (handle !== undefined)
                clearTimeout(handle);
        },
        now: () => performance.timeOrigin + performance.now(),
    };
}
/**
 * Resolves after `ms` milliseconds on `scheduler` (a promise form of {@link Scheduler.schedule}).
 * Never rejects.
 */
export function delay(scheduler, ms, options) {
    return new Promise((resolve) => scheduler.schedule(ms, resolve, options));
}
/**
 * Resolves when `promise` settles or after `ms` milliseconds on `scheduler`, whichever is first;
 * the timer is cancelled either way. Never rejects (a rejected `promise` counts as settled).
 */
export function settleWithin(scheduler, promise, ms) {
    let handle;
    const timeout = new Promise((resolve) => (handle = scheduler.schedule(ms, resolve)));
    const settled = promise.then(() => undefined, () => undefined);
    return Promise.race([settled, timeout]).finally(() => scheduler.cancel(handle));
}
