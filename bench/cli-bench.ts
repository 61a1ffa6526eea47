import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { listRecordings } from "../harness/recording/reader.js";
import { positiveInt, type Bench, type BenchFlags } from "./bench.js";
import { makeSyntheticRecordings } from "./make-synthetic.js";
import { mib } from "./measure.js";
import { measureProcess, median, type ProcessCommand, type ProcessRun } from "./process-tree.js";

/** `parity --version` may take at most this many times a bare `node -e 0` (median of the same run). */
export const TARGET_VERSION_RATIO = 4;
/** Wall time of a cold `parity check` of the seven real cursor cells, median, ms. */
export const TARGET_CURSOR_CHECK_MS = 1000;
/** Wall time of the whole committed matrix per 30 cells, median, ms. */
export const TARGET_MATRIX_MS_PER_30_CELLS = 3000;

/** Most memory `parity check` of the largest synthetic recording may use, summed over its process tree, bytes. */
export const TARGET_SYNTHETIC_RSS_BYTES = 300 * 1024 * 1024;
/** Largest ratio of marginal ms per line (last pair of sizes ÷ first pair) that still reads as flat. */
export const SYNTHETIC_FLATNESS_LIMIT = 1.5;

/** One measured command and its runs. */
interface Measured {
  label: string;
  runs: ProcessRun[];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const loads = (): string => loadavg().map((l) => l.toFixed(2)).join(" / ");

/** Medians of one command's runs. */
function summary(m: Measured) {
  const walls = m.runs.map((r) => r.wallMs);
  const cpus = m.runs.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs]));
  return {
    label: m.label,
    wallMs: median(walls),
    minMs: Math.min(...walls),
    maxMs: Math.max(...walls),
    cpuMs: cpus.length > 0 ? median(cpus) : undefined,
    peakTreeRssBytes: median(m.runs.map((r) => r.peakTreeRssBytes)),
    processes: median(m.runs.map((r) => r.processes)),
    nodeProcesses: median(m.runs.map((r) => r.nodeProcesses)),
  };
}

/** Thread and process cells under the project's `recordings/` (the committed matrix). */
async function committedCells(packageRoot: string): Promise<number> {
  return (await listRecordings([path.join(packageRoot, "recordings")])).length;
}

/**
 * Whether time grows linearly with lines: the marginal wall time per line between the last two
 * sizes divided by that between the first two (start-up, a fixed cost, cancels out); undefined
 * with fewer than three sizes.
 */
function marginalFlatness(runs: ReadonlyArray<{ lines: number; wallMs: number }>): number | undefined {
  if (runs.length < 3) return undefined;
  const slope = (a: { lines: number; wallMs: number }, b: { lines: number; wallMs: number }): number => (b.wallMs - a.wallMs) / (b.lines - a.lines);
  return slope(runs.at(-2)!, runs.at(-1)!) / slope(runs[0]!, runs[1]!);
}

/**
 * Writes synthetic echo recordings of each size (`make-synthetic.ts`) and times one whole
 * `parity check` of each from outside; the recordings are removed afterwards.
 */
