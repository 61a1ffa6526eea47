/**
 * How the replay tells an idle bridge from a busy one (harness/runtime/process-tree.ts samples,
 * harness/replay/idleness/proc-judge.ts judges;
 * docs/design/00-product.md, Determinism): the /proc parsers on real text, and the judgement on real
 * processes — one blocked on its stdin, one spinning, one whose event loop always has a timer
 * due. Each process is polled until its state shows; no assertion depends on how long that takes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { settlementOf } from "../../harness/replay/idleness/index.js";
import { childrenOf, createTreeSampler, epollTimeoutOfSyscall, sampleTree, stateOfStat, timeslicesOfSchedstat, type ProcSource, type TreeSample } from "../../harness/runtime/process-tree.js";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

function startNode(code: string): ChildProcess {
  const child = spawn(process.execPath, ["--no-memory-reducer", "-e", code], { stdio: ["pipe", "pipe", "inherit"] });
  started.push(child);
  return child;
}

/** Waits for the child to say it is ready (one stdout line), so its start-up is over. */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => child.stdout!.once("data", () => resolve()));
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Judges the child's tree from two looks a loop turn apart. */
async function judge(pid: number): Promise<ReturnType<typeof settlementOf>> {
  const first = sampleTree(pid) as TreeSample;
  await turn();
  await turn();
  const second = sampleTree(pid) as TreeSample;
  return settlementOf(first, second, 10_000);
}

/** Judges until `want` shows up (at most `tries` times); returns every judgement seen. */
async function judgeUntil(pid: number, want: string, tries = 200): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < tries; i += 1) {
    const verdict = await judge(pid);
    seen.push(verdict);
    if (verdict === want) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return seen;
}

describe("the /proc parsers", () => {
  it("read the state after a command name holding spaces and parentheses", () => {
    expect(stateOfStat("4242 (node (worker) x) S 1 4242 4242 0 -1")).toBe("S");
    expect(stateOfStat("17 (bash) R 1 17")).toBe("R");
    expect(stateOfStat("garbage")).toBeUndefined();
  });

  it("read the run count from schedstat", () => {
    expect(timeslicesOfSchedstat("55850908 150045844 41\n")).toBe(41);
    expect(timeslicesOfSchedstat("")).toBe(-1);
  });

  it("read an epoll_pwait timeout: finite, infinite (-1 as a 32-bit int), and not in epoll at all", () => {
    expect(epollTimeoutOfSyscall("281 0xe 0x7ffc9b5bb9a0 0x400 0x186a0 0x0 0x8 0x7ffc9b5bac40 0x7f949f326cae", "x64")).toBe(100_000);
    expect(epollTimeoutOfSyscall("281 0xe 0x7fff187a9710 0x400 0xffffffff 0x0 0x8 0x7fff187a89b0 0x7f0daab26cae", "x64")).toBe(-1);
    expect(epollTimeoutOfSyscall("0 0x0 0x7ffd 0x10000 0x0 0x0 0x0 0x7ffd 0x7f00", "x64")).toBeUndefined();
    expect(epollTimeoutOfSyscall("running", "x64")).toBeUndefined();
  });
});

