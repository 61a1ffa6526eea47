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

/*
 * Targets are ratios to a bare `node -e 0` measured in the same run (median wall or CPU of the
 * same rounds), so they hold on any machine and any share of it: the load moves both sides.
 */
/** `parity --version` wall ≤ this many times `node -e 0`'s. */
export const TARGET_VERSION_RATIO = 2;
/** A cold `parity check` of the seven real cursor cells: wall ≤ this many times `node -e 0`'s. */
export const TARGET_CURSOR_WALL_RATIO = 7;
/** The same check: CPU of its process tree ≤ this many times `node -e 0`'s CPU. */
export const TARGET_CURSOR_CPU_RATIO = 10;
/** The whole committed matrix: wall per 30 cells ≤ this many times `node -e 0`'s wall. */
export const TARGET_MATRIX_WALL_RATIO_PER_30_CELLS = 25;
/** Processes the cursor check may start (its own included): one CLI, one bridge, one stand-in per agent session. */
export const TARGET_CURSOR_PROCESSES = 12;
/** Processes the committed matrix may start. */
export const TARGET_MATRIX_PROCESSES = 120;

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
const loads = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

/** Medians of one command's runs. */
function summary(m: Measured) {
  const walls = m.runs.map((r) => r.wallMs);
  const cpus = m.runs.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs]));
  return {
    label: m.label,
    runs: m.runs.length,
    wallMs: median(walls),
    minMs: Math.min(...walls),
    maxMs: Math.max(...walls),
    cpuMs: cpus.length > 0 ? median(cpus) : undefined,
    peakTreeRssBytes: median(m.runs.map((r) => r.peakTreeRssBytes)),
    processes: median(m.runs.map((r) => r.processes)),
    failedRuns: m.runs.filter((r) => r.exitCode !== 0).length,
    nodeProcesses: median(m.runs.map((r) => r.nodeProcesses)),
    cpuSplitMs: medianSplit(m.runs),
  };
}

/** Per kind of process (`ProcessRun.cpuByKind`), the median over the runs (a run without that kind counts 0). */
function medianSplit(runs: readonly ProcessRun[]): Record<string, number> {
  const kinds = [...new Set(runs.flatMap((r) => Object.keys(r.cpuByKind)))];
  return Object.fromEntries(kinds.map((kind) => [kind, median(runs.map((r) => r.cpuByKind[kind] ?? 0))]));
}

