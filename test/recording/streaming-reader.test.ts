import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listRecordings, readMergedEntries, readRecording, validateRecording } from "../../harness/recording/reader.js";
import { validEntries, writeRecording } from "./fixture.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const line = (e: object): string => `${JSON.stringify(e)}\n`;

async function collect<T>(entries: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const entry of entries) all.push(entry);
  return all;
}

/** The error a promise rejects with, as file, line and message. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    const { file, line: at, message } = error as { file?: string; line?: number; message: string };
    return { file, line: at, message };
  }
  return "no error";
}

describe("streaming recording readers", () => {
  it("readMergedEntries streams what merged() returns for every committed recording, with and without its current lane", async () => {
    const locations = await listRecordings([path.join(repoRoot, "recordings")]);
    let withCurrent = 0;
    for (const location of locations) {
      const recording = await readRecording(location.dir);
      if (recording.currentBridgeLane !== null) withCurrent += 1;
      for (const useCurrent of [true, false]) {
        expect(await collect(readMergedEntries(location.dir, { useCurrent })), location.dir).toEqual(recording.merged({ useCurrent }));
      }
    }
    expect(withCurrent).toBeGreaterThan(0);
  });

  it("validateRecording accepts what readRecording accepts and fails with readRecording's error, file and line", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "parity-validate-"));
    try {
      const entries = validEntries();
      const first = entries["bridge→provider"][0]!;
      const mutations: Array<(dir: string) => Promise<void>> = [
        async () => {},
        // a duplicate seq across lanes, at line 2 of the later lane
        (dir) => appendFile(path.join(dir, "bridge→provider.ndjson"), line({ ...first, seq: 1 })),
        // a seq going backwards inside one lane
        (dir) => appendFile(path.join(dir, "bridge→provider.ndjson"), line({ ...first, seq: 0.5 })),
        // manifest counts that disagree with the lanes
        (dir) => appendFile(path.join(dir, "bridge→provider.ndjson"), line({ ...first, seq: 9 })),
        // a truncated line
        (dir) => appendFile(path.join(dir, "bridge→runtime.ndjson"), line({ ...entries["bridge→runtime"][0]!, seq: 9 }).slice(0, 30)),
        // a current lane reusing a seq of another lane
        (dir) => writeFile(path.join(dir, "bridge→runtime.current.ndjson"), line({ ...entries["bridge→runtime"][0]!, seq: 2 })),
      ];
      const seen = new Set<string>();
      for (const [index, mutate] of mutations.entries()) {
        const dir = await writeRecording(path.join(work, String(index)), "fixture", "cell");
        await mutate(dir);
        const expected = await failure(readRecording(dir, { expect: { provider: "fixture", cell: "cell" } }));
        expect(await failure(validateRecording(dir, { expect: { provider: "fixture", cell: "cell" } })), `mutation ${index}`).toEqual(expected);
        seen.add(JSON.stringify(expected));
      }
      // Each mutation is a different failure (and the first none at all).
      expect(seen.size).toBe(mutations.length);
      expect([...seen][0]).toBe('"no error"');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