describe.runIf(process.platform === "linux")("judging real processes", () => {
  it("a process waiting on its stdin with nothing to do is idle", async () => {
    const child = startNode("process.stdin.on('data', () => {}); process.stdout.write('ready\\n');");
    await ready(child);
    const seen = await judgeUntil(child.pid!, "idle");
    expect(seen.at(-1)).toBe("idle");
    expect(sampleTree(child.pid!)!.rootTimerMs).toBe(-1);
  });

  it("a spinning process is never idle, however often it is looked at", async () => {
    const child = startNode("process.stdout.write('ready\\n'); for (;;) {}");
    await ready(child);
    for (let i = 0; i < 20; i += 1) expect(await judge(child.pid!)).toBe("busy");
  });

  it("a process whose loop always has a timer due within the horizon is blocked, never idle", async () => {
    const child = startNode("setInterval(() => {}, 5000); process.stdin.on('data', () => {}); process.stdout.write('ready\\n');");
    await ready(child);
    const seen = await judgeUntil(child.pid!, "blocked");
    expect(seen.at(-1)).toBe("blocked");
    expect(seen).not.toContain("idle");
  });

  it("a timer beyond the horizon (a stuck-agent timeout) does not keep it busy", async () => {
    const child = startNode("setTimeout(() => {}, 600000); process.stdin.on('data', () => {}); process.stdout.write('ready\\n');");
    await ready(child);
    const seen = await judgeUntil(child.pid!, "idle");
    expect(seen.at(-1)).toBe("idle");
  });

  it("a process stuck writing to a full pipe nobody reads is busy, not idle: it has not finished its work", async () => {
    const child = startNode("process.stdout.write('ready\\n'); const big = 'x'.repeat(1 << 20); for (;;) process.stdout.write(big);");
    await ready(child);
    child.stdout!.pause();
    const seen: string[] = [];
    for (let i = 0; i < 20; i += 1) seen.push(await judge(child.pid!));
    expect(seen).not.toContain("idle");
    expect(seen).not.toContain("blocked");
  });

  it("a gone process cannot be sampled", () => {
    expect(sampleTree(2 ** 22 + 12345)).toBeUndefined();
  });

  it("a sampler kept across looks sees the tree change: idle, then busy once the process is given work", async () => {
    const child = startNode("process.stdin.on('data', () => { for (;;) {} }); process.stdout.write('ready\\n');");
    await ready(child);
    const sampler = createTreeSampler(child.pid!);
    try {
      const look = async (): Promise<string> => {
        const first = sampler.sample()!;
        await turn();
        await turn();
        return settlementOf(first, sampler.sample()!, 10_000);
      };
      let verdict = await look();
      while (verdict !== "idle") verdict = await look();
      child.stdin!.write("go\n");
      while (verdict !== "busy") verdict = await look();
      expect(verdict).toBe("busy");
      const partial = sampler.sample({ untilBusy: true })!;
      expect(partial.tasks.some((t) => t.state !== "S")).toBe(true);
    } finally {
      sampler.close();
    }
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    for (let tries = 0; sampler.sample() !== undefined && tries < 1000; tries += 1) await turn();
    expect(sampler.sample()).toBeUndefined();
    sampler.close();
  });

  // Issue 25: an extra thread in a bridge (a worker, a profiler) must not keep it from ever
  // looking idle while that thread itself sleeps; one that computes must keep it busy.
  const withWorker = (workerCode: string): string =>
    `const { Worker } = require("node:worker_threads"); const w = new Worker(${JSON.stringify(workerCode)}, { eval: true }); w.once("online", () => process.stdout.write("ready\\n")); process.stdin.on("data", () => {});`;

  it("a bridge whose worker thread waits for a message (its own event loop asleep) is idle", async () => {
    const child = startNode(withWorker("require('node:worker_threads').parentPort.on('message', () => {});"));
    await ready(child);
    const seen = await judgeUntil(child.pid!, "idle");
    expect(seen.at(-1)).toBe("idle");
    // The worker is one more thread of the same process, asleep like the rest.
    const sample = sampleTree(child.pid!)!;
    expect(sample.tasks.length).toBeGreaterThan(1);
  });

  it("a bridge whose worker thread blocks in Atomics.wait is idle", async () => {
    const child = startNode(withWorker("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);"));
    await ready(child);
    const seen = await judgeUntil(child.pid!, "idle");
    expect(seen.at(-1)).toBe("idle");
  });

  it("a bridge whose worker thread computes is never idle, however often it is looked at", async () => {
    const child = startNode(withWorker("for (;;) {}"));
    await ready(child);
    for (let i = 0; i < 20; i += 1) expect(await judge(child.pid!)).toBe("busy");
  });
});

/**
 * A scripted `/proc`: a bridge of two threads whose main thread sleeps in `epoll_wait` with a
 * 3 ms timer due (world A), and the same bridge after that timer fired, the main thread wrote
 * its last line and went back to sleep with no timer (world B: run count one higher, an
 * infinite wait). The wake-up happens after the `wakeAfter`-th read of the second look.
 */