/** `self 1.20 s · node 0.60 s · perl 0.10 s`: the command's own process first, then the largest. */
function splitText(split: Record<string, number>): string {
  const entries = Object.entries(split).sort(([a, x], [b, y]) => (a === "self" ? -1 : b === "self" ? 1 : y - x));
  return entries.length === 0 ? "n/a" : entries.map(([kind, ms]) => `${kind} ${seconds(ms)}`).join(" · ");
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

type Row = ReturnType<typeof summary>;

/** `a / b`, or 0 when `b` is 0 (a machine too coarse to time `node -e 0`). */
const ratio = (a: number, b: number): number => (b > 0 ? a / b : 0);
const times = (x: number): string => `${x.toFixed(1)}×`;

/** The ratios the targets are stated in, and which targets each row meets. */
interface Verdict {
  bare: Row;
  ratios: { versionWall: number; cursorWall: number | null; cursorCpu: number | null; matrixWallPer30: number; cursorProcesses: number | null; matrixProcesses: number };
  met: Record<"version" | "cursorWall" | "cursorCpu" | "cursorProcesses" | "matrixWall" | "matrixProcesses", boolean>;
  /** The target column of a row ("" for none). */
  targetOf(row: Row): string;
}

/**
 * Judges the rows against the targets, every figure as a ratio to the first row (`node -e 0`):
 * `--version` wall, the cursor check's wall and CPU, the matrix's wall per 30 cells; and the
 * process counts of the two checks.
 */
function judge(rows: readonly Row[], cells: number): Verdict {
  const bare = rows[0]!;
  const version = rows[1]!;
  const cursor = rows.find((r) => r.label.includes("acp-cursor"));
  const matrix = rows.at(-1)!;
  const cpuRatio = (r: Row): number | null => (r.cpuMs === undefined || bare.cpuMs === undefined ? null : ratio(r.cpuMs, bare.cpuMs));
  const ratios = {
    versionWall: ratio(version.wallMs, bare.wallMs),
    cursorWall: cursor ? ratio(cursor.wallMs, bare.wallMs) : null,
    cursorCpu: cursor ? cpuRatio(cursor) : null,
    matrixWallPer30: ratio((matrix.wallMs / cells) * 30, bare.wallMs),
    cursorProcesses: cursor ? cursor.processes : null,
    matrixProcesses: matrix.processes,
  };
  const met = {
    version: ratios.versionWall <= TARGET_VERSION_RATIO,
    cursorWall: ratios.cursorWall === null || ratios.cursorWall <= TARGET_CURSOR_WALL_RATIO,
    cursorCpu: ratios.cursorCpu === null || ratios.cursorCpu <= TARGET_CURSOR_CPU_RATIO,
    cursorProcesses: ratios.cursorProcesses === null || ratios.cursorProcesses <= TARGET_CURSOR_PROCESSES,
    matrixWall: ratios.matrixWallPer30 <= TARGET_MATRIX_WALL_RATIO_PER_30_CELLS,
    matrixProcesses: ratios.matrixProcesses <= TARGET_MATRIX_PROCESSES,
  };
  const mark = (ok: boolean): string => (ok ? "met" : "**missed**");
  const targetOf = (r: Row): string => {
    if (r === version) return `wall ≤ ${TARGET_VERSION_RATIO}×: ${mark(met.version)}`;
    if (r === cursor)
      return `wall ≤ ${TARGET_CURSOR_WALL_RATIO}×: ${mark(met.cursorWall)}; CPU ≤ ${TARGET_CURSOR_CPU_RATIO}×: ${mark(met.cursorCpu)}; ≤ ${TARGET_CURSOR_PROCESSES} processes: ${mark(met.cursorProcesses)}`;
    if (r === matrix)
      return `wall per 30 cells ≤ ${TARGET_MATRIX_WALL_RATIO_PER_30_CELLS}× (${times(ratios.matrixWallPer30)}): ${mark(met.matrixWall)}; ≤ ${TARGET_MATRIX_PROCESSES} processes: ${mark(met.matrixProcesses)}`;
    return "";
  };
  return { bare, ratios, met, targetOf };
}

/** The environment variable naming extra CA certificates, which every Node process parses at start. */
const EXTRA_CA_ENV = "NODE_EXTRA_CA_CERTS";

/** `env` without {@link EXTRA_CA_ENV} (a copy; `env` is not changed). */
function withoutExtraCa(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy[EXTRA_CA_ENV];
  return copy;
}

/** The README's table: ratios to `node -e 0` first, seconds second. */
function ratioTable(rows: readonly Row[], verdict: Verdict): string[] {
  const bare = verdict.bare;
  return [
    "| command (whole process, from outside) | wall ÷ `node -e 0` | CPU ÷ `node -e 0` | wall, median (min–max) | CPU user+sys | CPU by process, sampled | peak RSS, process tree | processes (of them Node) | target |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows.map((r) => {
      const cpu = r.cpuMs === undefined || bare.cpuMs === undefined ? "n/a" : times(ratio(r.cpuMs, bare.cpuMs));
      const failed = r.failedRuns > 0 ? ` (exit 1 in ${r.failedRuns} of ${r.runs} runs: cells failed)` : "";
      return `| ${r.label}${failed} | **${times(ratio(r.wallMs, bare.wallMs))}** | **${cpu}** | ${seconds(r.wallMs)} (${seconds(r.minMs)}–${seconds(r.maxMs)}) | ${r.cpuMs === undefined ? "n/a" : seconds(r.cpuMs)} | ${splitText(r.cpuSplitMs)} | ${mib(r.peakTreeRssBytes)} | ${r.processes} (${r.nodeProcesses}) | ${verdict.targetOf(r)} |`;
    }),
  ];
}

/** The synthetic recordings' rows (seconds: their targets are memory and flatness), none when skipped. */
function syntheticTable(synthetic: ReadonlyArray<ProcessRun & { lines: number }>, flatness: number | undefined): string[] {
  if (synthetic.length === 0) return [];
  const largest = synthetic.at(-1);
  return [
    "",
    "| `parity check` of a synthetic echo recording (one run) | wall | CPU user+sys | peak RSS, process tree | processes (of them Node) | target |",
    "|---|---|---|---|---|---|",
    ...synthetic.map(
      (r) =>
        `| ${r.lines.toLocaleString("en-US")} lines | **${seconds(r.wallMs)}** (${((r.wallMs / r.lines) * 1000).toFixed(0)} ms per 1k lines) | ${r.cpuMs === undefined ? "n/a" : seconds(r.cpuMs)} | ${mib(r.peakTreeRssBytes)} | ${r.processes} (${r.nodeProcesses}) | ${r === largest ? `≤ ${mib(TARGET_SYNTHETIC_RSS_BYTES)}; marginal ms per line, last sizes ÷ first, ≤ ${SYNTHETIC_FLATNESS_LIMIT} (${flatness === undefined ? "n/a" : flatness.toFixed(2)})` : ""} |`,
    ),
  ];
}

/**
 * `bench cli`: whole processes timed from outside, as users run them (spawn → exit; wall,
 * CPU of the process tree, peak summed RSS of the tree sampled from `/proc`), one warm-up
 * then `--cli-reps` (5) rounds, each round running every command once in turn so load
 * drifting during the bench hits all of them alike. Prints a Markdown table (the README's
 * whole-process table) headed by the date, Node version, cores and the load average at the
 * start and the end, every figure first as a ratio to `node -e 0` of the same rounds (wall and
 * CPU), and beside each row the CPU by kind of process (`ProcessRun.cpuByKind`: the command
 * itself, the bridges, the relays). Targets: `parity --version` wall ≤ 2×; the seven real cursor cells wall ≤ 7× and CPU
 * ≤ 10×, ≤ 12 processes; the committed matrix wall ≤ 25× per 30 cells, ≤ 120 processes. Then
 * `parity check` of synthetic echo recordings of `--cli-lines` (10 000, 50 000, 200 000; `none`
 * skips them) lines, one run each; `--cli-shared <dir>` (default `../shared/recordings`) holds the
 * real cursor recordings. A check that exits 1 (cells failed) is still timed and marked so (`make-synthetic.ts`):
 * the largest within 300 MiB over the process tree, and time linear in lines
 * ({@link marginalFlatness} ≤ 1.5).
 */
