/**
 * Two live runs of acp-qwen/long-output whose command outputs are different windows of what `seq`
 * printed (harness/compare/run-to-run.ts rule 5: qwen-code 0.15.10 reports its terminal's last
 * 10 030 rows of what it read, and where the read stopped is the scheduler's) are one path of the
 * agent, for every caller that compares two runs (harness/check/cross-run.ts, the one builder of
 * that comparison): `record --repeat N --keep-alternates` keeps no alternate, `--repeat`'s "what
 * varies" names rule 5 (not a lane difference), `drift` between the two folders exits 0.
 *
 * Run 1 is a real second live run (test/fixtures/fresh-rerecord/acp-qwen/long-output: lines 8957
 * to the middle of 18986). Run 2 is the committed recording (lines 7938 to the middle of 17967) with
 * its read stopped 1500 lines earlier, as qwen's would be: every output string that is a window
 * (the thread lane's `aggregatedOutput`, the bridge's `resultText`, qwen's `rawOutput`) becomes the
 * window 1500 lines up, the recording's cut mark counting what it now leaves out. Each run's lane
 * is what `record` writes (harness/record/record-stage.ts): its thread lane, normalized.
 * Before the builder, keep-alternates compared without the cell's facts and kept both windows as
 * new paths, and `--repeat` reported the window as a lane difference (exit 1).
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAlternates } from "../../harness/cli/keep-alternates.js";
import { compareRuns, type RepeatReport } from "../../harness/cli/record-repeat.js";
import type { DriftReport } from "../../harness/cli/drift-report.js";
import { isTerminalWindow, printedOutputs, RUN_TO_RUN_RULES } from "../../harness/compare/run-to-run.js";
import type { TruthFacts } from "../../harness/compare/truth/facts-shape.js";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

const PROVIDER = "acp-qwen";
const CELL = "long-output";
const CELLS = path.join(repoRoot, "cells");
const seq = printedOutputs(JSON.parse(readFileSync(path.join(CELLS, CELL, "facts.json"), "utf8")) as TruthFacts).get("seq 1 20000")!;
const CUT = /⟦redacted: (\d+) chars trimmed⟧/;

/** The offset where line `n` (1-based) of `text` starts, and the line `at` is on. */
const lineStart = (text: string, n: number) => (n === 1 ? 0 : text.split("\n", n - 1).join("\n").length + 1);
const lineOf = (text: string, at: number) => text.slice(0, at).split("\n").length;

/**
 * `text` as it would read had qwen's read of `seq` stopped `k` lines earlier: when it starts with a
 * window (a stretch of `seq` from a line's start, cut by the recording's redaction), the window
 * `k` lines up, each side of the cut as long as before, the cut mark counting what it now leaves
 * out; what follows the window's end (qwen's note of the output file) unchanged. Other text as it is.
 */
function earlierRead(text: string, k: number): string {
  const cut = CUT.exec(text);
  if (cut === null) return text;
  const head = text.slice(0, cut.index);
  const rest = text.slice(cut.index + cut[0].length);
  const start = seq.indexOf(head);
  if (head === "" || start <= 0 || seq[start - 1] !== "\n") return text;
  // The window's part after the cut: the longest start of `rest` that seq holds after the head.
  const found = (n: number) => seq.indexOf(rest.slice(0, n), start + head.length);
  let lo = 0;
  let hi = rest.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (found(mid) >= 0) lo = mid;
    else hi = mid - 1;
  }
  const end = found(lo) + lo;
  const newStart = lineStart(seq, lineOf(seq, start) - k);
  const newEnd = lineStart(seq, lineOf(seq, end) - k) + (end - lineStart(seq, lineOf(seq, end)));
  const trimmed = Number(cut[1]) + (newEnd - newStart) - (end - start);
  return `${seq.slice(newStart, newStart + head.length)}⟦redacted: ${trimmed} chars trimmed⟧${seq.slice(newEnd - lo, newEnd)}${rest.slice(lo)}`;
}

/** Every string of a JSON value through `change`. */
function mapStrings(value: unknown, change: (s: string) => string): unknown {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, change));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, mapStrings(v, change)]));
  return value;
}

/** A copy of a recording whose windows are `k` lines earlier (each recorded line's JSON, re-serialized only where it changed). */
async function copyWithEarlierRead(from: string, to: string, k: number): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await readdir(from)) {
    const text = await readFile(path.join(from, name), "utf8");
    if (!name.endsWith(".ndjson")) {
      await writeFile(path.join(to, name), text);
      continue;
    }
    const lines = text.split("\n").map((line) => {
      if (!CUT.test(line)) return line;
      const entry = JSON.parse(line) as { line: string };
      const changed = JSON.stringify(mapStrings(JSON.parse(entry.line), (s) => earlierRead(s, k)));
      return JSON.stringify({ ...entry, line: changed });
    });
    await writeFile(path.join(to, name), lines.join("\n"));
  }
}

/** A run root as `record --repeat` leaves it: `<root>/<provider>/<cell>/` and its lane `<root>/lanes/<provider>/<cell>.json`. */
async function runRoot(root: string, recording: (dir: string) => Promise<void>): Promise<string> {
  const dir = path.join(root, PROVIDER, CELL);
  await recording(dir);
  const built = buildThreadLane(await readRecording(dir));
  await mkdir(path.join(root, "lanes", PROVIDER), { recursive: true });
  await writeFile(path.join(root, "lanes", PROVIDER, `${CELL}.json`), serializeThreadLane(normalizeThreadLane(built.events)));
  return root;
}

const outputOf = (laneFile: string) =>
  String((JSON.parse(readFileSync(laneFile, "utf8")) as Array<{ item?: { type?: string; aggregatedOutput?: string } }>).find((e) => e.item?.type === "commandExecution")!.item!.aggregatedOutput);

