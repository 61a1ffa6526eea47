import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { every } from "../../stack/bridge-kit/scheduler.js";
import { PATIENCE_PERIODS, patientScheduler, processTreeProgress } from "../../harness/runtime/patient-scheduler.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";

// Issue 28 (harness time): a conformance wait fails a bridge only when its process tree did not run
// for the whole period, so a healthy bridge slowed down by load is never failed by the clock.
describe("patientScheduler", () => {
  it("fires a due timer when the progress reads the same as when it was armed", () => {
    const base = createFakeScheduler();
    const fired: number[] = [];
    patientScheduler(base, () => "still").schedule(5_000, () => fired.push(base.now()));
    base.advance(4_999);
    expect(fired).toEqual([]);
    base.advance(1);
    expect(fired).toEqual([5_000]);
  });

  it("puts a due timer off by one period each time the bridge ran, and fires after a still period", () => {
    const base = createFakeScheduler();
    let ticks = 0;
    const fired: number[] = [];
    patientScheduler(base, () => String(ticks)).schedule(5_000, () => fired.push(base.now()));
    ticks = 1;
    base.advance(5_000);
    ticks = 2;
    base.advance(5_000);
    expect(fired).toEqual([]);
    base.advance(5_000);
    expect(fired).toEqual([15_000]);
  });

  it("fires after PATIENCE_PERIODS periods at the latest for a bridge that never stops running", () => {
    const base = createFakeScheduler();
    let ticks = 0;
    const fired: number[] = [];
    patientScheduler(base, () => String((ticks += 1))).schedule(100, () => fired.push(base.now()));
    base.advance(100 * PATIENCE_PERIODS - 1);
    expect(fired).toEqual([]);
    base.advance(1);
    expect(fired).toEqual([100 * PATIENCE_PERIODS]);
  });

  it("fires as a plain timer when the progress is unknown, and cancels whichever period is armed", () => {
    const base = createFakeScheduler();
    const fired: string[] = [];
    patientScheduler(base, () => undefined).schedule(10, () => fired.push("unknown"));
    base.advance(10);
    let ticks = 0;
    const patient = patientScheduler(base, () => String((ticks += 1)));
    const handle = patient.schedule(10, () => fired.push("cancelled"));
    base.advance(25);
    patient.cancel(handle);
    base.advance(1_000);
    expect(fired).toEqual(["unknown"]);
    expect(base.pending()).toEqual([]);
  });
});

describe("processTreeProgress", () => {
  it("changes while a child of the tree runs and is undefined once the root is gone", async () => {
    // A shell whose child spins for a while: the tree's run counts grow, the root's own do not.
    const child = spawn("sh", ["-c", 'node -e "const end = Date.now() + 400; while (Date.now() < end);"; exec sleep 30'], { stdio: "ignore" });
    const first = processTreeProgress(child.pid!);
    // Every thread's id and run count, the root's first (harness/runtime/process-tree.ts).
    expect(first).toMatch(new RegExp(`^${child.pid}:\\d+`));
    let later = first;
    // Causal: poll until the spinning grandchild has run (it always does: it runs 400 ms).
    while (later === first) {
      await new Promise((resolve) => setImmediate(resolve));
      later = processTreeProgress(child.pid!);
    }
    expect(later).not.toBe(first);
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    expect(processTreeProgress(child.pid!)).toBeUndefined();
  });
});

describe("every", () => {
  it("ticks once per period until stopped", () => {
    const scheduler = createFakeScheduler();
    const ticks: number[] = [];
    const stop = every(scheduler, 1_000, () => ticks.push(scheduler.now()));
    scheduler.advance(3_500);
    stop();
    scheduler.advance(5_000);
    expect(ticks).toEqual([1_000, 2_000, 3_000]);
    expect(scheduler.pending()).toEqual([]);
  });
});
