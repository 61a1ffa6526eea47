import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeRunRoot } from "../../harness/record/record-cell.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("makeRunRoot", () => {
  it("takes the lowest free eight-digit name, the same in every run that is alone, and never an existing path or symlink", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "parity-run-root-"));
    dirs.push(parent);
    expect(await makeRunRoot(parent)).toBe(path.join(parent, "rec-00000000"));
    symlinkSync(path.join(parent, "elsewhere"), path.join(parent, "rec-00000001"));
    mkdirSync(path.join(parent, "rec-00000002"));
    expect(await makeRunRoot(parent)).toBe(path.join(parent, "rec-00000003"));
    expect(statSync(path.join(parent, "rec-00000003")).isDirectory()).toBe(true);
    rmSync(path.join(parent, "rec-00000000"), { recursive: true });
    expect(await makeRunRoot(parent)).toBe(path.join(parent, "rec-00000000"));
  });
});
