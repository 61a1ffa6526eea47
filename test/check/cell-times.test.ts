/**
 * The history of cell times `parity check` keeps to start its longest batches first
 * (harness/check/cell-times.ts): where it lives, what is read back, what a bad file gives.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cellTimesFile, readCellTimes, writeCellTimes } from "../../harness/check/cell-times.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function project(withModules: boolean): string {
  const dir = mkdtempSync(path.join(tmpdir(), "cell-times-"));
  dirs.push(dir);
  if (withModules) mkdirSync(path.join(dir, "node_modules"));
  return dir;
}

describe("cell times", () => {
  it("live in node_modules/.cache/bridge-parity of the project; a project without node_modules keeps none", async () => {
    const dir = project(true);
    const file = cellTimesFile(dir)!;
    expect(file).toBe(path.join(dir, "node_modules", ".cache", "bridge-parity", "cell-times.json"));
    expect(cellTimesFile(project(false))).toBeUndefined();
    await writeCellTimes(undefined, new Map(), new Map([["acp-pi/steer", 5000]]));
    expect(await readCellTimes(undefined)).toEqual(new Map());
  });

  it("a run's times are merged over the earlier ones and read back", async () => {
    const file = cellTimesFile(project(true))!;
    expect(await readCellTimes(file)).toEqual(new Map());
    await writeCellTimes(
      file,
      new Map(),
      new Map([
        ["acp-pi/steer", 5000],
        ["echo/hello", 12],
      ]),
    );
    const earlier = await readCellTimes(file);
    await writeCellTimes(file, earlier, new Map([["echo/hello", 20]]));
    expect(await readCellTimes(file)).toEqual(
      new Map([
        ["acp-pi/steer", 5000],
        ["echo/hello", 20],
      ]),
    );
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ "acp-pi/steer": 5000, "echo/hello": 20 });
  });

  it("a malformed file, or malformed entries, are no history", async () => {
    const file = cellTimesFile(project(true))!;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "{not json");
    expect(await readCellTimes(file)).toEqual(new Map());
    writeFileSync(file, JSON.stringify({ "a/b": "slow", "c/d": -1, "e/f": 7 }));
    expect(await readCellTimes(file)).toEqual(new Map([["e/f", 7]]));
    writeFileSync(file, "[1,2]");
    expect(await readCellTimes(file)).toEqual(new Map());
  });
});
