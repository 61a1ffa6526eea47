import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import { readRecording } from "../../harness/recording/reader.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { cursorRecordings, isAlive } from "./helpers.js";

// 00-product.md, Determinism: the same recording yields the same thread lane, byte for byte,
// on every run and under any load. Ten replays run on a quiet machine and ten while two
// spinning processes keep both cores busy; all twenty lanes (and the anchored bridge lanes
// with their recording clocks) must be identical.

const RUNS = 20;
const spinners: ChildProcess[] = [];

function busyCores(count: number): void {
  for (let i = 0; i < count; i += 1) {
    spinners.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  }
}

function stopSpinning(): void {
  for (const child of spinners.splice(0)) child.kill("SIGKILL");
}

afterAll(stopSpinning);

describe("replay determinism (00-product.md, Determinism)", () => {
  it(`acp-cursor/resume replayed ${RUNS} times gives byte-identical lanes, half of them with both cores busy`, async () => {
    const recording = await readRecording(path.join(cursorRecordings, "resume"));
    const lanes = new Set<string>();
    const bridgeLanes = new Set<string>();
    const pids: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      if (run === RUNS / 2) busyCores(2);
      const result = await replayRecording(recording);
      expect(result.divergences).toEqual([]);
      lanes.add(serializeThreadLane(normalizeThreadLane(result.lane.events)));
      bridgeLanes.add(JSON.stringify(result.bridgeLane.map((e) => [e.ts, e.run, e.seq, e.line])));
      pids.push(...result.pids);
    }
    expect(spinners.every((s) => s.exitCode === null)).toBe(true);
    stopSpinning();
    expect(lanes.size).toBe(1);
    expect(bridgeLanes.size).toBe(1);
    expect(pids.filter(isAlive)).toEqual([]);
  }, 600_000);
});
