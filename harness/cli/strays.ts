/**
 * Ending what a run left running (issue 26: every way of stopping cleans up). A run's processes
 * are found three ways, so the sweep holds whatever spawned them: every process whose
 * environment carries the run's session temp directory as `TMPDIR` (each process of the run
 * inherits it, harness/cli/interrupt.ts), every process in the process group of such a process
 * (an agent started in its own group, as the ACP connection does, with the relay and its `cat`s),
 * and, when the run owns its process, every descendant of it and their groups. The run's own
 * process group is never signalled: a shell pipeline shares it.
 *
 * Linux reads `/proc`; elsewhere the table is empty and nothing is swept (temp files are still
 * removed).
 */
import { readdirSync, readFileSync } from "node:fs";

/** One row of the process table. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  /** `Z` for a zombie (already dead, only waiting to be reaped: never a target). */
  state: string;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), when known. */
  start?: number;
}

/** What the sweep needs from the machine (injected for tests). */
export interface ProcessTable {
  rows(): ProcessRow[];
  /** True when `pid`'s environment has `TMPDIR` equal to `session` or inside it. */
  marked(pid: number, session: string): boolean;
  kill(pid: number, signal: NodeJS.Signals): void;
}

/** Parses `/proc/<pid>/stat` (the command name may hold spaces and parentheses). */
export function parseStat(text: string): ProcessRow | undefined {
  const close = text.lastIndexOf(")");
  const pid = Number(text.slice(0, text.indexOf(" ")));
  const rest = text.slice(close + 2).split(" ");
  if (close < 0 || !Number.isInteger(pid) || rest.length < 3) return undefined;
  // Field 22 (starttime) is the 20th after the name.
  const start = rest.length > 19 ? Number(rest[19]) : undefined;
  return { pid, state: rest[0]!, ppid: Number(rest[1]), pgid: Number(rest[2]), ...(start !== undefined && Number.isFinite(start) ? { start } : {}) };
}

/** True when NUL-separated `environ` holds `TMPDIR=<session>` or `TMPDIR=<session>/…`. */
export function environHasSession(environ: string, session: string): boolean {
  const needle = `\0TMPDIR=${session}`;
  const text = `\0${environ}`;
  let at = text.indexOf(needle);
  while (at >= 0) {
    const next = text[at + needle.length];
    if (next === undefined || next === "\0" || next === "/") return true;
    at = text.indexOf(needle, at + 1);
  }
  return false;
}

/** The machine's table, from `/proc`. */
export const procTable: ProcessTable = {
  rows() {
    let names: string[];
    try {
      names = readdirSync("/proc").filter((n) => /^\d+$/.test(n));
    } catch {
      return [];
    }
    const rows: ProcessRow[] = [];
    for (const name of names) {
      try {
        const row = parseStat(readFileSync(`/proc/${name}/stat`, "utf8"));
        if (row !== undefined) rows.push(row);
      } catch {
        // gone meanwhile
      }
    }
    return rows;
  },
  marked(pid, session) {
    try {
      return environHasSession(readFileSync(`/proc/${pid}/environ`, "latin1"), session);
    } catch {
      return false;
    }
  },
  kill(pid, signal) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile, or not ours
    }
  },
};

/** Who runs the sweep: its own pid and group, and whether its descendants are all the run's. */
export interface SweepSelf {
  pid: number;
  pgid: number;
  /** The run owns this process (the `parity` executable): every descendant is the run's. */
  ownsProcess: boolean;
  /** This process's start time (clock ticks since boot): an older process cannot be the run's, so its environment is not read. */
  start?: number;
}

/** The pids of the run still alive in `rows` (see the module comment); never `self.pid`, never zombies. */
export function strayPids(rows: readonly ProcessRow[], self: SweepSelf, isMarked: (pid: number) => boolean): number[] {
  const alive = rows.filter((r) => r.state !== "Z" && r.pid !== self.pid);
  const ours = new Set<number>();
  if (self.ownsProcess) {
    const children = new Map<number, number[]>();
    for (const r of alive) children.set(r.ppid, [...(children.get(r.ppid) ?? []), r.pid]);
    const queue = [self.pid];
    while (queue.length > 0) {
      for (const child of children.get(queue.pop()!) ?? []) {
        if (ours.has(child)) continue;
        ours.add(child);
        queue.push(child);
      }
    }
  }
  const young = (r: ProcessRow) => self.start === undefined || r.start === undefined || r.start >= self.start;
  for (const r of alive) if (!ours.has(r.pid) && young(r) && isMarked(r.pid)) ours.add(r.pid);
  const groups = new Set(alive.filter((r) => ours.has(r.pid) && r.pgid !== self.pgid && r.pgid > 1).map((r) => r.pgid));
  for (const r of alive) if (groups.has(r.pgid)) ours.add(r.pid);
  return [...ours].sort((a, b) => a - b);
}

/** The pid and process group of this process (`pgid` 0 when unknown). */
export function currentSelf(ownsProcess: boolean): SweepSelf {
  let row: ProcessRow | undefined;
  try {
    row = parseStat(readFileSync("/proc/self/stat", "utf8"));
  } catch {
    row = undefined;
  }
  return { pid: process.pid, pgid: row?.pgid ?? 0, ownsProcess, ...(row?.start !== undefined ? { start: row.start } : {}) };
}

/** How many passes a sweep makes at most: a process may spawn another before it is killed. */
const SWEEP_PASSES = 20;

/**
 * Kills (SIGKILL) every process of the run that is still alive, pass after pass until a pass
 * finds none (at most {@link SWEEP_PASSES}); synchronous, so it can run in an `exit` handler.
 * Returns how many processes were signalled.
 */
export function endStrays(session: string, self: SweepSelf, table: ProcessTable = procTable): number {
  let signalled = 0;
  for (let pass = 0; pass < SWEEP_PASSES; pass += 1) {
    const pids = strayPids(table.rows(), self, (pid) => table.marked(pid, session));
    if (pids.length === 0) break;
    for (const pid of pids) table.kill(pid, "SIGKILL");
    signalled += pids.length;
  }
  return signalled;
}
