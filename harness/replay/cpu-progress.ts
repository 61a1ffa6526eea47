import { readFileSync } from "node:fs";

/**
 * Reads the CPU time a process has used, for telling a busy bridge from a stuck one
 * (00-product.md, Determinism: timeouts only detect divergence). On a loaded machine a bridge
 * starved of CPU can stay silent longer than the quiet period while still working; before a
 * silence is declared a divergence, the scheduler checks whether the bridge used CPU over a
 * short probe period. Reads `/proc/<pid>/stat` (utime + stime, in clock ticks); where that
 * does not exist (not Linux) or the process is gone it returns undefined, and the plain
 * quiet period applies.
 */
export function createCpuTimeReader(pid: number | undefined): () => number | undefined {
  return () => {
    if (pid === undefined) return undefined;
    try {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      const ticks = Number(fields[11]) + Number(fields[12]);
      return Number.isFinite(ticks) ? ticks : undefined;
    } catch {
      return undefined;
    }
  };
}
