import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { formatTable } from "../harness/report/table.js";
import type { Recording, RecordingLocation } from "../harness/recording/reader.js";
import { runGate } from "../harness/check/gate.js";
import { recordCell } from "../harness/record/record-cell.js";
import { readRecording } from "../harness/recording/reader.js";
import { positiveInt, type Bench } from "./bench.js";
import { mib } from "./measure.js";
import { median } from "./process-tree.js";
import { writeSyntheticRecording } from "./replay-synthetic.js";

const run = promisify(execFile);

/** Wall time the seven real acp-cursor thread cells may take to replay and compare, in ms (README.md, benchmarks). */
export const TARGET_CURSOR_CHECK_MS = 1000;
/** Most memory a 200 000-line replay may use, in bytes (README.md, benchmarks). */
export const TARGET_REPLAY_RSS_BYTES = 300 * 1024 * 1024;
/** Largest ms-per-line ratio between the full synthetic replay and its quarter that still reads as linear. */
export const LINEARITY_LIMIT = 1.5;

const CURSOR_CELLS = ["approval-allow", "approval-deny", "fork", "resume", "stop-interrupt", "subagent", "turn-tools"];
/** Words per synthetic prompt: the echo streams one `thread/delta` line per word. */
const WORDS_PER_TURN = 400;

/**
 * CPU time of this process and its waited-for children (the bridges, and through them the
 * replay children), in ms, from `/proc/self/stat` (utime, stime, cutime, cstime at 100 Hz);
 * undefined where that file does not exist.
 */
function cpuMsWithChildren(): number | undefined {
  try {
    const text = readFileSync("/proc/self/stat", "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** Replays and compares the seven real cursor thread cells `reps` times (all cores): wall and CPU ms per rep. */
async function cursorCheckRuns(packageRoot: string, reps: number): Promise<{ wall: number[]; cpu: number[] }> {
  const root = path.resolve(packageRoot, "../shared/recordings/acp-cursor");
  const locations: RecordingLocation[] = CURSOR_CELLS.map((cell) => ({ provider: "acp-cursor", cell, dir: path.join(root, cell) }));
  const lanesDir = await mkdtemp(path.join(tmpdir(), "parity-bench-lanes-"));
  try {
    const times: number[] = [];
    const cpu: number[] = [];
    for (let rep = 0; rep < reps; rep += 1) {
      const cpuBefore = cpuMsWithChildren();
      const started = performance.now();
      const { run } = await runGate(
        {
          jobs: availableParallelism(),
          selection: { roots: [path.dirname(root)], filter: { provider: "acp-cursor" } },
          only: new Set(locations.map((l) => `${l.provider}/${l.cell}`)),
          allowlistFiles: [],
          allowlist: [],
          lanesDir,
          lanesGiven: false,
          batch: true,
          replay: {},
          write: "never",
          keepCellTimes: false,
        },
        { cwd: packageRoot, ci: false },
      );
      times.push(performance.now() - started);
      const cpuAfter = cpuMsWithChildren();
      if (cpuBefore !== undefined && cpuAfter !== undefined) cpu.push(cpuAfter - cpuBefore);
      const diverged = run.cells.filter((c) => c.divergences.length > 0);
      if (diverged.length > 0) {
        const first = diverged[0]!.divergences[0]!;
        throw new Error(`cursor cells diverged: ${diverged.map((c) => c.cell).join(", ")} (first: seq ${first.seq}, expected ${first.expected}, got ${first.actual ?? "nothing"})`);
      }
    }
    return { wall: times, cpu };
  } finally {
    await rm(lanesDir, { recursive: true, force: true });
  }
}

/**
 * Records the seed of the synthetic recordings: an echo thread with two turns of
 * {@link WORDS_PER_TURN} words, through the record flow `parity record` runs (its cell is
 * written under `<root>/cells/seed/`, the recording to `<root>/echo/seed/`).
 */
export async function recordSeed(root: string): Promise<Recording> {
  const words = Array.from({ length: WORDS_PER_TURN }, (_, i) => `w${i}`).join(" ");
  const cellsRoot = path.join(root, "cells");
  await mkdir(path.join(cellsRoot, "seed", "providers"), { recursive: true });
  const cell = {
    description: "seed of the synthetic replay benchmark",
    threadId: "thr_bench_seed",
    options: { permissionMode: "full" },
    steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: words }, { op: "turn/start", text: words }],
  };
  await writeFile(path.join(cellsRoot, "seed", "providers", "echo.json"), `${JSON.stringify(cell, null, 2)}\n`);
  const recorded = await recordCell({ providerId: "echo", cell: "seed", cellsRoot, outRoot: root, lanesRoot: path.join(root, "lanes"), redact: [], now: () => Date.now() });
  return readRecording(recorded.dir);
}

/** One synthetic replay measurement. */
interface SyntheticRun {
  lines: number;
  turns: number;
  replayMs: number;
  msPerKLine: number;
  peakRssBytes: number;
  events: number;
}

/**
 * Grows the seed into a synthetic recording of about `lines` lines (`replay-synthetic.ts`),
 * then replays it in a fresh process (`replay-worker.ts`) that reports the replay's wall time
 * and its own peak RSS (sampled every 10 ms).
 */
async function syntheticRun(seed: Recording, root: string, lines: number): Promise<SyntheticRun> {
  const dir = await writeSyntheticRecording(seed, root, `synthetic-${lines}`, lines);
  const turns = Math.ceil(lines / (WORDS_PER_TURN + 6));
  const worker = fileURLToPath(new URL("./replay-worker.js", import.meta.url));
  const { stdout } = await run(process.execPath, [worker, dir], { maxBuffer: 1024 * 1024 });
  const measured = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
    lines: number;
    replayMs: number;
    peakRssBytes: number;
    events: number;
    ok: boolean;
    firstDivergence: string | null;
  };
  if (!measured.ok) throw new Error(`synthetic replay of ${measured.lines} lines diverged: ${measured.firstDivergence ?? "?"}`);
  return {
    lines: measured.lines,
    turns,
    replayMs: measured.replayMs,
    msPerKLine: (measured.replayMs / measured.lines) * 1000,
    peakRssBytes: measured.peakRssBytes,
    events: measured.events,
  };
}

