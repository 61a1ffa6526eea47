/**
 * A rerecord anchors each live line after what caused it (issue 38; harness/rerecord/README.md), on
 * the real acp-cursor/stop-interrupt recording (read by path, never copied) through today's ACP
 * bridge slowed to nice 19 (fixtures/nice-acp-bridge.mjs): the runtime lines caused by the agent's
 * lines up to 378 stay before the agent's permission request (380), as in the committed lane, and
 * nothing sits between 380 and the runtime's `thread/stop` (382). Anchored by the last input
 * written when each arrived, a lagging bridge put them after 380, and a replay of the refreshed
 * recording then wrote 382 before the bridge answered 380. No clock is judged here: the slowed
 * bridge only makes the old anchoring's error likely; the placement is checked whatever the timing.
 * Spawns the compiled bridge (fresh `dist/` needed).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cursorRecordings, parity, readEntries } from "./helpers.js";

const CELL = "stop-interrupt";
const NICE_BRIDGE = "test/rerecord/fixtures/nice-acp-bridge.mjs";
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("rerecord of the real stop-interrupt through a nice-19 bridge", () => {
  it("keeps 378's outputs before the permission request 380, as the committed lane does", async () => {
    const out = await mkdtemp(path.join(tmpdir(), "rerecord-anchor-cause-"));
    temps.push(out);
    const run = await parity(["rerecord", "--recordings", path.dirname(cursorRecordings), "--provider", "acp-cursor", "--cell", CELL, "--out", out, "--module", NICE_BRIDGE]);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/^RERECORDED acp-cursor\/stop-interrupt: /m);
    const lane = await readEntries(path.join(out, "acp-cursor", CELL, "bridge→runtime.current.ndjson"));
    // The committed lane: the last runtime line of the agent's message (seq 379, an `unhandled` delta) before 380.
    const unhandled = lane.filter((e) => e.line.includes('"kind":"unhandled"') && e.seq > 329 && e.seq < 387);
    expect(unhandled.length).toBeGreaterThan(0);
    for (const entry of unhandled) expect(entry.seq).toBeLessThan(380);
    expect(lane.filter((e) => e.seq > 380 && e.seq < 382)).toEqual([]);
    const seqs = lane.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });
});
