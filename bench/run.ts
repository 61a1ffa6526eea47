import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatTable } from "../harness/cli/list.js";
import { runAssemblerBench, type AssemblerCheckpoint, type FeedMode } from "./assembler.js";
import { loadDeltaCorpus } from "./delta-source.js";
import { mib } from "./measure.js";

/**
 * `npm run bench` (compiled to dist/bench/run.js): the assembler throughput benchmark on the
 * real acp-cursor current bridge lanes, replicated and streamed to 1,000,000 deltas, with
 * checkpoints at 1/4, 1/2 and all of the total to show memory stays flat. Prints a table and one
 * JSON line `{"bench":"assembler",...}`. Later benches (replay) are sibling modules run from here.
 *
 * Flags: `--deltas N` (total, default 1,000,000), `--recordings <dir>` (a provider directory,
 * default ../shared/recordings/acp-cursor beside the package root), `--feed assembler|pipeline`
 * (default both). Exit 0 when the assembler feed meets the target, 1 when not, 2 on bad flags.
 */

/** Throughput the assembler must reach, in deltas per second (issue 2). */
export const TARGET_DELTAS_PER_SEC = 300_000;

/** The feed modes run by default, in order; the throughput target applies to `assembler`. */
const MODES: readonly FeedMode[] = ["assembler", "pipeline"];

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

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

async function main(argv: string[]): Promise<number> {
  const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const total = Number(flag(argv, "--deltas") ?? 1_000_000);
  if (!Number.isInteger(total) || total < 4) throw new Error("--deltas must be an integer ≥ 4");
  const feed = flag(argv, "--feed");
  if (feed !== undefined && !MODES.includes(feed as FeedMode)) throw new Error(`--feed must be one of ${MODES.join(", ")}`);
  const modes = feed === undefined ? MODES : [feed as FeedMode];
  const root = path.resolve(flag(argv, "--recordings") ?? path.join(packageRoot, "../shared/recordings/acp-cursor"));
  const corpus = await loadDeltaCorpus(root);
  const checkpoints = [total / 4, total / 2, total].map(Math.round);
  process.stdout.write(
    `assembler bench: ${corpus.templates.length} thread/delta lines (${corpus.deltasPerReplica} deltas) per replica ` +
      `from ${corpus.sources.length} current lanes under ${root}; streaming ${rate(total)} deltas per feed\n`,
  );
  const runs = modes.map((mode) => ({ mode, rows: runAssemblerBench(corpus, { mode, checkpoints }) }));
  process.stdout.write(renderTable(runs));
  const summaries = runs.map(({ mode, rows }) => summarize(mode, rows));
  for (const s of summaries) {
    process.stdout.write(
      `${s.mode}: ${rate(s.deltasPerSec)} deltas/s wall, ${rate(s.deltasPerCpuSec)} deltas/cpu-s; peak rss ${mib(s.peakRssBytes)}; ` +
        `retained heap growth ${rate(checkpoints[0] ?? 0)}→${rate(s.deltas)} deltas: ${mib(s.retainedHeapGrowthBytes)}\n`,
    );
  }
  const assembler = summaries.find((s) => s.mode === "assembler");
  const metWall = assembler !== undefined && assembler.deltasPerSec >= TARGET_DELTAS_PER_SEC;
  const metCpu = assembler !== undefined && assembler.deltasPerCpuSec >= TARGET_DELTAS_PER_SEC;
  if (assembler !== undefined) {
    process.stdout.write(
      `target ≥ ${rate(TARGET_DELTAS_PER_SEC)} deltas/s (assembler feed): wall ${metWall ? "met" : "NOT met"}, cpu ${metCpu ? "met" : "NOT met"}\n`,
    );
  }
  const json = {
    bench: "assembler",
    node: process.version,
    replicaDeltas: corpus.deltasPerReplica,
    targetDeltasPerSec: TARGET_DELTAS_PER_SEC,
    targetMetWall: metWall,
    targetMetCpu: metCpu,
    runs: summaries,
  };
  process.stdout.write(`${JSON.stringify(json)}\n`);
  return assembler === undefined || metWall ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  return 2;
});
