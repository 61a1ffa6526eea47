import { createDeltaAssembler, createThreadEventGrammar } from "../stack/assembler/index.js";
import type { ThreadEvent } from "../stack/protocol/thread-events.js";
import { replicateDeltaLines, type DeltaCorpus } from "./delta-source.js";
import { createMemorySampler, retainedHeapProbe } from "./measure.js";

/** Figures at one checkpoint of a streamed run. */
export interface AssemblerCheckpoint {
  /** Deltas fed so far. */
  deltas: number;
  /** `thread/delta` notifications fed so far. */
  lines: number;
  /** Thread events emitted so far (after the host grammar in the `pipeline` feed). */
  events: number;
  /** Wall time spent feeding so far, in ms (excludes the GC probes). */
  elapsedMs: number;
  /** Deltas per second over the whole run so far. */
  deltasPerSec: number;
  /** Deltas per second since the previous checkpoint. */
  segmentDeltasPerSec: number;
  /** CPU time (user + system) spent feeding so far, in ms: unlike wall time, not inflated by other processes. */
  cpuMs: number;
  /** Deltas per CPU second over the whole run so far. */
  deltasPerCpuSec: number;
  /** Peak RSS / used heap sampled since the previous checkpoint, bytes. */
  peakRssBytes: number;
  peakHeapBytes: number;
  /** Heap still in use after a full GC at this checkpoint, bytes: must stay flat. */
  retainedHeapBytes: number;
}

/**
 * What is fed:
 * - `assembler`: each replica's deltas as objects to `assemble` (which validates them with the
 *   grammar-v3 schemas, then assembles) — the assembler alone, the figure the target is for;
 * - `pipeline`: each raw line through JSON.parse, `assemble`, thread-id stamping and the host
 *   grammar (spec 10 §3), the path a thread lane takes; a replica's threads are released from
 *   the grammar (`clearThread`, as on `thread/stop{intent:"release"}`) when the next replica starts.
 */
export type FeedMode = "assembler" | "pipeline";

/** Options of {@link runAssemblerBench}. */
export interface AssemblerBenchOptions {
  mode: FeedMode;
  /** Delta counts at which to report; the last one is the total fed. Ascending. */
  checkpoints: number[];
  /** Sample memory every this many notifications (default 2048). */
  sampleEvery?: number;
}

/**
 * Streams replicas of the recorded bridge lanes through one delta assembler, one notification
 * at a time (see {@link FeedMode}), with each line's recorded time as the clock (spec 10 §2.13;
 * text batching off and the default 500 ms progress throttle, as the parity view uses, §6.1).
 * Only counters are kept, so retained memory must not grow with the input.
 */
export function runAssemblerBench(corpus: DeltaCorpus, options: AssemblerBenchOptions): AssemblerCheckpoint[] {
  const total = options.checkpoints.at(-1) ?? 0;
  const sampleEvery = options.sampleEvery ?? 2048;
  const retainedHeap = retainedHeapProbe();
  const memory = createMemorySampler();
  let now = 0;
  const assembler = createDeltaAssembler({ providerId: "bench", entropyPrefix: "bench", textDeltaFlushMs: 0, now: () => now });
  const grammar = createThreadEventGrammar();
  let replica = 0;
  const replicaThreads = new Set<string>();

  const feedPipeline = (line: string, lineReplica: number): number => {
    if (lineReplica !== replica) {
      for (const id of replicaThreads) grammar.clearThread(id);
      replicaThreads.clear();
      replica = lineReplica;
    }
    const params = (JSON.parse(line) as { params: { threadId: string; deltas: unknown[] } }).params;
    replicaThreads.add(params.threadId);
    let kept = 0;
    for (const raw of assembler.assemble(params)) {
      const event = { ...raw, threadId: params.threadId } as ThreadEvent;
      if (grammar.observe(event).ok) kept += 1;
    }
    return kept;
  };

  const results: AssemblerCheckpoint[] = [];
  const pending = [...options.checkpoints];
  let deltas = 0;
  let lines = 0;
  let events = 0;
  let feedMs = 0;
  let cpuMs = 0;
  let segmentStart = { deltas: 0, ms: 0 };
  let started = performance.now();
  let cpuStarted = process.cpuUsage();
  for (const generated of replicateDeltaLines(corpus, total)) {
    now = generated.ts;
    events += options.mode === "pipeline" ? feedPipeline(generated.line(), generated.replica) : assembler.assemble({ threadId: generated.threadId, deltas: generated.deltas }).length;
    deltas += generated.deltaCount;
    lines += 1;
    if (lines % sampleEvery === 0) memory.sample();
    const next = pending[0];
    if (next === undefined || deltas < next) continue;
    pending.shift();
    feedMs += performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);
    cpuMs += (cpu.user + cpu.system) / 1000;
    memory.sample();
    const peaks = memory.peaks();
    results.push({
      deltas,
      lines,
      events,
      elapsedMs: feedMs,
      deltasPerSec: deltas / (feedMs / 1000),
      segmentDeltasPerSec: (deltas - segmentStart.deltas) / ((feedMs - segmentStart.ms) / 1000),
      cpuMs,
      deltasPerCpuSec: deltas / (cpuMs / 1000),
      peakRssBytes: peaks.rssBytes,
      peakHeapBytes: peaks.heapUsedBytes,
      retainedHeapBytes: retainedHeap(),
    });
    segmentStart = { deltas, ms: feedMs };
    memory.resetPeaks();
    started = performance.now();
    cpuStarted = process.cpuUsage();
  }
  return results;
}
