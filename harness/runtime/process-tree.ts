/**
 * A process tree as Linux `/proc` shows it: the root and every descendant, each thread's
 * scheduler state and run count, and the wait the root's main thread sleeps in. Read by the
 * replay's idleness judgement (harness/replay/idleness/proc-judge.ts: is the bridge idle?) and
 * by the conformance waits' patience (patient-scheduler.ts: did the bridge run at all?), so the
 * tree is walked one way only: through `/proc/<pid>/task/<tid>/children`, never a scan of
 * every process on the machine.
 */
import { closeSync, openSync, readFileSync, readSync, readdirSync } from "node:fs";

/**
 * One thread of a process as `/proc/<pid>/task/<tid>/` shows it: its scheduler state letter
 * (`R` running or runnable, `S` sleeping, `D` uninterruptible wait, `Z` zombie, …), how
 * many times the kernel put it on a CPU (third field of `schedstat`; -1 when unknown) and how
 * long it ran in all (first field, ns; -1 when unknown). The count moves when the thread is put
 * on a CPU, the run time when it leaves one, so together they move for any run that began or
 * ended between two looks.
 */
export interface TaskSample {
  tid: number;
  state: string;
  timeslices: number;
  ranNs: number;
}

/**
 * A snapshot of a process tree (the bridge and every descendant): its threads and, for the
 * root's main thread, the timeout (ms) of the `epoll_wait` it sleeps in — -1 for none (it
 * waits for input only), `"other"` when it sleeps in any other call (a `write` to a full
 * pipe, a lock), `undefined` when `/proc` does not say (unreadable, not x86-64 or arm64).
 */
export interface TreeSample {
  tasks: TaskSample[];
  rootTimerMs: number | "other" | undefined;
}

/** Syscall numbers of `epoll_wait`, `epoll_pwait` and `epoll_pwait2` on x86-64 and arm64. */
const EPOLL_SYSCALLS: Record<string, { nr: ReadonlySet<number>; timeoutArg: number }> = {
  x64: { nr: new Set([232, 281, 441]), timeoutArg: 3 },
  arm64: { nr: new Set([22, 441]), timeoutArg: 3 },
};

/**
 * The state letter in the text of `/proc/<pid>/stat` (the field after the parenthesised
 * command name, which may itself contain spaces and parentheses); undefined when malformed.
 */
export function stateOfStat(text: string): string | undefined {
  const close = text.lastIndexOf(")");
  if (close === -1) return undefined;
  const state = text.slice(close + 2, close + 3);
  return state === "" ? undefined : state;
}

/** The number of times a thread ran (third field of `/proc/…/schedstat`), or -1. */
export function timeslicesOfSchedstat(text: string): number {
  const value = Number(text.trim().split(/\s+/)[2]);
  return Number.isFinite(value) ? value : -1;
}

/** How long a thread ran in all, in ns (first field of `/proc/…/schedstat`), or -1. */
export function ranNsOfSchedstat(text: string): number {
  const field = text.trim().split(/\s+/)[0] ?? "";
  const value = Number(field);
  return field !== "" && Number.isFinite(value) ? value : -1;
}

/**
 * The timeout in ms of an `epoll_wait`-family call in the text of `/proc/<pid>/syscall`
 * (`<nr> <arg0> … <arg5> <sp> <pc>`, hex arguments), -1 for an infinite wait, undefined
 * when the thread is not in such a call (or runs: the file then says `running`).
 */
export function epollTimeoutOfSyscall(text: string, arch: string = process.arch): number | undefined {
  const table = EPOLL_SYSCALLS[arch];
  const fields = text.trim().split(/\s+/);
  const nr = Number(fields[0]);
  if (!table || !Number.isInteger(nr) || !table.nr.has(nr)) return undefined;
  const raw = fields[1 + table.timeoutArg];
  if (raw === undefined) return undefined;
  // The argument is a C int printed as a 64-bit hex word: keep the low 32 bits, signed.
  const low = Number(BigInt.asIntN(32, BigInt(raw)));
  if (nr === 441) return low === 0 ? -1 : undefined; // epoll_pwait2 passes a timespec pointer; NULL = infinite
  return low < 0 ? -1 : low;
}

/**
 * The part of `/proc` a sampler reads: a file's text and a directory's entries, each undefined
 * when gone. The real one ({@link createProcSource}) keeps descriptors open; a test passes a
 * scripted one to put a thread's wake-up between any two reads of a look.
 */
export interface ProcSource {
  read(file: string): string | undefined;
  list(dir: string): string[] | undefined;
  /** Releases whatever the source keeps open. */
  close(): void;
}

/**
 * The pids one thread `tid` of `pid` started (`/proc/<pid>/task/<tid>/children`, read through
 * `proc`): the one parse of that file, for the sampler and {@link childrenOf}. [] when gone.
 */
export function taskChildren(proc: ProcSource, pid: number, tid: number | string): number[] {
  const text = proc.read(`/proc/${pid}/task/${tid}/children`);
  if (!text) return [];
  return text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "")
    .map(Number);
}

/**
 * The direct children of `pid` over all its threads (a process's children are listed under the
 * thread that started them), read through `proc`; [] once `pid` is gone. The tree is walked this
 * way only, never by a scan of every process on the machine (see the module comment). Used by
 * the bench's whole-process measurement (bench/process-tree.ts).
 */
export function childrenOf(proc: ProcSource, pid: number): number[] {
  return (proc.list(`/proc/${pid}/task`) ?? []).flatMap((tid) => taskChildren(proc, pid, tid));
}

/** Descriptors kept at most; past that all are closed and reopened on demand (threads come and go). */
const MAX_KEPT_FDS = 1024;

