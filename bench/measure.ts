import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Memory figures in bytes (from `process.memoryUsage`). */
export interface MemoryFigures {
  rssBytes: number;
  heapUsedBytes: number;
}

/**
 * Tracks peak RSS and peak used heap by sampling `process.memoryUsage()` when asked.
 * Sampling is explicit (the caller samples every N items) because a timer cannot fire
 * during a synchronous feed loop.
 */
export interface MemorySampler {
  /** Takes one sample and updates the peaks. */
  sample(): void;
  /** Highest values seen since creation or the last {@link MemorySampler.resetPeaks}. */
  peaks(): MemoryFigures;
  /** Starts a new peak window (e.g. per checkpoint segment). */
  resetPeaks(): void;
}

/** Creates a {@link MemorySampler}; takes a first sample at once. */
export function createMemorySampler(): MemorySampler {
  let peak: MemoryFigures = { rssBytes: 0, heapUsedBytes: 0 };
  const sample = (): void => {
    const m = process.memoryUsage();
    peak = { rssBytes: Math.max(peak.rssBytes, m.rss), heapUsedBytes: Math.max(peak.heapUsedBytes, m.heapUsed) };
  };
  sample();
  return {
    sample,
    peaks: () => ({ ...peak }),
    resetPeaks: () => {
      peak = { rssBytes: 0, heapUsedBytes: 0 };
      sample();
    },
  };
}

/**
 * Returns a function that runs a full garbage collection and then reports the heap still in
 * use (bytes): the retained memory, which is what must stay flat as the input grows. Uses
 * `--expose-gc` set at run time so `npm run bench` needs no node flags.
 */
export function retainedHeapProbe(): () => number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  return () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
}

/** Formats bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