describe("two runs of acp-qwen/long-output, two windows of one output", () => {
  let dir: string;
  let project: string;
  let runs: Array<{ run: number; root: string; versions: string[]; recorded: string[]; failed: [] }>;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-cross-run-"));
    // The project keep-alternates would write into: the committed recording and oracle of the cell.
    project = path.join(dir, "project");
    await cp(path.join(repoRoot, "recordings", PROVIDER, CELL), path.join(project, "recordings", PROVIDER, CELL), { recursive: true });
    await mkdir(path.join(project, "lanes", PROVIDER), { recursive: true });
    for (const file of [`${CELL}.json`, `${CELL}.version`]) await cp(path.join(repoRoot, "lanes", PROVIDER, file), path.join(project, "lanes", PROVIDER, file));
    const live = await runRoot(path.join(dir, "runs", "run-1"), (to) => cp(path.join(repoRoot, "test", "fixtures", "fresh-rerecord", PROVIDER, CELL), to, { recursive: true }));
    const earlier = await runRoot(path.join(dir, "runs", "run-2"), (to) => copyWithEarlierRead(path.join(repoRoot, "recordings", PROVIDER, CELL), to, 1500));
    runs = [live, earlier].map((root, i) => ({ run: i + 1, root, versions: ["qwen-code 0.15.10"], recorded: [CELL], failed: [] }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the runs' outputs are different windows of what seq printed, neither the committed one", () => {
    const outputs = [...runs.map((r) => outputOf(path.join(r.root, "lanes", PROVIDER, `${CELL}.json`))), outputOf(path.join(repoRoot, "lanes", PROVIDER, `${CELL}.json`))];
    expect(outputs.map((o) => o.slice(0, o.indexOf("\n")))).toEqual(["8957", "6438", "7938"]);
    for (const output of outputs) expect(isTerminalWindow(output, seq)).toBe(true);
    // The derived run's other window strings moved with it (qwen's rawOutput on the agent's wire).
    expect(readFileSync(path.join(runs[1]!.root, PROVIDER, CELL, "provider→bridge.ndjson"), "utf8")).toContain('\\"rawOutput\\":\\"6438\\\\n6439');
  });

  const keep = (cellsRoot: string) =>
    keepAlternates({
      provider: PROVIDER,
      cells: [CELL],
      runs,
      recordingsRoot: path.join(project, "recordings"),
      lanesDir: path.join(project, "lanes"),
      cellsRoot,
      allowlist: [],
    });

  it("--keep-alternates: both runs took the committed path; nothing is kept", async () => {
    expect(await keep(CELLS)).toEqual([{ cell: CELL, paths: [{ path: 1, runs: [1, 2], state: "committed" }], wrote: [] }]);
    expect(existsSync(path.join(project, "recordings", PROVIDER, CELL, "alternates"))).toBe(false);
  });

  it("--repeat: the window varies by rule 5, no lane difference", async () => {
    const report: RepeatReport = await compareRuns(PROVIDER, runs, [CELL], repoRoot, CELLS);
    expect(report.lanes).toEqual([]);
    expect(report.runToRun).toEqual([{ rule: 5, name: RUN_TO_RUN_RULES[4], cells: [CELL] }]);
    expect(report.unstableCells).toEqual([]);
  });

  it("drift between the two run folders: the lanes did not change (exit 0), rule 5 named", async () => {
    const r = await runCli(["drift", "--provider", PROVIDER, "--from", runs[0]!.root, "--to", runs[1]!.root, "--json"]);
    const report = JSON.parse(r.out) as DriftReport;
    expect([report.lanes, report.runToRun.map((h) => [h.rule, h.cells])]).toEqual([[], [[5, [CELL]]]]);
    expect(r.code, r.err).toBe(0);
    const text = await runCli(["drift", "--provider", PROVIDER, "--from", runs[0]!.root, "--to", runs[1]!.root]);
    expect(text.out).toContain(`held by a run-to-run rule (not counted): 1 rule\n  rule 5  ${RUN_TO_RUN_RULES[4]}  (${CELL})\n`);
  });

  it("without the cell's facts (the bug): each window is kept as a new path, one per distinct window", async () => {
    const noFacts = path.join(dir, "no-cells");
    await mkdir(noFacts, { recursive: true });
    const kept = await keep(noFacts);
    expect(kept[0]!.paths).toEqual([
      { path: 2, runs: [1], state: "kept" },
      { path: 3, runs: [2], state: "kept" },
    ]);
  });

  it("a window that lost rows is still a path of its own (rule 5 holds only a whole window)", async () => {
    const lost = path.join(dir, "runs-lost", "run-1");
    await cp(runs[0]!.root, lost, { recursive: true });
    const lane = path.join(lost, "lanes", PROVIDER, `${CELL}.json`);
    const text = await readFile(lane, "utf8");
    const dropped = text.replace("8990\\n8991\\n8992\\n", "");
    expect(dropped).not.toBe(text);
    await writeFile(lane, dropped);
    const project2 = path.join(dir, "project-lost");
    await cp(project, project2, { recursive: true });
    await rm(path.join(project2, "recordings", PROVIDER, CELL, "alternates"), { recursive: true, force: true });
    await rm(path.join(project2, "lanes", PROVIDER, CELL), { recursive: true, force: true });
    const kept = await keepAlternates({
      provider: PROVIDER,
      cells: [CELL],
      runs: [{ run: 1, root: lost, recorded: [CELL] }],
      recordingsRoot: path.join(project2, "recordings"),
      lanesDir: path.join(project2, "lanes"),
      cellsRoot: CELLS,
      allowlist: [],
    });
    expect(kept[0]!.paths).toEqual([{ path: 2, runs: [1], state: "kept" }]);
  });
});
