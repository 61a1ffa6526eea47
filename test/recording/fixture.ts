import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { LANE_DIRECTIONS, laneFileName, type Direction } from "../../harness/recording/lane-entry.js";

/**
 * Synthetic recordings for tests, written entirely by this project (never derived from the
 * shared cursor recordings). A small process-scoped exchange: initialize over both
 * boundaries and its responses.
 */
export interface FixtureEntry {
  ts: number;
  run: number;
  seq: number;
  dir: Direction;
  line: string;
}

/** A valid four-lane exchange, one entry per lane, seq 1..4 in run 1. */
export function validEntries(): Record<Direction, FixtureEntry[]> {
  const rpc = (value: object): string => JSON.stringify({ jsonrpc: "2.0", ...value });
  return {
    "runtime→bridge": [{ ts: 1000, run: 1, seq: 1, dir: "runtime→bridge", line: rpc({ id: 1, method: "initialize", params: {} }) }],
    "bridge→provider": [{ ts: 1001, run: 1, seq: 2, dir: "bridge→provider", line: rpc({ id: 0, method: "initialize", params: {} }) }],
    "provider→bridge": [{ ts: 1002, run: 1, seq: 3, dir: "provider→bridge", line: rpc({ id: 0, result: {} }) }],
    "bridge→runtime": [{ ts: 1003, run: 1, seq: 4, dir: "bridge→runtime", line: rpc({ id: 1, result: {} }) }],
  };
}

/** A manifest matching {@link validEntries} (or the given lanes' counts). */
export function manifestFor(provider: string, cell: string, lanes: Record<Direction, unknown[]>): object {
  return {
    provider,
    cell,
    threadId: null,
    scope: "process",
    cliVersion: "fixture 0.0.0",
    recordedAt: "2026-01-01",
    description: "synthetic process-scoped exchange",
    note: "written by the test suite",
    bridgeRuns: 1,
    lines: Object.fromEntries(LANE_DIRECTIONS.map((d) => [d, lanes[d].length])),
  };
}

/** Writes a recording directory `<root>/<provider>/<cell>/` from entries; returns the dir. */
export async function writeRecording(root: string, provider: string, cell: string, lanes: Record<Direction, FixtureEntry[]> = validEntries()): Promise<string> {
  const dir = path.join(root, provider, cell);
  await mkdir(dir, { recursive: true });
  for (const d of LANE_DIRECTIONS) {
    if (lanes[d].length === 0) continue;
    await writeFile(path.join(dir, laneFileName(d)), lanes[d].map((e) => `${JSON.stringify(e)}\n`).join(""));
  }
  await writeFile(path.join(dir, "manifest.json"), `${JSON.stringify(manifestFor(provider, cell, lanes), null, 2)}\n`);
  return dir;
}
