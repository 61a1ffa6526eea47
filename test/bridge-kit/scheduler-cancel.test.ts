/**
 * The real Scheduler's `cancel` (stack/bridge-kit/scheduler.ts) on real processes: a timer
 * cleared with `clearTimeout` leaves Node's event loop waiting on it (the replay would judge such
 * a bridge about to act and wait it out, harness/replay/idleness/); one cancelled through the
 * Scheduler does not. Each process is polled until its state shows; no assertion depends on how long that takes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { settlementOf } from "../../harness/replay/idleness/index.js";
import { sampleTree, type TreeSample } from "../../harness/runtime/process-tree.js";

const scheduler = pathToFileURL(path.resolve("dist/stack/bridge-kit/scheduler.js")).href;
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

/** A Node process that arms a 60 s timer, clears it (`clearTimeout`, or the Scheduler's schedule and cancel), says ready and waits on its stdin. */
async function clearedTimerProcess(clear: "clearTimeout" | "scheduler"): Promise<number> {
  const code = [
    `import { createRealScheduler } from ${JSON.stringify(scheduler)};`,
    "const fired = () => process.stdout.write('fired\\n');",
    clear === "clearTimeout" ? "clearTimeout(setTimeout(fired, 60_000));" : "const s = createRealScheduler(); s.cancel(s.schedule(60_000, fired));",
    "process.stdin.on('data', () => {});",
    "process.stdout.write('ready\\n');",
  ].join("\n");
  const child = spawn(process.execPath, ["--no-memory-reducer", "--input-type=module", "-e", code], { stdio: ["pipe", "pipe", "inherit"] });
  started.push(child);
  await new Promise((resolve) => child.stdout!.once("data", resolve));
  return child.pid!;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Judges the tree (timer horizon 120 s) until it is idle or waits on a timer over a second away
 * (not the millisecond no-op `cancel` leaves); that judgement and its sample.
 */
async function settled(pid: number): Promise<{ verdict: string; sample: TreeSample }> {
  for (;;) {
    const first = sampleTree(pid) as TreeSample;
    await turn();
    await turn();
    const second = sampleTree(pid) as TreeSample;
    const verdict = settlementOf(first, second, 120_000);
    const timer = second.rootTimerMs;
    if (verdict === "idle" || (verdict === "blocked" && typeof timer === "number" && timer > 1000)) return { verdict, sample: second };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.runIf(process.platform === "linux")("a cleared timer's wake-up", () => {
  it("clearTimeout leaves the event loop waiting on the cleared timer (what the Scheduler's cancel avoids)", async () => {
    const { verdict, sample } = await settled(await clearedTimerProcess("clearTimeout"));
    expect(verdict).toBe("blocked");
    expect(sample.rootTimerMs).toBeGreaterThan(30_000);
  });

  it("the Scheduler's cancel leaves none: the process is idle, its loop waiting on input only", async () => {
    const { verdict, sample } = await settled(await clearedTimerProcess("scheduler"));
    expect(verdict).toBe("idle");
    expect(sample.rootTimerMs).toBe(-1);
  });
});
