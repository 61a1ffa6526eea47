/**
 * The injected scheduler (stack/bridge-kit/scheduler.ts) and the fake one tests drive
 * (test/helpers/fake-scheduler.ts). No assertion here depends on how long anything takes: the real
 * scheduler is only asked for zero-delay callbacks and for waits that a settled promise ends.
 */
import { describe, expect, it } from "vitest";
import { createRealScheduler, delay, settleWithin } from "../../stack/bridge-kit/scheduler.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";

describe("fake scheduler", () => {
  it("runs due callbacks in due order (ties in scheduling order), each at its own time, and only those due", () => {
    const clock = createFakeScheduler(1_000);
    const seen: string[] = [];
    clock.schedule(30, () => seen.push(`c@${clock.now()}`));
    clock.schedule(10, () => seen.push(`a@${clock.now()}`));
    clock.schedule(10, () => seen.push(`b@${clock.now()}`));
    clock.schedule(31, () => seen.push("late"));
    clock.advance(30);
    expect(seen).toEqual(["a@1010", "b@1010", "c@1030"]);
    expect(clock.now()).toBe(1_030);
    expect(clock.pending()).toEqual([{ dueAt: 1_031, delayMs: 31 }]);
  });

  it("runs a callback scheduled by a callback when it falls due within the same advance; cancel removes one", () => {
    const clock = createFakeScheduler();
    const seen: number[] = [];
    const poll = (): void => {
      seen.push(clock.now());
      if (seen.length < 5) clock.schedule(20, poll);
    };
    clock.schedule(20, poll);
    const cancelled = clock.schedule(50, () => seen.push(-1));
    clock.cancel(cancelled);
    clock.cancel(undefined);
    clock.advance(70);
    expect(seen).toEqual([20, 40, 60]);
    clock.advance(1_000);
    expect(seen).toEqual([20, 40, 60, 80, 100]);
    expect(clock.pending()).toEqual([]);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it("whenPending resolves at once for a pending timer and otherwise when a matching one is scheduled", async () => {
    const clock = createFakeScheduler();
    clock.schedule(5, () => undefined);
    await expect(clock.whenPending()).resolves.toEqual({ dueAt: 5, delayMs: 5 });
    const waiting = clock.whenPending((t) => t.delayMs === 40);
    clock.schedule(7, () => undefined);
    clock.schedule(40, () => undefined);
    await expect(waiting).resolves.toEqual({ dueAt: 40, delayMs: 40 });
  });

  it("whenCancelled resolves when a matching pending callback is cancelled, not when one runs", async () => {
    const clock = createFakeScheduler();
    const cancelled = clock.whenCancelled((t) => t.delayMs === 10);
    let seen: unknown;
    void cancelled.then((t) => (seen = t));
    clock.schedule(10, () => undefined);
    clock.advance(10);
    await Promise.resolve();
    expect(seen).toBeUndefined();
    const handle = clock.schedule(10, () => undefined);
    clock.cancel(handle);
    clock.cancel(handle);
    await expect(cancelled).resolves.toEqual({ dueAt: 20, delayMs: 10 });
  });

  it("settleWithin on the fake clock: the promise wins when it settles first, the clock when it is advanced first", async () => {
    const clock = createFakeScheduler();
    let resolveWork!: () => void;
    const work = new Promise<void>((resolve) => (resolveWork = resolve));
    const first = settleWithin(clock, work, 100);
    resolveWork();
    await first;
    expect(clock.pending()).toEqual([]);
    let passed = false;
    const second = settleWithin(clock, new Promise(() => undefined), 100).then(() => (passed = true));
    await clock.whenPending((t) => t.delayMs === 100);
    clock.advance(99);
    await Promise.resolve();
    expect(passed).toBe(false);
    clock.advance(1);
    await second;
    expect(passed).toBe(true);
  });
});

describe("real scheduler", () => {
  it("runs a zero-delay callback, cancels one, and reads an epoch clock", async () => {
    const scheduler = createRealScheduler();
    const seen: string[] = [];
    const cancelled = scheduler.schedule(0, () => seen.push("cancelled"));
    scheduler.cancel(cancelled);
    await delay(scheduler, 0);
    scheduler.schedule(0, () => seen.push("ran"), { keepAlive: false });
    await delay(scheduler, 0);
    expect(seen).toEqual(["ran"]);
    expect(Math.abs(scheduler.now() - Date.now())).toBeLessThan(60_000);
  });

  it("settleWithin resolves (never rejects) when the promise rejects, and cancels its timer", async () => {
    const scheduler = createRealScheduler();
    await expect(settleWithin(scheduler, Promise.reject(new Error("gone")), 3_600_000)).resolves.toBeUndefined();
  });
});
