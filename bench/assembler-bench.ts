import path from "node:path";
import { formatTable } from "../harness/report/table.js";
import { runAssemblerBench, type AssemblerCheckpoint, type FeedMode } from "./assembler.js";
import type { Bench } from "./bench.js";
import { loadDeltaCorpus } from "./delta-source.js";
import { mib } from "./measure.js";

/** Throughput the assembler must reach, in deltas per second. (README.md, benchmarks) */
export const TARGET_DELTAS_PER_SEC = 300_000;

/** Deltas fed to a throwaway assembler before each measured feed. */
const WARM_UP_DELTAS = 50_000;

/** The feed modes run by default, in order; the throughput target applies to `assembler`. */
const MODES: readonly FeedMode[] = ["assembler", "pipeline"];

const rate = (n: number): string => Math.round(n).toLocaleString("en-US");

function renderTable(runs: { mode: FeedMode; rows: AssemblerCheckpoint[] }[]): string {
  const header = ["feed", "deltas", "events", "wall", "deltas/s", "segment/s", "cpu", "deltas/cpu-s", "peak rss", "peak heap", "retained heap"];
  const body = runs.flatMap(({ mode, rows }) =>
    rows.map((r) => [
      mode,
      rate(r.deltas),
      rate(r.events),
      `${(r.elapsedMs / 1000).toFixed(2)} s`,
      rate(r.deltasPerSec),
      rate(r.segmentDeltasPerSec),
      `${(r.cpuMs / 1000).toFixed(2)} s`,
      rate(r.deltasPerCpuSec),
      mib(r.peakRssBytes),
      mib(r.peakHeapBytes),
      mib(r.retainedHeapBytes),
    ]),
  );
  return formatTable([header, ...body]);
}

/** One feed's headline figures for the JSON line. */
function summarize(mode: FeedMode, rows: AssemblerCheckpoint[]) {
  const first = rows[0];
  const last = rows.at(-1);
  return {
    mode,
    deltas: last?.deltas ?? 0,
    deltasPerSec: Math.round(last?.deltasPerSec ?? 0),
    deltasPerCpuSec: Math.round(last?.deltasPerCpuSec ?? 0),
    peakRssBytes: Math.max(0, ...rows.map((r) => r.peakRssBytes)),
    peakHeapBytes: Math.max(0, ...rows.map((r) => r.peakHeapBytes)),
    retainedHeapGrowthBytes: (last?.retainedHeapBytes ?? 0) - (first?.retainedHeapBytes ?? 0),
    checkpoints: rows.map((r) => ({
      deltas: r.deltas,
      events: r.events,
      elapsedMs: Math.round(r.elapsedMs),
      cpuMs: Math.round(r.cpuMs),
      deltasPerSec: Math.round(r.deltasPerSec),
      deltasPerCpuSec: Math.round(r.deltasPerCpuSec),
      peakRssBytes: r.peakRssBytes,
      peakHeapBytes: r.peakHeapBytes,
      retainedHeapBytes: r.retainedHeapBytes,
    })),
  };
}

/**
 * The assembler throughput benchmark: the real acp-cursor current bridge lanes,
 * replicated and streamed to `--deltas` (default 1,000,000) deltas per feed, with checkpoints at
 * 1/4, 1/2 and all of it to show memory stays flat. Flags: `--deltas N`, `--recordings <dir>`
 * (a provider directory; default ../shared/recordings/acp-cursor beside the package root),
 * `--feed assembler|pipeline` (default both). The target is met when the assembler feed's
 * wall-clock rate reaches {@link TARGET_DELTAS_PER_SEC}.
 */
export const assemblerBench: Bench = {
  name: "assembler",
  flags: ["--deltas", "--recordings", "--feed"],
  async run({ values, packageRoot, print }) {
    const total = Number(values.get("--deltas") ?? 1_000_000);
    if (!Number.isInteger(total) || total < 4) throw new Error("--deltas must be an integer ≥ 4");
    const feed = values.get("--feed");
    if (feed !== undefined && !MODES.includes(feed as FeedMode)) throw new Error(`--feed must be one of ${MODES.join(", ")}`);
    const modes = feed === undefined ? MODES : [feed as FeedMode];
    const root = path.resolve(values.get("--recordings") ?? path.join(packageRoot, "../shared/recordings/acp-cursor"));
    const corpus = await loadDeltaCorpus(root);
    const checkpoints = [total / 4, total / 2, total].map(Math.round);
    print(
      `assembler bench: ${corpus.templates.length} thread/delta lines (${corpus.deltasPerReplica} deltas) per replica ` +
        `from ${corpus.sources.length} current lanes under ${root}; streaming ${rate(total)} deltas per feed after a ${rate(WARM_UP_DELTAS)}-delta warm-up\n`,
    );
    const runs = modes.map((mode) => {
      // Warm the JIT on a throwaway assembler so the first checkpoint measures steady state.
      runAssemblerBench(corpus, { mode, checkpoints: [Math.min(WARM_UP_DELTAS, total)] });
      return { mode, rows: runAssemblerBench(corpus, { mode, checkpoints }) };
    });
    print(renderTable(runs));
    const summaries = runs.map(({ mode, rows }) => summarize(mode, rows));
    for (const s of summaries) {
      print(
        `${s.mode}: ${rate(s.deltasPerSec)} deltas/s wall, ${rate(s.deltasPerCpuSec)} deltas/cpu-s; peak rss ${mib(s.peakRssBytes)}; ` +
          `retained heap growth ${rate(checkpoints[0] ?? 0)}→${rate(s.deltas)} deltas: ${mib(s.retainedHeapGrowthBytes)}\n`,
      );
    }
    const assembler = summaries.find((s) => s.mode === "assembler");
    const metWall = assembler !== undefined && assembler.deltasPerSec >= TARGET_DELTAS_PER_SEC;
    const metCpu = assembler !== undefined && assembler.deltasPerCpuSec >= TARGET_DELTAS_PER_SEC;
    if (assembler !== undefined) {
      print(`target ≥ ${rate(TARGET_DELTAS_PER_SEC)} deltas/s (assembler feed): wall ${metWall ? "met" : "NOT met"}, cpu ${metCpu ? "met" : "NOT met"}\n`);
    }
    return {
      json: {
        bench: "assembler",
        node: process.version,
        replicaDeltas: corpus.deltasPerReplica,
        targetDeltasPerSec: TARGET_DELTAS_PER_SEC,
        targetMetWall: metWall,
        targetMetCpu: metCpu,
        runs: summaries,
      },
      targetMet: assembler === undefined || metWall,
    };
  },
};
