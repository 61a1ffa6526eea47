/**
 * The ACP bridge on the real acp-cursor recordings (read by path, never copied): each thread cell
 * replays through the compiled bridge (dist/, refresh with `npx tsc -p tsconfig.build.json`)
 * without a divergence, with the same turn lifecycle as the reference's lane, and the
 * stop-interrupt cell settles its turn before the stop is answered (spec 30 §5).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sharedInputPresent } from "../helpers/shared-input.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

const RECORDINGS = path.resolve(REPO_ROOT, "../shared/recordings/acp-cursor");
const REFERENCE_LANES = path.resolve(REPO_ROOT, "../shared/reference-lanes/acp-cursor");
const THREAD_CELLS = ["approval-allow", "approval-deny", "resume", "stop-interrupt", "subagent", "turn-tools", "fork"];
const available = sharedInputPresent(RECORDINGS) && existsSync(path.join(REPO_ROOT, "dist/stack/acp/bridge.js"));

function lifecycle(events: Array<{ type: string; status?: string }>): string[] {
  return events.filter((e) => e.type === "turn/started" || e.type === "turn/completed").map((e) => (e.status ? `${e.type}=${e.status}` : e.type));
}

describe.skipIf(!available)("ACP bridge on the real acp-cursor recordings", () => {
  for (const cell of THREAD_CELLS) {
    it(`${cell}: replays without divergence and with the reference's turn lifecycle`, async () => {
      const result = await replayRecording(path.join(RECORDINGS, cell));
      expect(result.divergences).toEqual([]);
      const reference = JSON.parse(readFileSync(path.join(REFERENCE_LANES, `${cell}.events.json`), "utf8")) as Array<{ type: string; status?: string }>;
      expect(lifecycle(result.lane.events as Array<{ type: string; status?: string }>)).toEqual(lifecycle(reference));
    });
  }

  it("stop-interrupt: the interrupted turn.boundary goes out before the thread/stop answer", async () => {
    const result = await replayRecording(path.join(RECORDINGS, "stop-interrupt"));
    const lines = result.bridgeLane.map((entry) => JSON.parse(entry.line) as { id?: unknown; method?: string; params?: any; result?: any });
    const boundary = lines.findIndex((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary" && d.status === "interrupted"));
    const stopAnswer = lines.findIndex((m) => m.method === undefined && m.result?.ok === true);
    expect(boundary).toBeGreaterThanOrEqual(0);
    expect(stopAnswer).toBeGreaterThan(boundary);
  });
});
