/**
 * A safety net for `parity record` cleanup: after the bridge is gone, any process still
 * working inside the run's temp root (an agent or a command it spawned, orphaned when the
 * bridge was killed) is found by its working directory and killed by pid. Linux `/proc`
 * only; elsewhere it finds nothing.
 */
import { readdirSync, readlinkSync } from "node:fs";
import path from "node:path";

/** Pids (not this process) whose working directory is `root` or below it. */
export function processesWorkingIn(root: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd === root || cwd.startsWith(prefix)) found.push(Number(entry));
    } catch {
      // Gone, or not ours to inspect.
    }
  }
  return found;
}

/** SIGKILLs every process working under `root` (see {@link processesWorkingIn}); returns their pids. */
export function killProcessesWorkingIn(root: string): number[] {
  const pids = processesWorkingIn(root);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already exited.
    }
  }
  return pids;
}