async function syntheticChecks(flags: BenchFlags, parity: string, sizes: readonly number[]): Promise<Array<ProcessRun & { lines: number }>> {
  if (sizes.length === 0) return [];
  const root = await mkdtemp(path.join(tmpdir(), "parity-bench-synthetic-"));
  try {
    flags.print(`cli: writing synthetic recordings of ${sizes.join(", ")} lines\n`);
    await makeSyntheticRecordings(root, sizes);
    const runs: Array<ProcessRun & { lines: number }> = [];
    for (const lines of sizes) {
      flags.print(`cli: parity check of the ${lines}-line synthetic recording\n`);
      const run = await measureProcess({ command: process.execPath, args: [parity, "check", "--recordings", root, "--cell", `synthetic-${lines}`], cwd: flags.packageRoot });
      if (run.exitCode !== 0) throw new Error(`parity check of synthetic-${lines} exited ${run.exitCode}: ${run.stderrTail.trim().split("\n").at(-1) ?? ""}`);
      runs.push({ ...run, lines });
    }
    return runs;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * `bench cli`: whole processes timed from outside, as users run them (spawn → exit; wall,
 * CPU of the process tree, peak summed RSS of the tree sampled from `/proc`), one warm-up
 * then `--cli-reps` (5) rounds, each round running every command once in turn so load
 * drifting during the bench hits all of them alike. Prints a Markdown table (the README's
 * whole-process table) headed by the date, Node version, cores and the load average at the
 * start and the end. Targets: `parity --version` ≤ 4 × `node -e 0`; the seven real cursor
 * cells ≤ 1.0 s; the committed matrix ≤ 3 s per 30 cells. Then `parity check` of synthetic echo
 * recordings of `--cli-lines` (10 000, 50 000, 200 000) lines, one run each (`make-synthetic.ts`):
 * the largest within 300 MiB over the process tree, and time linear in lines
 * ({@link marginalFlatness} ≤ 1.5).
 */
export const cliBench: Bench = {
  name: "cli",
  flags: ["--cli-reps", "--cli-lines"],
  async run(flags) {
    const reps = positiveInt(flags, "--cli-reps", 5);
    const sizes = (flags.values.get("--cli-lines") ?? "10000,50000,200000").split(",").map((text) => {
      const n = Number(text);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--cli-lines ${text}: expected comma-separated whole numbers ≥ 1`);
      return n;
    });
    const root = flags.packageRoot;
    const parity = path.join(root, "bin/parity.js");
    const shared = path.resolve(root, "../shared/recordings");
    const node = (args: string[]): ProcessCommand => ({ command: process.execPath, args, cwd: root });
    const cells = await committedCells(root);
    const commands: Array<{ label: string; cmd: ProcessCommand }> = [
      { label: "`node -e 0`", cmd: node(["-e", "0"]) },
      { label: "`parity --version`", cmd: node([parity, "--version"]) },
      ...(existsSync(path.join(shared, "acp-cursor"))
        ? [{ label: "`parity check --recordings ../shared/recordings --provider acp-cursor` (7 real cursor cells)", cmd: node([parity, "check", "--recordings", shared, "--provider", "acp-cursor"]) }]
        : []),
      { label: `\`parity check\` (committed matrix, ${cells} cells)`, cmd: node([parity, "check"]) },
    ];
    const started = new Date();
    const loadBefore = loads();
    flags.print(`cli: warm-up, then ${reps} rounds of ${commands.length} commands\n`);
    const measured: Measured[] = commands.map((c) => ({ label: c.label, runs: [] }));
    for (let round = 0; round <= reps; round += 1) {
      for (const [i, c] of commands.entries()) {
        const run = await measureProcess(c.cmd);
        if (run.exitCode !== 0) throw new Error(`${c.label} exited ${run.exitCode}: ${run.stderrTail.trim().split("\n").at(-1) ?? ""}`);
        if (round > 0) measured[i]!.runs.push(run);
      }
    }
    const synthetic = await syntheticChecks(flags, parity, sizes);
    const loadAfter = loads();
    const rows = measured.map(summary);
    const bare = rows[0]!;
    const version = rows[1]!;
    const cursor = rows.find((r) => r.label.includes("acp-cursor"));
    const matrix = rows.at(-1)!;
    const versionRatio = version.wallMs / bare.wallMs;
    const matrixPer30 = (matrix.wallMs / cells) * 30;
    const target = (r: (typeof rows)[number]): string => {
      if (r === version) return `≤ ${TARGET_VERSION_RATIO}× \`node -e 0\` (${versionRatio.toFixed(1)}×)`;
      if (r === cursor) return `≤ ${seconds(TARGET_CURSOR_CHECK_MS)}`;
      if (r === matrix) return `≤ ${seconds(TARGET_MATRIX_MS_PER_30_CELLS)} per 30 cells (${seconds(matrixPer30)})`;
      return "";
    };
    const largest = synthetic.at(-1);
    const flatness = marginalFlatness(synthetic);
    const table = [
      `Measured ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${availableParallelism()} cores, load average (1/5/15 min) ${loadBefore} at the start, ${loadAfter} at the end; median of ${reps} after a warm-up.`,
      "",
      "| command (whole process, from outside) | wall, median (min–max) | CPU user+sys | peak RSS, process tree | processes (of them Node) | target |",
      "|---|---|---|---|---|---|",
      ...rows.map(
        (r) =>
          `| ${r.label} | **${seconds(r.wallMs)}** (${seconds(r.minMs)}–${seconds(r.maxMs)}) | ${r.cpuMs === undefined ? "n/a" : seconds(r.cpuMs)} | ${mib(r.peakTreeRssBytes)} | ${r.processes} (${r.nodeProcesses}) | ${target(r)} |`,
      ),
      ...synthetic.map(
        (r) =>
          `| \`parity check\` of a synthetic echo recording, ${r.lines.toLocaleString("en-US")} lines (one run) | **${seconds(r.wallMs)}** (${((r.wallMs / r.lines) * 1000).toFixed(0)} ms per 1k lines) | ${r.cpuMs === undefined ? "n/a" : seconds(r.cpuMs)} | ${mib(r.peakTreeRssBytes)} | ${r.processes} (${r.nodeProcesses}) | ${r === largest ? `≤ ${mib(TARGET_SYNTHETIC_RSS_BYTES)}; marginal ms per line, last sizes ÷ first, ≤ ${SYNTHETIC_FLATNESS_LIMIT} (${flatness === undefined ? "n/a" : flatness.toFixed(2)})` : ""} |`,
      ),
    ].join("\n");
    flags.print(`${table}\n`);
    const met = {
      version: versionRatio <= TARGET_VERSION_RATIO,
      cursor: cursor === undefined || cursor.wallMs <= TARGET_CURSOR_CHECK_MS,
      matrix: matrixPer30 <= TARGET_MATRIX_MS_PER_30_CELLS,
      syntheticMemory: largest === undefined || largest.peakTreeRssBytes <= TARGET_SYNTHETIC_RSS_BYTES,
      syntheticFlat: flatness === undefined || flatness <= SYNTHETIC_FLATNESS_LIMIT,
    };
    return {
      json: {
        bench: "cli",
        date: started.toISOString(),
        node: process.version,
        cores: availableParallelism(),
        loadBefore,
        loadAfter,
        reps,
        rows: rows.map((r) => ({ ...r, wallMs: Math.round(r.wallMs), minMs: Math.round(r.minMs), maxMs: Math.round(r.maxMs), cpuMs: r.cpuMs === undefined ? null : Math.round(r.cpuMs) })),
        versionRatio: Number(versionRatio.toFixed(2)),
        matrixMsPer30Cells: Math.round(matrixPer30),
        synthetic: synthetic.map((r) => ({ lines: r.lines, wallMs: Math.round(r.wallMs), cpuMs: r.cpuMs ?? null, peakTreeRssBytes: r.peakTreeRssBytes, processes: r.processes, nodeProcesses: r.nodeProcesses })),
        syntheticFlatness: flatness === undefined ? null : Number(flatness.toFixed(2)),
        met,
      },
      targetMet: Object.values(met).every(Boolean),
    };
  },
};
