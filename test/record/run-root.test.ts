import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeRunRoot } from "../../harness/record/record-cell.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("makeRunRoot", () => {
  it("names the run's temp root with eight digits (same token shape in every run) and takes a new number on a clash", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "parity-run-root-"));
    dirs.push(parent);
    const draws = [5, 5, 12_345_678];
    const random = () => draws.shift()!;
    expect(await makeRunRoot(parent, random)).toBe(path.join(parent, "parity-record-00000005"));
    expect(await makeRunRoot(parent, random)).toBe(path.join(parent, "parity-record-12345678"));
    expect(statSync(path.join(parent, "parity-record-12345678")).isDirectory()).toBe(true);
    expect(draws).toEqual([]);
  });
});
