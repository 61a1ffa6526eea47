/**
 * The determinism harness (docs/design/00-product.md, Determinism: the same recording gives the same
 * verdict on every run, on any machine, under any load): runs `parity check --reporter json`
 * invocations `runs` times while `busy` spinning processes, pinned round-robin to the cores,
 * keep the machine loaded, and counts per cell how often it passed. A run's JSON report with
 * its times removed must be byte-identical to the first run's. Used by
 * test/gate/determinism.test.ts (quick CI setting) and `npm run soak` (thorough).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { createTwoFilesPatch } from "diff";
import { runCli } from "../helpers/run-cli.js";

/** One gate invocation of a soak run: a name for reports and the `parity check` argv. */
export interface SoakGate {
  name: string;
  argv: string[];
}

/** What a soak found. */
export interface SoakResult {
  runs: number;
  /** `gate: provider/cell` → `status` → count over the runs. */
  statuses: Map<string, Map<string, number>>;
  /** `gate: provider/cell` → the seqs of its first divergence, per run (`-` when none). */
  firstDivergences: Map<string, string[]>;
  /** Per gate, the runs whose timeless JSON report differs from run 1's. */
  differingRuns: Map<string, number[]>;
  /** Exit codes per gate, per run. */
  codes: Map<string, number[]>;
  /** Per gate, a unified diff of run 1's timeless report against the first run that differed. */
  firstDifference: Map<string, string>;
}

interface CellJson {
  provider: string;
  cell: string;
  status: string;
  ms?: number;
  divergences: Array<{ seq: number }>;
}

/** The JSON report without its wall times (`ms` of the run and of each cell). */
export function timeless(json: string): string {
  const report = JSON.parse(json) as { ms?: number; cells: CellJson[] };
  delete report.ms;
  for (const cell of report.cells) delete cell.ms;
  return JSON.stringify(report, null, 1);
}

/**
 * Starts `count` processes spinning on one core each (pinned with `taskset` when present,
 * round-robin over the cores) and returns a function that kills them by pid and waits.
 */
export function busyCores(count: number): { pids: number[]; stop: () => Promise<void> } {
  const cores = availableParallelism();
  const pinned = spawnSync("taskset", ["--version"]).status === 0;
  const spinners: ChildProcess[] = [];
  for (let i = 0; i < count; i += 1) {
    const args = ["-e", "for (;;) {}"];
    spinners.push(pinned ? spawn("taskset", ["-c", String(i % cores), process.execPath, ...args], { stdio: "ignore" }) : spawn(process.execPath, args, { stdio: "ignore" }));
  }
  return {
    pids: spinners.map((s) => s.pid!),
    stop: () =>
      Promise.all(
        spinners.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once("exit", () => resolve());
              child.kill("SIGKILL");
            }),
        ),
      ).then(() => undefined),
  };
}

/**
 * Runs every gate `runs` times under `busy` spinning processes (see the module comment). With
 * `firstUnloaded`, run 1 goes before the spinners start: it is the reference every loaded run's
 * report must match byte for byte (apart from times), and it pays the one-off costs of a first
 * run in this process (loading the check's modules) without spinners burning the cores meanwhile.
 */
export async function soak(options: { gates: readonly SoakGate[]; runs: number; busy: number; firstUnloaded?: boolean }): Promise<SoakResult> {
  const result: SoakResult = { runs: options.runs, statuses: new Map(), firstDivergences: new Map(), differingRuns: new Map(), codes: new Map(), firstDifference: new Map() };
  const first = new Map<string, string>();
  let load: ReturnType<typeof busyCores> | undefined = options.firstUnloaded ? undefined : busyCores(options.busy);
  try {
    for (let run = 1; run <= options.runs; run += 1) {
      if (load === undefined && run > 1) load = busyCores(options.busy);
      for (const gate of options.gates) {
        const r = await runCli(["check", "--reporter", "json", ...gate.argv], { ci: true });
        result.codes.set(gate.name, [...(result.codes.get(gate.name) ?? []), r.code]);
        if (r.code === 2) throw new Error(`${gate.name}: parity check refused its input: ${r.err}`);
        const print = timeless(r.out);
        if (!first.has(gate.name)) first.set(gate.name, print);
        else if (first.get(gate.name) !== print) {
          result.differingRuns.set(gate.name, [...(result.differingRuns.get(gate.name) ?? []), run]);
          if (!result.firstDifference.has(gate.name)) result.firstDifference.set(gate.name, createTwoFilesPatch("run 1", `run ${run}`, first.get(gate.name)!, print, "", "", { context: 2 }));
        }
        for (const cell of (JSON.parse(r.out) as { cells: CellJson[] }).cells) {
          const key = `${gate.name}: ${cell.provider}/${cell.cell}`;
          const counts = result.statuses.get(key) ?? new Map<string, number>();
          counts.set(cell.status, (counts.get(cell.status) ?? 0) + 1);
          result.statuses.set(key, counts);
          result.firstDivergences.set(key, [...(result.firstDivergences.get(key) ?? []), cell.divergences[0] ? String(cell.divergences[0].seq) : "-"]);
        }
      }
    }
  } finally {
    await load?.stop();
  }
  return result;
}

/** Per-cell pass counts, one line each (`gate: provider/cell  pass 18/20, fail 2/20`), for a failure message. */
export function formatCounts(result: SoakResult): string {
  const lines: string[] = [];
  for (const [key, counts] of result.statuses) {
    const parts = [...counts].map(([status, n]) => `${status} ${n}/${result.runs}`);
    lines.push(`${key}  ${parts.join(", ")}`);
  }
  for (const [gate, runs] of result.differingRuns) {
    lines.push(`${gate}: runs ${runs.join(", ")} printed a different report than run 1`);
    const patch = result.firstDifference.get(gate);
    if (patch) lines.push(patch);
  }
  return lines.join("\n");
}

/** A whole number from the environment, else `fallback`. */
export function envCount(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
