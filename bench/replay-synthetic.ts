import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { once } from "node:events";
import { LANE_DIRECTIONS, laneFileName, type Direction, type LaneEntry } from "../harness/recording/lane-entry.js";
import { MANIFEST_FILE } from "../harness/recording/manifest.js";
import type { Recording } from "../harness/recording/reader.js";
import { shapeOfLine, withId } from "../harness/replay/plan/wire.js";

/**
 * Grows a small real echo recording into a synthetic one of at least `lines` entries for the
 * replay benchmark: the entries before the first `turn/start` are kept once, then
 * the first turn's block (its `turn/start` and every line up to the next runtime request)
 * is repeated with fresh `seq`s, later `ts`s and a fresh runtime request id per copy (the
 * bridge's answer carries the same id), until the total reaches `lines`. Lanes are streamed
 * to `<root>/<provider>/<cell>/` with a manifest, so memory stays flat while writing.
 *
 * @throws Error when the seed has no complete turn
 */
export async function writeSyntheticRecording(seed: Recording, root: string, cell: string, lines: number): Promise<string> {
  const merged = seed.merged({ useCurrent: false });
  const isTurnStart = (e: LaneEntry) => e.dir === "runtime→bridge" && shapeOfLine(e.line).method === "turn/start";
  const first = merged.findIndex(isTurnStart);
  const next = merged.findIndex((e, i) => i > first && e.dir === "runtime→bridge" && shapeOfLine(e.line).kind === "request");
  if (first < 0) throw new Error("the seed recording has no turn/start");
  const prefix = merged.slice(0, first);
  const block = merged.slice(first, next < 0 ? merged.length : next);
  const request = shapeOfLine(block[0]!.line);
  const copies = Math.max(1, Math.ceil((lines - prefix.length) / block.length));

  const dir = path.join(root, seed.manifest.provider, cell);
  await mkdir(dir, { recursive: true });
  // Only lanes the seed has get a file: a recording holds no empty lane file.
  const used = LANE_DIRECTIONS.filter((d) => merged.some((e) => e.dir === d));
  const streams = new Map(used.map((d) => [d, createWriteStream(path.join(dir, laneFileName(d)))]));
  const counts: Record<Direction, number> = { "runtime→bridge": 0, "bridge→runtime": 0, "provider→bridge": 0, "bridge→provider": 0 };
  const write = async (entry: LaneEntry): Promise<void> => {
    counts[entry.dir] += 1;
    const stream = streams.get(entry.dir)!;
    if (!stream.write(`${JSON.stringify(entry)}\n`)) await once(stream, "drain");
  };
  let seq = 0;
  for (const entry of prefix) await write({ ...entry, seq: ++seq });
  const span = block.at(-1)!.ts - block[0]!.ts + 1;
  for (let copy = 0; copy < copies; copy += 1) {
    const id = 1_000_000 + copy;
    for (const entry of block) {
      const shape = shapeOfLine(entry.line);
      const renumber = shape.idKey !== undefined && shape.idKey === request.idKey;
      await write({ ...entry, ts: entry.ts + copy * span, seq: ++seq, line: renumber ? withId(entry.line, id) : entry.line });
    }
  }
  for (const stream of streams.values()) {
    stream.end();
    await once(stream, "close");
  }
  const manifest = { ...seed.manifest, cell, description: "synthetic replay benchmark", note: `made by bench/replay.ts from ${seed.manifest.cell}`, lines: counts };
  await writeFile(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}
