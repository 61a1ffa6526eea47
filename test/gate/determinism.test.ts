/**
 * Determinism (docs/design/00-product.md, Determinism): verdicts are a function of the recording and the
 * bridge's output alone, never of the clock or the load. The harness (test/gate/soak.ts)
 * runs `parity check --reporter json` RUNS times with BUSY spinning processes pinned to the
 * cores and counts per cell how often it passed; a failure prints those counts.
 *
 * A bursty agent (test/gate/fixtures/burst: two turns of 100 updates in ONE write each, an
 * fs/read_text_file between, an out-of-turn chunk right before the second turn/start) replayed
 * through a deliberately slowed ACP bridge (slow-translation-bridge.mjs) passes every run; the
 * same recording with the agent's second fs/read_text_file request removed from its agent lane
 * (cell `burst-broken`, replayed in the same `parity check`, beside it) fails every run, naming
 * the seq of the answer that never came.
 *
 * Run 1 goes before the busy processes start and is the reference: every loaded run must print
 * the same report byte for byte (apart from times), so load is compared with no load, not only
 * loaded runs with each other; and the first run's one-off work in this worker (loading and
 * transforming the check's modules) no longer happens with two spinners burning both cores, which
 * the rest of the suite, running beside this file, paid for. The spinners run for the loaded runs
 * only, which is where the verdicts must hold.
 *
 * The whole matrix under the same load is test/gate/determinism-matrix.ci.ts, which `.ci/run`
 * runs after `npm test` (`npm run test:ci`). Quick setting: RUNS=3 (the reference and 2 loaded),
 * BUSY=2. Thorough: `npm run soak` (PARITY_SOAK_RUNS=20, PARITY_SOAK_BUSY=8) runs both. Needs a
 * fresh `dist/`. Nothing here is timed: the per-test budget only bounds a hang.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import { editLane, messageOf, readLane } from "../replay/helpers.js";
import { repoRoot } from "./gate-run.js";
import { envCount, formatCounts, soak } from "./soak.js";

const RUNS = envCount("PARITY_SOAK_RUNS", 3);
const BUSY = envCount("PARITY_SOAK_BUSY", 2);
/** Bounds a hang only: a generous 2 minutes per run of two cells on a loaded 2-core machine. */
const BUDGET_MS = RUNS * 120_000;

const burstRoot = path.join(repoRoot, "test", "gate", "fixtures", "burst");
const slowBridge = path.join(repoRoot, "test", "gate", "fixtures", "slow-translation-bridge.mjs");
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

describe(`determinism: a reference run, then ${RUNS - 1} runs with ${BUSY} busy processes on the cores`, () => {
  it(
    "a bursty agent through a slowed bridge passes every run; with one agent line removed it fails every run at the same seq",
    async () => {
      // One scratch root holding the fixture cell and its doctored copy `burst-broken`: the
      // agent's last fs/read_text_file request taken out of its lane. One `parity check` per run
      // replays both at once, each through its own bridge (--no-batch), so they also load each other.
      const base = await mkdtemp(path.join(tmpdir(), "parity-soak-"));
      temps.push(base);
      await cp(path.join(burstRoot, "recordings"), path.join(base, "recordings"), { recursive: true });
      await cp(path.join(burstRoot, "lanes"), path.join(base, "lanes"), { recursive: true });
      const dir = path.join(base, "recordings", "acp-cursor", "burst-broken");
      await cp(path.join(base, "recordings", "acp-cursor", "burst"), dir, { recursive: true });
      await cp(path.join(base, "lanes", "acp-cursor", "burst.json"), path.join(base, "lanes", "acp-cursor", "burst-broken.json"));
      const manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8")) as { cell: string };
      await writeFile(path.join(dir, "manifest.json"), JSON.stringify({ ...manifest, cell: "burst-broken" }, null, 2) + "\n");
      const reads = (await readLane(dir, "provider→bridge")).filter((e) => messageOf(e).method === "fs/read_text_file");
      expect(reads.length).toBe(2);
      const removed = reads[1]!;
      const answer = (await readLane(dir, "bridge→provider")).find((e: LaneEntry) => e.seq > removed.seq && messageOf(e).id === messageOf(removed).id);
      expect(answer).toBeDefined();
      await editLane(dir, "provider→bridge", (entries) => entries.filter((e) => e.seq !== removed.seq));

      const result = await soak({
        runs: RUNS,
        busy: BUSY,
        firstUnloaded: true,
        gates: [{ name: "burst", argv: ["--recordings", path.join(base, "recordings"), "--lanes", path.join(base, "lanes"), "--module", slowBridge, "--jobs", "2", "--no-batch"] }],
      });
      const counts = formatCounts(result);
      expect(result.statuses.get("burst: acp-cursor/burst")?.get("pass"), counts).toBe(RUNS);
      expect(result.statuses.get("burst: acp-cursor/burst-broken")?.get("fail"), counts).toBe(RUNS);
      expect(result.firstDivergences.get("burst: acp-cursor/burst-broken"), counts).toEqual(new Array(RUNS).fill(String(answer!.seq)));
      expect(result.codes.get("burst")).toEqual(new Array(RUNS).fill(1));
      expect(result.differingRuns.size, counts).toBe(0);
    },
    BUDGET_MS,
  );
});