export const cliBench: Bench = {
  name: "cli",
  flags: ["--cli-reps", "--cli-lines", "--cli-shared"],
  async run(flags) {
    const reps = positiveInt(flags, "--cli-reps", 5);
    const linesFlag = flags.values.get("--cli-lines") ?? "10000,50000,200000";
    const sizes = (linesFlag === "none" ? [] : linesFlag.split(",")).map((text) => {
      const n = Number(text);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--cli-lines ${text}: expected comma-separated whole numbers ≥ 1, or none`);
      return n;
    });
    const root = flags.packageRoot;
    const parity = path.join(root, "bin/parity.js");
    const shared = path.resolve(root, flags.values.get("--cli-shared") ?? "../shared/recordings");
    const node = (args: string[]): ProcessCommand => ({ command: process.execPath, args, cwd: root });
    const cells = await committedCells(root);
    const commands: Array<{ label: string; cmd: ProcessCommand }> = [
      { label: "`node -e 0`", cmd: node(["-e", "0"]) },
      { label: "`parity --version`", cmd: node([parity, "--version"]) },
      // Where the environment names extra CA certificates, every Node process parses them at start,
      // `node -e 0` included (bench/README.md, "Counted in instructions"): the ratios' denominator
      // holds that cost, so the table also shows `node -e 0` without it. No target; not a denominator.
      ...(process.env[EXTRA_CA_ENV] ? [{ label: `\`node -e 0\` without ${EXTRA_CA_ENV} (no target)`, cmd: { ...node(["-e", "0"]), env: withoutExtraCa(process.env) } }] : []),
      ...(existsSync(path.join(shared, "acp-cursor"))
        ? [
            {
              label: "`parity check --recordings ../shared/recordings --provider acp-cursor` (the real cursor cells)",
              cmd: node([parity, "check", "--recordings", shared, "--provider", "acp-cursor"]),
            },
          ]
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
        // A check that ran every cell and found some failing (exit 1) is timed all the same
        // and marked in the table; anything else is no measurement.
        if (run.exitCode !== 0 && !(run.exitCode === 1 && c.label.includes("parity check"))) throw new Error(`${c.label} exited ${run.exitCode}: ${run.stderrTail.trim().split("\n").at(-1) ?? ""}`);
        if (round > 0) measured[i]!.runs.push(run);
      }
    }
    const synthetic = await syntheticChecks(flags, parity, sizes);
    const loadAfter = loads();
    const rows = measured.map(summary);
    const verdict = judge(rows, cells);
    const flatness = marginalFlatness(synthetic);
    const heading = `Measured ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${availableParallelism()} cores, load average (1/5/15 min) ${loadBefore} at the start, ${loadAfter} at the end; median of ${reps} after a warm-up. Ratios are to \`node -e 0\` of the same rounds (wall ${seconds(verdict.bare.wallMs)}, CPU ${verdict.bare.cpuMs === undefined ? "n/a" : seconds(verdict.bare.cpuMs)})${process.env[EXTRA_CA_ENV] ? `, which here parses the CA certificates ${EXTRA_CA_ENV} names, as every Node process here does` : ""}.`;
    flags.print(`${[heading, "", ...ratioTable(rows, verdict), ...syntheticTable(synthetic, flatness)].join("\n")}\n`);
    const largest = synthetic.at(-1);
    const met = {
      ...verdict.met,
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
        rows: rows.map((r) => ({
          ...r,
          wallRatio: Number(ratio(r.wallMs, verdict.bare.wallMs).toFixed(2)),
          cpuRatio: r.cpuMs === undefined || verdict.bare.cpuMs === undefined ? null : Number(ratio(r.cpuMs, verdict.bare.cpuMs).toFixed(2)),
          wallMs: Math.round(r.wallMs),
          minMs: Math.round(r.minMs),
          maxMs: Math.round(r.maxMs),
          cpuMs: r.cpuMs === undefined ? null : Math.round(r.cpuMs),
        })),
        ratios: verdict.ratios,
        synthetic: synthetic.map((r) => ({
          lines: r.lines,
          wallMs: Math.round(r.wallMs),
          cpuMs: r.cpuMs ?? null,
          peakTreeRssBytes: r.peakTreeRssBytes,
          processes: r.processes,
          nodeProcesses: r.nodeProcesses,
        })),
        syntheticFlatness: flatness === undefined ? null : Number(flatness.toFixed(2)),
        met,
      },
      targetMet: Object.values(met).every(Boolean),
    };
  },
};
