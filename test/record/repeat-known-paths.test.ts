/**
 * `parity record --repeat N` whose runs took two accepted paths of a cell (README "When the agent
 * itself varies"; harness/cli/run-paths.ts): claude-agent-acp 0.49.0's `stop-interrupt` took
 * path 1 (the committed oracle) in 6 of 8 runs and accepted alternate 2 in the others. Two runs
 * are built from the committed recordings, as `record` leaves them (`<root>/<p>/<cell>/` and the
 * lane it wrote through today's bridge, `<root>/lanes/<p>/<cell>.json`): run 1 the cell's
 * recording with its oracle, run 2 alternate 2's recording with its oracle. They vary, as they
 * do live; before, that was "the thread lanes varied" and exit 1 although `parity check` passes
 * each run. Now each run is said to have taken a known path and the repeat passes; a project
 * without the accepted alternate still fails it (no known path explains run 2).
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAllowlists } from "../../harness/compare/allowlist.js";
import type { LoadedAllowlistEntry } from "../../harness/compare/allowlist.js";
import { compareRuns, renderRepeatText, repeatExitCode, type RepeatReport } from "../../harness/cli/record-repeat.js";
import { CURRENT_BRIDGE_LANE_FILE } from "../../harness/recording/lane-names.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

const PROVIDER = "acp-claude";
const CELL = "stop-interrupt";
const CELLS = path.join(repoRoot, "cells");
const recording = path.join(repoRoot, "recordings", PROVIDER, CELL);
const oracle = path.join(repoRoot, "lanes", PROVIDER, `${CELL}.json`);
const alternateOracle = path.join(repoRoot, "lanes", PROVIDER, CELL, "alternates", "2.json");

/**
 * A run root as `record --repeat` leaves it: the recording's lane files and manifest (no
 * alternates, no `alternateOf`: a run is a plain recording) and its lane. A live run through
 * today's bridge records today's bridge lane: the recording's current lane (`parity rerecord`'s)
 * stands as its `bridge→runtime` when it has one.
 */
async function runRoot(root: string, from: string, lane: string): Promise<string> {
  const dir = path.join(root, PROVIDER, CELL);
  await mkdir(dir, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === CURRENT_BRIDGE_LANE_FILE) continue;
    await cp(path.join(from, entry.name), path.join(dir, entry.name));
  }
  const current = path.join(from, CURRENT_BRIDGE_LANE_FILE);
  if (existsSync(current)) await cp(current, path.join(dir, "bridge→runtime.ndjson"));
  const manifestFile = path.join(dir, "manifest.json");
  const { alternateOf: _alternateOf, ...manifest } = JSON.parse(await readFile(manifestFile, "utf8")) as Record<string, unknown>;
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  await mkdir(path.join(root, "lanes", PROVIDER), { recursive: true });
  await cp(lane, path.join(root, "lanes", PROVIDER, `${CELL}.json`));
  return root;
}

describe("record --repeat: runs that took two accepted paths of acp-claude/stop-interrupt", () => {
  let dir: string;
  let runs: RepeatReport["runs"];
  let allowlist: LoadedAllowlistEntry[];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-repeat-paths-"));
    const one = await runRoot(path.join(dir, "runs", "run-1"), recording, oracle);
    const two = await runRoot(path.join(dir, "runs", "run-2"), path.join(recording, "alternates", "2"), alternateOracle);
    runs = [one, two].map((root, i) => ({ run: i + 1, root, versions: ["claude-agent-acp 0.49.0"], recorded: [CELL], failed: [] }));
    allowlist = await loadAllowlists({ cwd: repoRoot });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("check passes each run against the committed oracles (run 2 on alternate path 2)", async () => {
    for (const run of runs) {
      const r = await runCli(["check", "--recordings", run.root, "--lanes", "lanes", "--provider", PROVIDER, "--cell", CELL]);
      expect(r.code, r.out + r.err).toBe(0);
      expect(r.out.includes("agent took alternate path 2 of cell stop-interrupt (lanes/acp-claude/stop-interrupt/alternates/2.json)")).toBe(run.run === 2);
    }
  });

  it("the lanes vary, every run took a known path: said which, exit 0", async () => {
    const project = { recordingsRoot: path.join(repoRoot, "recordings"), lanesDir: path.join(repoRoot, "lanes"), allowlist };
    const report = await compareRuns(PROVIDER, runs, [CELL], repoRoot, CELLS, project);
    expect(report.lanes.length).toBeGreaterThan(0);
    expect(report.knownPaths).toEqual([
      {
        cell: CELL,
        paths: [
          { path: 1, state: "committed", oracle: "lanes/acp-claude/stop-interrupt.json", runs: [1] },
          { path: 2, state: "accepted", oracle: "lanes/acp-claude/stop-interrupt/alternates/2.json", runs: [2] },
        ],
        unknown: [],
      },
    ]);
    expect(report.varied).toEqual([{ cell: CELL, byKnownPaths: true }]);
    expect(repeatExitCode(report)).toBe(0);
    const text = renderRepeatText(report, false);
    expect(text).toContain("  known   stop-interrupt: path 1 (the committed oracle): run 1; path 2 (accepted alternate, lanes/acp-claude/stop-interrupt/alternates/2.json): run 2\n");
    expect(text).toContain("the thread lanes varied from run to run only between known paths of their cells (stop-interrupt): every run took the committed oracle's or an accepted alternate's path\n");
  });

  it("a project without the accepted alternate: no known path explains run 2, exit 1", async () => {
    const project = path.join(dir, "project");
    await mkdir(path.join(project, "recordings", PROVIDER), { recursive: true });
    await runRoot(path.join(project, "recordings"), recording, oracle);
    await mkdir(path.join(project, "lanes"), { recursive: true });
    await cp(path.join(project, "recordings", "lanes", PROVIDER), path.join(project, "lanes", PROVIDER), { recursive: true });
    const report = await compareRuns(PROVIDER, runs, [CELL], project, CELLS, {
      recordingsRoot: path.join(project, "recordings"),
      lanesDir: path.join(project, "lanes"),
      allowlist,
    });
    expect(report.knownPaths).toEqual([{ cell: CELL, paths: [{ path: 1, state: "committed", oracle: "lanes/acp-claude/stop-interrupt.json", runs: [1] }], unknown: [2] }]);
    expect(report.varied).toEqual([{ cell: CELL, byKnownPaths: false }]);
    expect(repeatExitCode(report)).toBe(1);
    const text = renderRepeatText(report, false);
    expect(text).toContain("  unknown stop-interrupt: path 1 (the committed oracle): run 1; no known path: run 2\n");
    expect(text).toContain("the thread lanes varied from run to run in 1 of 1 cells\n");
  });
});
