/**
 * `checkCells` reads and parses each recorded lane file once (issue 25, point 5): a small
 * recording's validation read is held and handed on to the replay and the recorded leg, so no
 * lane file is opened a second time. Lane files are read only through `createReadStream`
 * (harness/recording/line-reader.ts, harness/lanes/oracle-stream.ts); the test counts its calls
 * per file on the committed echo cells, one alone and two in a batch.
 */
import { createReadStream } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { checkCells } from "../../harness/check/check-cells.js";
import { selectRecordings } from "../../harness/recording/select.js";
import { repoRoot } from "../replay/helpers.js";

const opened = vi.hoisted(() => [] as string[]);
vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  const counted = ((file: Parameters<typeof createReadStream>[0], ...rest: unknown[]) => {
    opened.push(String(file));
    return (fs.createReadStream as (...args: unknown[]) => ReturnType<typeof createReadStream>)(file, ...rest);
  }) as typeof createReadStream;
  return { ...fs, default: { ...fs, createReadStream: counted }, createReadStream: counted };
});

describe("one read per recorded lane file", () => {
  it.each([1, 2])(
    "opens each lane file of the echo cells once (%i cell(s) per batch)",
    async (cells) => {
      const all = await selectRecordings([path.join(repoRoot, "recordings")], {});
      const locations = all.filter((l) => l.provider === "echo").slice(0, 2);
      expect(locations).toHaveLength(2);
      opened.length = 0;
      const run = await checkCells({ locations, repoRoot, lanesDir: path.join(repoRoot, "lanes"), allowlist: [], jobs: 1, batch: cells > 1, write: "never" });
      expect(run.run.cells.map((c) => c.status)).toEqual(["pass", "pass"]);
      const laneReads = opened.filter((file) => file.endsWith(".ndjson"));
      const perFile = new Map<string, number>();
      for (const file of laneReads) perFile.set(file, (perFile.get(file) ?? 0) + 1);
      expect(perFile.size).toBeGreaterThanOrEqual(locations.length);
      expect([...perFile].filter(([, n]) => n !== 1)).toEqual([]);
    },
    120_000,
  );
});
