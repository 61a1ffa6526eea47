import { chmod, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyCell, cursorRecordings, parity, sandbox, type Sandbox } from "./helpers.js";

// Issue 5 (flow 4): a current lane this product's rerecord writes has two more deltas than
// the reference's recorded bridge lane (today's bridge adds `extension.state`). Re-placed by
// shape alone, every later delta took its predecessor's recorded position, one agent line
// too late, and the gate's replay diverged on the lane rerecord had just written.
const CELLS = ["turn-tools", "subagent", "stop-interrupt"];

const boxes: Sandbox[] = [];
afterAll(async () => {
  for (const box of boxes) {
    await chmod(box.root, 0o755).catch(() => undefined);
    await rm(box.root, { recursive: true, force: true });
  }
});

describe("parity check passes on copies of real cursor recordings that parity rerecord rewrote", () => {
  it("rerecords turn-tools, subagent and stop-interrupt without a replan warning, then checks them green", async () => {
    const b = await sandbox();
    boxes.push(b);
    for (const cell of CELLS) await copyCell(b, path.join(cursorRecordings, cell));

    const rerecorded = await parity(["rerecord", "--recordings", b.recordings, "--provider", "acp-cursor", "--lanes", b.lanes]);
    expect(rerecorded.err).toBe("");
    expect(rerecorded.code).toBe(0);
    for (const cell of CELLS) expect(rerecorded.out).toMatch(new RegExp(`^RERECORDED acp-cursor/${cell}: `, "m"));
    expect(rerecorded.out).not.toContain("warning");

    // Checked with no allowlist (the sandbox is no project): the rewritten lanes replay and match.
    const checked = await parity(["check", "--recordings", b.recordings, "--lanes", b.lanes], { cwd: b.root });
    expect(checked.out).toContain(`${CELLS.length} passed, 0 failed`);
    expect(checked.code).toBe(0);
    for (const cell of CELLS) expect(checked.out).toMatch(new RegExp(`^PASS acp-cursor/${cell} `, "m"));

    // From the project: the copies are the shared recordings (harness/recording/identity.ts covers
    // what the runtime and the agent said, not the current lane rerecord wrote), so the committed
    // acp-cursor entries apply to them by recordingId, and mask nothing once today's bridge is the
    // recording's: each cell fails on stale entries alone, as the shared recordings rerecorded in
    // place would beside shared/ (before identity 2, the copies' ids changed with their current
    // lanes, and the entries silently did not apply there).
    const fromProject = await parity(["check", "--recordings", b.recordings, "--lanes", b.lanes, "--reporter", "json"]);
    const report = JSON.parse(fromProject.out) as { cells: Array<{ cell: string; status: string; diffs: unknown[]; divergences: unknown[]; stale: Array<{ recordingId?: string }> }> };
    expect(report.cells.map((c) => [c.cell, c.status, c.diffs.length, c.divergences.length])).toEqual(CELLS.map((cell) => [cell, "fail", 0, 0]).sort());
    for (const c of report.cells) expect(c.stale.length > 0 && c.stale.every((e) => e.recordingId !== undefined), c.cell).toBe(true);
  });
});
