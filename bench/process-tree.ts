import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { childrenOf, createProcSource, type ProcSource } from "../harness/runtime/process-tree.js";

/** Page size `/proc/<pid>/statm` counts in (every Linux this runs on uses 4 KiB pages). */
const PAGE_BYTES = 4096;

/** One whole-process run measured from outside: spawn → exit. */
export interface ProcessRun {
  /** Wall time from spawn to exit, ms (monotonic clock). */
  wallMs: number;
  /**
   * User + system CPU of the process and every descendant it waited for, ms (the kernel's
   * own accounting, read as this process's `cutime + cstime` growth); undefined off Linux.
   */
  cpuMs: number | undefined;
  /** Largest sum of resident memory over the process tree seen by the sampler, bytes. */
  peakTreeRssBytes: number;
  /** Processes seen in the tree over the run (the root included). */
  processes: number;
  /**
   * Of those, the ones last seen running Node (`/proc/<pid>/comm` is `node`) and seen so in two
   * looks at least (not a fork on its way to exec something else): each pays a Node start-up.
   */
  nodeProcesses: number;
  /**
   * Where the CPU went, ms, by kind of process: `self` (the command's own process) and its
   * descendants by command name (`node`, `perl`, …). Each process counts with the last
   * `/proc/<pid>/stat` sample taken of it, so each misses up to one sampling interval (its
   * last moments before exit): a lower bound, for the split, while {@link ProcessRun.cpuMs} is
   * the kernel's exact total. Empty off Linux.
   */
  cpuByKind: Record<string, number>;
  exitCode: number | null;
  /** The tail of stderr, for an error message when the run failed. */
  stderrTail: string;
}

/** What to run. */
export interface ProcessCommand {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** This process's waited-for children's user + system CPU, ms, from `/proc/self/stat` (100 Hz ticks). */
function childrenCpuMs(): number | undefined {
  try {
    const text = readFileSync("/proc/self/stat", "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // Fields 16 and 17 of proc(5) (cutime, cstime) are 13 and 14 after the command name.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** User + system CPU one process has used so far, ms (`/proc/<pid>/stat` utime + stime, 100 Hz ticks), or undefined once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of proc(5) (utime, stime) are 11 and 12 after the command name.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * Sums each process's last CPU sample by kind: `self` for `root`, the command name for every
 * other pid (`unknown` when never named).
 */
export function cpuByKind(root: number, lastCpuMs: ReadonlyMap<number, number>, names: ReadonlyMap<number, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [pid, ms] of lastCpuMs) {
    const kind = pid === root ? "self" : (names.get(pid) ?? "unknown");
    out[kind] = (out[kind] ?? 0) + ms;
  }
  return out;
}

/** Resident bytes of one process, or 0 once it is gone. */
function rssOf(proc: ProcSource, pid: number): number {
  const text = proc.read(`/proc/${pid}/statm`);
  return text === undefined ? 0 : Number(text.split(" ")[1]) * PAGE_BYTES;
}

/** The command name of a process (`/proc/<pid>/comm`), or undefined once it is gone. */
function commOf(proc: ProcSource, pid: number): string | undefined {
  return proc.read(`/proc/${pid}/comm`)?.trim();
}

/**
 * Sums the resident memory of `root` and all its descendants now, adding every pid seen to
 * `seen` and, when given, its current command name to `names` (a forked child shows its
 * parent's name until it execs, so the last name seen wins). A process that starts and ends
 * between two samples is not counted: the sampling interval bounds what can be missed. The tree
 * is walked by the runtime's one walk (`childrenOf` of harness/runtime/process-tree.ts) through
 * `proc` (default: a fresh `/proc` source, closed after the look).
 */
export function sampleTreeRss(root: number, seen: Set<number>, names?: Map<number, string>, proc?: ProcSource): number {
  const source = proc ?? createProcSource();
  try {
    let total = 0;
    const stack = [root];
    while (stack.length > 0) {
      const pid = stack.pop()!;
      seen.add(pid);
      const name = names ? commOf(source, pid) : undefined;
      if (name !== undefined) names!.set(pid, name);
      total += rssOf(source, pid);
      stack.push(...childrenOf(source, pid));
    }
    return total;
  } finally {
    if (!proc) source.close();
  }
}

/**
 * Runs one command as a user would (its own process, stdio discarded except a stderr tail)
 * and measures it from outside: wall from spawn to exit, CPU of the tree it waited for, and
 * the peak of the tree's summed RSS sampled every `sampleMs` ms (Linux `/proc`; 0 elsewhere), and
 * the CPU split by kind of process from the same samples ({@link ProcessRun.cpuByKind}).
 */
export async function measureProcess(cmd: ProcessCommand, sampleMs = 10): Promise<ProcessRun> {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const child = spawn(cmd.command, [...cmd.args], { cwd: cmd.cwd, env: cmd.env ?? process.env, stdio: ["ignore", "ignore", "pipe"] });
  let stderrTail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderrTail = (stderrTail + text).slice(-4000);
  });
  const seen = new Set<number>();
  const names = new Map<number, string>();
  // Looks that found each pid running Node: a process forked by a Node process shows `node` until
  // it execs (well under a sampling interval), so only a pid seen as Node twice counts as one.
  const nodeLooks = new Map<number, number>();
  const lastCpu = new Map<number, number>();
  let peak = 0;
  // One source for the whole run: its descriptors stay open between samples (harness/runtime/process-tree.ts).
  const proc = createProcSource();
  const sample = (): void => {
    if (child.pid === undefined || child.exitCode !== null) return;
    const now = new Map<number, string>();
    peak = Math.max(peak, sampleTreeRss(child.pid, seen, now, proc));
    for (const [pid, name] of now) {
      names.set(pid, name);
      if (name === "node") nodeLooks.set(pid, (nodeLooks.get(pid) ?? 0) + 1);
      const cpu = processCpuMs(pid);
      if (cpu !== undefined) lastCpu.set(pid, cpu);
    }
  };
  sample();
  const timer = setInterval(sample, sampleMs);
  let exitCode: number | null;
  try {
    exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (code) => resolve(code));
    });
  } finally {
    clearInterval(timer);
    proc.close();
  }
  const wallMs = performance.now() - started;
  const cpuAfter = childrenCpuMs();
  return {
    wallMs,
    cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
    peakTreeRssBytes: peak,
    processes: seen.size,
    nodeProcesses: [...names].filter(([pid, name]) => name === "node" && (nodeLooks.get(pid) ?? 0) >= 2).length,
    cpuByKind: child.pid === undefined ? {} : cpuByKind(child.pid, lastCpu, names),
    exitCode,
    stderrTail,
  };
}

/** Median of a non-empty list (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
