import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import { RECORDED_PATHS } from "../../harness/recording/recorded-paths.js";
import { readRecording } from "../../harness/recording/reader.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { isAlive, repoRoot } from "./helpers.js";

// The replay sandbox (docs/design/00-product.md flow 2 and Determinism): acp-opencode/turn-tools was
// recorded in a workspace the redactor named /tmp/parity-workspace; its agent reads and
// writes notes.txt there through the bridge's fs capability. A replay must give it a fresh
// copy of the cell's fixture instead, and the lane must name only the recorded path, so the
// host's /tmp/parity-workspace never matters and is never touched.

const HOST_WORKSPACE = RECORDED_PATHS.workspace;
const RECORDING = path.join(repoRoot, "recordings", "acp-opencode", "turn-tools");
const ORACLE = path.join(repoRoot, "lanes", "acp-opencode", "turn-tools.json");
const FIXTURE = path.join(repoRoot, "cells", "turn-tools", "workspace", "notes.txt");

type FileChange = { type: string; changes?: Array<{ path: string; diff?: string }> };

/** The settled fileChange items (item/completed) of a lane. */
function fileChanges(events: readonly unknown[]): FileChange[] {
  return events
    .filter((event) => (event as { type?: string }).type === "item/completed")
    .map((event) => (event as { item?: FileChange }).item)
    .filter((item): item is FileChange => item?.type === "fileChange");
}

beforeAll(async () => {
  // Left over by replays from before the sandbox; it must not exist for the assertion below.
  await rm(HOST_WORKSPACE, { recursive: true, force: true });
});
afterAll(async () => {
  await rm(HOST_WORKSPACE, { recursive: true, force: true });
});

describe("replay sandbox: acp-opencode/turn-tools", () => {
  it("replays twice with no divergence, a lane equal to the committed oracle, and no host state read or written", async () => {
    const recording = await readRecording(RECORDING);
    const oracle = await readFile(ORACLE, "utf8");
    const fixture = await readFile(FIXTURE, "utf8");
    const pids: number[] = [];
    const liveRoot = path.join(tmpdir(), "pr-");

    const first = await replayRecording(recording);
    expect(first.divergences).toEqual([]);
    expect(first.expectationsMet).toBe(first.expectationsTotal);
    const own = buildThreadLane(recording, { useCurrent: true });
    expect(serializeThreadLane(normalizeThreadLane(first.lane.events))).toBe(serializeThreadLane(normalizeThreadLane(own.events)));
    expect(serializeThreadLane(normalizeThreadLane(first.lane.events))).toBe(oracle);
    expect(existsSync(HOST_WORKSPACE)).toBe(false);
    pids.push(...first.pids);

    // The edit is the fixture's: the file change names the recorded path and its diff
    // starts from the seeded notes.txt.
    const [change] = fileChanges(first.lane.events);
    expect(change?.changes?.[0]?.path).toBe(`${HOST_WORKSPACE}/notes.txt`);
    expect(fixture).toContain("status: draft");
    expect(change?.changes?.[0]?.diff).toContain("-status: draft\n+status: final");
    // What rerecord would write names the recorded workspace only, never the live one.
    const bridgeText = first.bridgeLane.map((entry) => entry.line).join("\n");
    expect(bridgeText).toContain(`${HOST_WORKSPACE}/notes.txt`);
    expect(bridgeText).not.toContain(liveRoot);

    // A host directory of that name with other content changes nothing and is left alone.
    await mkdir(HOST_WORKSPACE, { recursive: true });
    const decoy = "title: host\nstatus: final\nowner: somebody\n";
    await writeFile(path.join(HOST_WORKSPACE, "notes.txt"), decoy);
    const second = await replayRecording(recording);
    expect(second.divergences).toEqual([]);
    expect(serializeThreadLane(normalizeThreadLane(second.lane.events))).toBe(oracle);
    expect(second.bridgeLane.map((entry) => entry.line)).toEqual(first.bridgeLane.map((entry) => entry.line));
    expect(await readFile(path.join(HOST_WORKSPACE, "notes.txt"), "utf8")).toBe(decoy);
    pids.push(...second.pids);

    expect(pids.filter(isAlive)).toEqual([]);
  });
});
