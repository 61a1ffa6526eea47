import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { cpuByKind, measureProcess, median, processCpuMs, sampleTreeRss } from "../../bench/process-tree.js";
import type { ProcSource } from "../../harness/runtime/process-tree.js";

// The whole-process bench reads the process tree from /proc; these run only where it exists.
const linux = process.platform === "linux";

describe.runIf(linux)("process-tree measurement", () => {
  it("sums the resident memory of a child and its grandchild and sees both pids", async () => {
    // The grandchild holds 128 MiB of touched memory and says "ready"; both wait on stdin.
    const grandchild = `const b=Buffer.alloc(128*1024*1024,1);process.stdout.write("ready\\n");process.stdin.resume();process.stdin.on("end",()=>process.exit(b[0]-1))`;
    const parent = `const c=require("node:child_process").spawn(process.execPath,["-e",${JSON.stringify(grandchild)}],{stdio:["pipe","inherit","inherit"]});process.stdin.on("end",()=>c.stdin.end());process.stdin.resume();c.on("exit",()=>process.exit(0))`;
    const child = spawn(process.execPath, ["-e", parent], { stdio: ["pipe", "pipe", "inherit"] });
    child.stdout.setEncoding("utf8");
    let out = "";
    while (!out.includes("ready")) out += (await once(child.stdout, "data"))[0] as string;
    const seen = new Set<number>();
    const rss = sampleTreeRss(child.pid!, seen);
    child.stdin.end();
    await once(child, "exit");
    expect(seen.size).toBe(2);
    expect(seen.has(child.pid!)).toBe(true);
    expect(rss).toBeGreaterThan(128 * 1024 * 1024);
  });

  it("counts the CPU a command spent, not its wall time, and reports its exit code", async () => {
    // Burns 300 ms of user CPU, measured by the child itself, then exits 3.
    const burn = `const t=process.cpuUsage();while(process.cpuUsage(t).user<300000);process.exit(3)`;
    const run = await measureProcess({ command: process.execPath, args: ["-e", burn], cwd: process.cwd() });
    expect(run.exitCode).toBe(3);
    expect(run.cpuMs).toBeGreaterThanOrEqual(300);
    expect(run.processes).toBe(1);
    expect(run.nodeProcesses).toBe(1);
    expect(run.peakTreeRssBytes).toBeGreaterThan(0);
  });

  it("tells Node processes from others in the tree: a node parent and the sh it started", async () => {
    // The sh prints "ready" and waits on its stdin (the parent's, passed through).
    const parent = `const c=require("node:child_process").spawn("sh",["-c","echo ready; read x"],{stdio:["pipe","inherit","inherit"]});process.stdin.on("end",()=>c.stdin.end());process.stdin.resume();c.on("exit",()=>process.exit(0))`;
    const child = spawn(process.execPath, ["-e", parent], { stdio: ["pipe", "pipe", "inherit"] });
    child.stdout.setEncoding("utf8");
    let out = "";
    while (!out.includes("ready")) out += (await once(child.stdout, "data"))[0] as string;
    const seen = new Set<number>();
    const names = new Map<number, string>();
    sampleTreeRss(child.pid!, seen, names);
    child.stdin.end();
    await once(child, "exit");
    expect(seen.size).toBe(2);
    expect(names.get(child.pid!)).toBe("node");
    expect([...names.values()].sort()).toEqual(["node", "sh"]);
  });

  it("reads the CPU a live process has used from /proc (what the split by kind sums)", async () => {
    // Burns 300 ms of CPU (user + system, measured by the child itself), then says "ready" and waits on stdin.
    const burn = `const t=process.cpuUsage();for(;;){const u=process.cpuUsage(t);if(u.user+u.system>=300000)break}process.stdout.write("ready\\n");process.stdin.resume();process.stdin.on("end",()=>process.exit(0))`;
    const child = spawn(process.execPath, ["-e", burn], { stdio: ["pipe", "pipe", "inherit"] });
    child.stdout.setEncoding("utf8");
    let out = "";
    while (!out.includes("ready")) out += (await once(child.stdout, "data"))[0] as string;
    const cpu = processCpuMs(child.pid!);
    child.stdin.end();
    await once(child, "exit");
    // The kernel counts in 10 ms ticks: at least the 300 ms the child measured, less one tick.
    expect(cpu).toBeGreaterThanOrEqual(290);
    expect(processCpuMs(child.pid!)).toBeUndefined();
  });

  it("splits CPU by kind: the root as self, every other pid by its command name", () => {
    const last = new Map([
      [10, 500],
      [11, 300],
      [12, 200],
      [13, 40],
      [14, 30],
      [15, 5],
    ]);
    const names = new Map([
      [10, "node"],
      [11, "node"],
      [12, "node"],
      [13, "perl"],
      [14, "perl"],
    ]);
    expect(cpuByKind(10, last, names)).toEqual({ self: 500, node: 500, perl: 70, unknown: 5 });
  });

  it("walks the tree through the runtime's one walk over the /proc source it is given (issue 28)", () => {
    // root 10 (two threads; its second thread started 12), child 11 (started grandchild 13), and 12 gone since the listing.
    const files: Record<string, string> = {
      "/proc/10/task/10/children": "11",
      "/proc/10/task/14/children": "12",
      "/proc/10/statm": "900 100 0 0 0 0 0",
      "/proc/10/comm": "node\n",
      "/proc/11/task/11/children": "13 ",
      "/proc/11/statm": "900 20 0 0 0 0 0",
      "/proc/11/comm": "perl\n",
      "/proc/13/task/13/children": "",
      "/proc/13/statm": "900 3 0 0 0 0 0",
      "/proc/13/comm": "sh\n",
    };
    const tasks: Record<string, string[]> = { "/proc/10/task": ["10", "14"], "/proc/11/task": ["11"], "/proc/13/task": ["13"] };
    let closed = 0;
    const proc: ProcSource = { read: (file) => files[file], list: (dir) => tasks[dir], close: () => void (closed += 1) };
    const seen = new Set<number>();
    const names = new Map<number, string>();
    expect(sampleTreeRss(10, seen, names, proc)).toBe((100 + 20 + 3) * 4096);
    expect([...seen].sort()).toEqual([10, 11, 12, 13]);
    expect(Object.fromEntries(names)).toEqual({ 10: "node", 11: "perl", 13: "sh" });
    // A source it is given stays open: the caller (measureProcess) keeps it across samples.
    expect(closed).toBe(0);
  });

  it("takes the median of odd and even counts", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