/**
 * `bench replay`: (1) the seven real acp-cursor thread cells replayed through our
 * ACP bridge and compared (`runGate`, jobs = cores), median of `--replay-reps` (5) wall
 * times, target ≤ 1.0 s; (2) a synthetic echo recording of `--replay-lines` (200 000) lines,
 * grown by this bench from a short real echo recording, replayed at a quarter, half and full size: time per line must stay
 * flat (full ≤ 1.5 × quarter) and peak RSS under 300 MB.
 */
export const replayBench: Bench = {
  name: "replay",
  flags: ["--replay-lines", "--replay-reps"],
  async run(flags) {
    const reps = positiveInt(flags, "--replay-reps", 5);
    const lines = positiveInt(flags, "--replay-lines", 200_000);
    flags.print(`replay: seven acp-cursor cells × ${reps}\n`);
    const cursor = await cursorCheckRuns(flags.packageRoot, reps);
    const cursorTimes = cursor.wall;
    const cursorMedian = median(cursorTimes);
    const cursorCpu = cursor.cpu.length > 0 ? median(cursor.cpu) : undefined;

    const root = await mkdtemp(path.join(tmpdir(), "parity-bench-replay-"));
    const synthetic: SyntheticRun[] = [];
    try {
      const seed = await recordSeed(root);
      for (const size of [Math.ceil(lines / 4), Math.ceil(lines / 2), lines]) {
        flags.print(`replay: synthetic ${size} lines\n`);
        synthetic.push(await syntheticRun(seed, root, size));
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    const quarter = synthetic[0]!;
    const full = synthetic.at(-1)!;
    const linearity = full.msPerKLine / quarter.msPerKLine;

    flags.print(
      `${formatTable([
        ["measure", "value", "target"],
        ["7 cursor cells in-process (no CLI start-up), median wall", `${Math.round(cursorMedian)} ms`, `≤ ${TARGET_CURSOR_CHECK_MS} ms`],
        ["7 cursor cells, all reps", cursorTimes.map((t) => `${Math.round(t)}`).join(" / ") + " ms", ""],
        ["7 cursor cells, median cpu (all processes)", cursorCpu === undefined ? "n/a" : `${Math.round(cursorCpu)} ms`, ""],
        ...synthetic.map((s) => [`synthetic ${s.lines} lines`, `${(s.replayMs / 1000).toFixed(2)} s, ${s.msPerKLine.toFixed(2)} ms/1k lines, peak rss ${mib(s.peakRssBytes)}`, ""]),
        ["ms per line, full ÷ quarter", linearity.toFixed(2), `≤ ${LINEARITY_LIMIT}`],
        ["peak rss at full size", mib(full.peakRssBytes), `< ${mib(TARGET_REPLAY_RSS_BYTES)}`],
      ])}\n`,
    );
    const met = {
      cursor: cursorMedian <= TARGET_CURSOR_CHECK_MS,
      linear: linearity <= LINEARITY_LIMIT,
      memory: full.peakRssBytes < TARGET_REPLAY_RSS_BYTES,
    };
    return {
      json: {
        bench: "replay",
        cursorCells: CURSOR_CELLS.length,
        cursorMedianMs: Math.round(cursorMedian),
        cursorRunsMs: cursorTimes.map(Math.round),
        cursorMedianCpuMs: cursorCpu === undefined ? null : Math.round(cursorCpu),
        synthetic: synthetic.map((s) => ({ ...s, replayMs: Math.round(s.replayMs), msPerKLine: Number(s.msPerKLine.toFixed(3)) })),
        linearity: Number(linearity.toFixed(3)),
        met,
      },
      targetMet: met.cursor && met.linear && met.memory,
    };
  },
};
