import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { filesNeedingShared, sharedExclusions } from "../helpers/shared-files.js";
import { repoRoot } from "../helpers/run-cli.js";

describe("the test files left out in a clone with no ../shared", () => {
  let dir: string;
  let root: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-shared-files-"));
    root = path.join(dir, "clone");
    await mkdir(path.join(root, "test", "a"), { recursive: true });
    await writeFile(path.join(root, "test", "a", "reads.test.ts"), 'const r = path.resolve(repoRoot, "../shared/recordings");\n');
    await writeFile(path.join(root, "test", "a", "joined.ci.ts"), 'const r = path.join(repoRoot, "..", "shared");\n');
    await writeFile(path.join(root, "test", "a", "guarded.test.ts"), 'if (sharedInputPresent(path.resolve(repoRoot, "../shared"))) {}\n');
    await writeFile(path.join(root, "test", "a", "plain.test.ts"), "const shared = 1;\n");
    await writeFile(path.join(root, "test", "a", "helper.ts"), 'export const plain = 1;\nexport const realRoot = path.resolve(repoRoot, "../shared/recordings");\n');
    await writeFile(path.join(root, "test", "a", "via-helper.test.ts"), 'import { realRoot } from "./helper.js";\n');
    await writeFile(path.join(root, "test", "a", "other-export.test.ts"), 'import { plain } from "./helper.js";\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("are the test files that read ../shared without a per-test guard, by path or through a helper's export that does", () => {
    expect(filesNeedingShared(root)).toEqual(["test/a/joined.ci.ts", "test/a/reads.test.ts", "test/a/via-helper.test.ts"]);
  });

  test("are left out with one line naming the missing folder, and never under CI=true", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(sharedExclusions(root, { CI: "true" })).toEqual([]);
    expect(write).not.toHaveBeenCalled();
    expect(sharedExclusions(root, {})).toEqual(["test/a/joined.ci.ts", "test/a/reads.test.ts", "test/a/via-helper.test.ts"]);
    expect(write).toHaveBeenCalledTimes(1);
    expect(String(write.mock.calls[0]![0])).toBe(`vitest: ${path.join(dir, "shared")} is missing (the real acp-cursor recordings): 3 test files that read it are left out (CI=true requires it)\n`);
  });

  test("in this repository, every file that reads the real recordings is found", () => {
    // A known reader of ../shared (the CI gate over the real cursor recordings), unguarded by design.
    expect(filesNeedingShared(repoRoot)).toContain("test/cli/check-gate.test.ts");
    // …and one that reads them only through a helper's export (test/replay/helpers.ts cursorRecordings).
    expect(filesNeedingShared(repoRoot)).toContain("test/check/batch.test.ts");
    expect(filesNeedingShared(repoRoot)).not.toContain("test/qa/build-once.ci.ts");
  });
});