function scriptedProc(wakeAfter: number): { proc: ProcSource; startSecondLook(): void } {
  const world = (awake: boolean): Record<string, string> => ({
    "/proc/100/task/100/stat": "100 (node) S 1 100 100 0 -1",
    "/proc/100/task/100/schedstat": `1000 2000 ${awake ? 11 : 10}\n`,
    "/proc/100/task/100/children": "",
    "/proc/100/task/100/syscall": `232 0x5 0x7ffc 0x400 ${awake ? "0xffffffffffffffff" : "0x3"} 0x0 0x0 0x7ffc 0x7f00`,
    "/proc/100/task/101/stat": "101 (node) S 1 100 100 0 -1",
    "/proc/100/task/101/schedstat": "500 100 5\n",
    "/proc/100/task/101/children": "",
  });
  let reads: number | undefined;
  const now = (): Record<string, string> => {
    const woke = reads !== undefined && reads >= wakeAfter;
    if (reads !== undefined) reads += 1;
    return world(woke);
  };
  return {
    proc: {
      read: (file) => now()[file],
      list: (dir) => (now(), dir === "/proc/100/task" ? ["100", "101"] : undefined),
      close: () => undefined,
    },
    startSecondLook: () => {
      reads = 0;
    },
  };
}

describe("a look is never fooled by a wake-up during it (issue 25: a load-dependent verdict)", () => {
  it("a bridge that ran its due timer while being looked at is never judged idle, wherever the wake-up falls", () => {
    const seen = new Set<string>();
    // Every read of a look is a point the bridge's timer may fire at; one more: after the look.
    for (let wakeAfter = 0; wakeAfter <= 8; wakeAfter += 1) {
      for (const untilBusy of [false, true]) {
        const { proc, startSecondLook } = scriptedProc(wakeAfter);
        const sampler = createTreeSampler(100, { proc, arch: "x64" });
        const first = sampler.sample({ untilBusy })!;
        expect(first.rootTimerMs).toBe(3);
        startSecondLook();
        const verdict = settlementOf(first, sampler.sample({ untilBusy })!, 10_000);
        seen.add(verdict);
        expect(verdict, `woke after read ${wakeAfter} of the second look`).not.toBe("idle");
      }
    }
    // Both outcomes occur: the wake-up seen (busy) and the timer still due (blocked).
    expect([...seen].sort()).toEqual(["blocked", "busy"]);
  });
});

/** A `/proc` frozen as `files` (a directory listing is every entry under it), counting reads. */
function fixedProc(files: Record<string, string>): ProcSource & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read: (file) => (reads.push(file), files[file]),
    list: (dir) => {
      const names = Object.keys(files)
        .filter((file) => file.startsWith(`${dir}/`))
        .map((file) => file.slice(dir.length + 1).split("/")[0]!);
      return names.length === 0 ? undefined : [...new Set(names)];
    },
    close: () => undefined,
  };
}

// One process-tree walk (issue 28): the bench walks the tree with the runtime's childrenOf, and the
// sampler reads each thread's children file through the same parse (taskChildren).
describe("childrenOf: a process's children over all its threads", () => {
  const tree = {
    "/proc/100/task/100/stat": "100 (node) S 1 100 100 0 -1",
    "/proc/100/task/100/schedstat": "1 1 1\n",
    "/proc/100/task/100/children": "200 201 ",
    "/proc/100/task/107/stat": "107 (node) S 1 100 100 0 -1",
    "/proc/100/task/107/schedstat": "1 1 1\n",
    "/proc/100/task/107/children": "300\n",
    "/proc/200/task/200/stat": "200 (perl) S 100 200 200 0 -1",
    "/proc/200/task/200/schedstat": "1 1 2\n",
    "/proc/200/task/200/children": "",
    // 201's thread is listed but its files are gone (it exited between the listing and the read).
    "/proc/201/task/201/gone": "",
    "/proc/300/task/300/stat": "300 (sh) S 107 300 300 0 -1",
    "/proc/300/task/300/schedstat": "1 1 3\n",
    "/proc/300/task/300/children": "",
  };

  it("lists the pids every thread started, in thread order; [] for a process without children or one that is gone", () => {
    const proc = fixedProc(tree);
    expect(childrenOf(proc, 100)).toEqual([200, 201, 300]);
    expect(childrenOf(proc, 200)).toEqual([]);
    expect(childrenOf(proc, 201)).toEqual([]);
    expect(childrenOf(proc, 999)).toEqual([]);
    expect(proc.reads).toEqual(["/proc/100/task/100/children", "/proc/100/task/107/children", "/proc/200/task/200/children", "/proc/201/task/201/children"]);
  });

  it("the sampler walks the same tree: every live thread, children found under the thread that started them", () => {
    const sample = createTreeSampler(100, { proc: fixedProc(tree), arch: "x64" }).sample();
    expect(sample?.tasks.map((t) => t.tid)).toEqual([100, 107, 200, 300]);
  });
});
