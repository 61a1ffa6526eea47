import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CURRENT_BRIDGE_LANE_FILE, LANE_DIRECTIONS, laneFileName } from "../../harness/recording/lane-entry.js";
import { listRecordings, readRecording } from "../../harness/recording/reader.js";

// The real cursor recordings are read by path and never copied (docs/design/00-product.md, Real input).
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const sharedRoot = path.resolve(repoRoot, "../shared/recordings");
const cursorRoot = path.join(sharedRoot, "acp-cursor");

/** Counts non-empty lines of a file independently of the reader under test. */
async function countLines(file: string): Promise<number> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((l) => l.length > 0).length;
}

/** The raw `seq` column of a lane file, parsed independently of the reader. */
async function rawSeqs(file: string): Promise<number[]> {
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => (JSON.parse(l) as { seq: number }).seq);
}

describe("listRecordings on the real recordings", () => {
  it("finds every acp-cursor cell directory, sorted", async () => {
    const cells = (await readdir(cursorRoot)).sort();
    const found = await listRecordings([sharedRoot]);
    const cursor = found.filter((r) => r.provider === "acp-cursor");
    expect(cursor.map((r) => r.cell)).toEqual(cells);
    expect(cursor.every((r) => r.dir === path.join(cursorRoot, r.cell))).toBe(true);
    expect(cells.length).toBeGreaterThanOrEqual(8);
  });
});

describe("readRecording on the real acp-cursor recordings", async () => {
  const cells = (await readdir(cursorRoot)).sort();

  it.each(cells)("%s: lane entry counts equal the manifest's lines and the files' line counts", async (cell) => {
    const dir = path.join(cursorRoot, cell);
    const recording = await readRecording(dir);
    const manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8")) as {
      lines: Record<string, number>;
      cell: string;
    };
    expect(recording.manifest.cell).toBe(cell);
    for (const direction of LANE_DIRECTIONS) {
      expect(recording.lanes[direction].length).toBe(manifest.lines[direction]);
      expect(recording.lanes[direction].length).toBe(await countLines(path.join(dir, laneFileName(direction))));
      expect(recording.lanes[direction].every((e) => e.dir === direction)).toBe(true);
    }
  });

  it.each(cells)("%s: merged() is sorted by (run, seq) and holds every lane", async (cell) => {
    const recording = await readRecording(path.join(cursorRoot, cell));
    const merged = recording.merged({ useCurrent: false });
    const total = LANE_DIRECTIONS.reduce((n, d) => n + recording.lanes[d].length, 0);
    expect(merged.length).toBe(total);
    for (let i = 1; i < merged.length; i++) {
      const a = merged[i - 1]!;
      const b = merged[i]!;
      expect(a.run < b.run || (a.run === b.run && a.seq < b.seq)).toBe(true);
    }
  });

  it.each(cells)("%s: the current bridge lane replaces the recorded one in merged()", async (cell) => {
    const dir = path.join(cursorRoot, cell);
    const recording = await readRecording(dir);
    const currentFile = path.join(dir, CURRENT_BRIDGE_LANE_FILE);
    const hasCurrent = (await readdir(dir)).includes(CURRENT_BRIDGE_LANE_FILE);
    expect(recording.currentBridgeLane !== null).toBe(hasCurrent);
    const withCurrent = recording.merged();
    const bridgeSeqs = withCurrent.filter((e) => e.dir === "bridge→runtime").map((e) => e.seq);
    if (hasCurrent) {
      expect(recording.currentBridgeLane!.length).toBe(await countLines(currentFile));
      expect(bridgeSeqs).toEqual([...(await rawSeqs(currentFile))].sort((a, b) => a - b));
      // The current lane's seqs are fractional anchors; none comes from the recorded lane.
      const recorded = new Set(recording.lanes["bridge→runtime"].map((e) => e.seq));
      expect(bridgeSeqs.some((s) => recorded.has(s))).toBe(false);
    } else {
      expect(bridgeSeqs).toEqual(recording.lanes["bridge→runtime"].map((e) => e.seq));
    }
    // Inputs are untouched by the swap.
    const inputs = (useCurrent: boolean): number[] =>
      recording
        .merged({ useCurrent })
        .filter((e) => e.dir !== "bridge→runtime")
        .map((e) => e.seq);
    expect(inputs(true)).toEqual(inputs(false));
  });

  it("a current bridge line follows the runtime line it is anchored after (turn-tools)", async () => {
    const recording = await readRecording(path.join(cursorRoot, "turn-tools"));
    const merged = recording.merged();
    const firstRuntime = merged.findIndex((e) => e.dir === "runtime→bridge");
    expect(firstRuntime).toBeGreaterThanOrEqual(0);
    // Rerecord anchors at runtime seq + ordinal/(n+1): the next entry is a bridge→runtime line.
    expect(merged[firstRuntime + 1]?.dir).toBe("bridge→runtime");
    expect(Math.floor(merged[firstRuntime + 1]!.seq)).toBe(merged[firstRuntime]!.seq);
  });

  it("model-list is process-scoped, has no current lane, and its missing provider lanes read as empty", async () => {
    const recording = await readRecording(path.join(cursorRoot, "model-list"));
    expect(recording.manifest.scope).toBe("process");
    expect(recording.manifest.threadId).toBeNull();
    expect(recording.currentBridgeLane).toBeNull();
    expect(recording.lanes["provider→bridge"]).toEqual([]);
    expect(recording.merged().map((e) => e.dir)[0]).toBe("runtime→bridge");
  });
});

describe("listRecordings follows symbolic links", () => {
  it("finds a cell directory linked into a recordings root and reads it", async () => {
    const { mkdtemp, mkdir, symlink, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const root = await mkdtemp(path.join(tmpdir(), "parity-linked-"));
    try {
      await mkdir(path.join(root, "acp-cursor"));
      await symlink(path.join(cursorRoot, "resume"), path.join(root, "acp-cursor", "resume-linked"), "dir");
      const found = await listRecordings([root]);
      expect(found).toEqual([{ provider: "acp-cursor", cell: "resume-linked", dir: path.join(root, "acp-cursor", "resume-linked") }]);
      const recording = await readRecording(found[0]!.dir);
      expect(recording.lanes["runtime→bridge"].length).toBe(recording.manifest.lines["runtime→bridge"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
