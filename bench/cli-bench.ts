import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { listRecordings } from "../harness/recording/reader.js";
import type { Bench, BenchFlags } from "./bench.js";
import { mib } from "./measure.js";
import { measureProcess, median, type ProcessCommand, type ProcessRun } from "./process-tree.js";

/** `parity --version` may take at most this many times a bare `node -e 0` (median of the same run). */
export const TARGET_VERSION_RATIO = 4;
/** Wall time of a cold `parity check` of the seven real cursor cells, median, ms. */
export const TARGET_CURSOR_CHECK_MS = 1000;
/** Wall time of the whole committed matrix per 30 cells, median, ms. */
export const TARGET_MATRIX_MS_PER_30_CELLS = 3000;

/** One measured command and its runs. */
interface Measured {
  label: string;
  runs: ProcessRun[];
}

function positiveInt(flags: BenchFlags, name: string, fallback: number): number {
  const text = flags.values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} ${text}: expected a whole number ≥ 1`);
  return value;
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
  };
}

/** Thread and process cells under the project's `recordings/` (the committed matrix). */
async function committedCells(packageRoot: string): Promise<number> {
  return (await listRecordings([path.join(packageRoot, "recordings")])).length;
}

/**
 * `bench cli`: whole processes timed from outside, as users run them (spawn → exit; wall,
 * CPU of the process tree, peak summed RSS of the tree sampled from `/proc`), one warm-up
 * then `--cli-reps` (5) rounds, each round running every command once in turn so load
 * drifting during the bench hits all of them alike. Prints a Markdown table (the README's
 * whole-process table) headed by the date, Node version, cores and the load average at the
 * start and the end. Targets: `parity --version` ≤ 4 × `node -e 0`; the seven real cursor
 * cells ≤ 1.0 s; the committed matrix ≤ 3 s per 30 cells.
 */
export const cliBench: Bench = {
  name: "cli",
  flags: ["--cli-reps"],
  async run(flags) {
    const reps = positiveInt(flags, "--cli-reps", 5);
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
    const table = [
      `Measured ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${availableParallelism()} cores, load average (1/5/15 min) ${loadBefore} at the start, ${loadAfter} at the end; median of ${reps} after a warm-up.`,
      "",
      "| command (whole process, from outside) | wall, median (min–max) | CPU user+sys | peak RSS, process tree | processes | target |",
      "|---|---|---|---|---|---|",
      ...rows.map(
        (r) =>
          `| ${r.label} | **${seconds(r.wallMs)}** (${seconds(r.minMs)}–${seconds(r.maxMs)}) | ${r.cpuMs === undefined ? "n/a" : seconds(r.cpuMs)} | ${mib(r.peakTreeRssBytes)} | ${r.processes} | ${target(r)} |`,
      ),
    ].join("\n");
    flags.print(`${table}\n`);
    const met = {
      version: versionRatio <= TARGET_VERSION_RATIO,
      cursor: cursor === undefined || cursor.wallMs <= TARGET_CURSOR_CHECK_MS,
      matrix: matrixPer30 <= TARGET_MATRIX_MS_PER_30_CELLS,
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
        met,
      },
      targetMet: met.version && met.cursor && met.matrix,
    };
  },
};