/**
 * The real `/proc`, read by descriptors kept open across samples (a `pread` at offset 0 renders
 * a file afresh): a replay samples the same few hundred files of its bridge's tree hundreds of
 * times, and opening and closing each one cost most of the sampling's CPU.
 */
export function createProcSource(): ProcSource {
  const fds = new Map<string, number>();
  const buffer = Buffer.allocUnsafe(4096);
  const forget = (file: string): void => {
    const fd = fds.get(file);
    fds.delete(file);
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already unusable
      }
    }
  };
  return {
    read(file) {
      let fd = fds.get(file);
      try {
        if (fd === undefined) {
          if (fds.size >= MAX_KEPT_FDS) this.close();
          fd = openSync(file, "r");
          fds.set(file, fd);
        }
        const length = readSync(fd, buffer, 0, buffer.length, 0);
        // A file larger than the buffer (a long children list) is read whole the slow way.
        return length < buffer.length ? buffer.toString("latin1", 0, length) : readFileSync(file, "latin1");
      } catch {
        // The thread or process is gone (ESRCH, ENOENT): its descriptor is of no further use.
        forget(file);
        return undefined;
      }
    },
    list(dir) {
      try {
        return readdirSync(dir);
      } catch {
        return undefined;
      }
    },
    close() {
      for (const file of [...fds.keys()]) forget(file);
    },
  };
}

/**
 * Looks at one process tree again and again (the bridge and every descendant), keeping the
 * `/proc` files it reads open between looks. {@link TreeSampler.close} releases them.
 */
export interface TreeSampler {
  /**
   * A snapshot of the tree (see {@link sampleTree}). With `untilBusy`, it stops at the first
   * thread that is not asleep (`S`), returning the threads read so far: such a snapshot can
   * only judge the tree busy ({@link settlementOf}), and a busy tree is looked at often.
   */
  sample(options?: { untilBusy?: boolean }): TreeSample | undefined;
  close(): void;
}

/**
 * The timeout of the epoll wait `root`'s main thread sleeps in (see {@link TreeSample.rootTimerMs}).
 */
function rootTimerOf(proc: ProcSource, root: number, arch: string): TreeSample["rootTimerMs"] {
  const text = proc.read(`/proc/${root}/task/${root}/syscall`);
  if (text === undefined || EPOLL_SYSCALLS[arch] === undefined) return undefined;
  return epollTimeoutOfSyscall(text, arch) ?? "other";
}

/**
 * A {@link TreeSampler} of `root` and its descendants (Linux `/proc`, or `options.proc`; `arch`
 * names the syscall table, default this process's).
 *
 * The root's wait is read first, before any thread's state and run count. A thread that woke
 * after its run count was read (its timer fired, say) and went back to sleep before a later
 * read of its wait would otherwise pair the old run count with the new wait: a bridge that
 * had a 3 ms timer due, ran it, wrote its last line and then slept without one looked idle
 * while that line was still unread (test/gate/determinism.test.ts under load; issue 25). Read
 * in this order, a wait is only trusted when the run count read after it has not moved since
 * the first look ({@link settlementOf}), so the thread slept in that very wait throughout.
 */
export function createTreeSampler(root: number, options: { proc?: ProcSource; arch?: string } = {}): TreeSampler {
  const proc = options.proc ?? createProcSource();
  const arch = options.arch ?? process.arch;
  return {
    sample(sampleOptions = {}) {
      const rootTimerMs = rootTimerOf(proc, root, arch);
      const tasks: TaskSample[] = [];
      // Breadth first from the root, each process's threads in /proc's order; a process's
      // children are listed under the thread that started them.
      const seen = new Set<number>();
      const queue = [root];
      while (queue.length > 0) {
        const pid = queue.shift()!;
        if (seen.has(pid)) continue;
        seen.add(pid);
        const tids = proc.list(`/proc/${pid}/task`);
        if (tids === undefined) {
          if (pid === root) return undefined;
          continue;
        }
        for (const tid of tids) {
          const state = stateOfStat(proc.read(`/proc/${pid}/task/${tid}/stat`) ?? "");
          if (state !== undefined && state !== "Z" && state !== "X") {
            const schedstat = proc.read(`/proc/${pid}/task/${tid}/schedstat`) ?? "";
            tasks.push({ tid: Number(tid), state, timeslices: timeslicesOfSchedstat(schedstat), ranNs: ranNsOfSchedstat(schedstat) });
            if (sampleOptions.untilBusy === true && state !== "S") return { tasks, rootTimerMs };
          }
          queue.push(...taskChildren(proc, pid, tid));
        }
      }
      return { tasks, rootTimerMs };
    },
    close: () => proc.close(),
  };
}

/**
 * Reads a snapshot of `root` and its descendants from `/proc` (Linux). Returns undefined
 * when `/proc` cannot tell (not Linux, or the root is gone); zombies are left out (they run
 * nothing, and their parent is woken to reap them). One look; a replay keeps a
 * {@link createTreeSampler} instead.
 */
export function sampleTree(root: number): TreeSample | undefined {
  const sampler = createTreeSampler(root);
  try {
    return sampler.sample();
  } finally {
    sampler.close();
  }
}

/**
 * A value that changes whenever any thread of the tree ran (or the tree gained or lost one):
 * each thread's id and run count, in tree order; undefined when `sample` is. Exact, unlike CPU
 * ticks of 10 ms, which a short run may not move.
 */
export function treeProgress(sample: TreeSample | undefined): string | undefined {
  return sample?.tasks.map((t) => `${t.tid}:${t.timeslices}`).join(" ");
}
