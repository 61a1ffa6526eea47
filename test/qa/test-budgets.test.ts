/**
 * QA (issue 38): a test carried its own wall-clock budget below the suite's (`rerecord-then-check`
 * 120 s against 180 s) and timed out at load 20–30 where the suite would have waited: a slow
 * machine must make the suite slower, not red. No test, describe block or hook in `test/` may set
 * a budget below `testTimeout` of vitest.config.ts; above it is fine (a file that repeats the
 * matrix). Reads the sources, so it names the file and line.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import config from "../../vitest.config.js";
import { repoRoot } from "../cli/run-cli.js";

const SUITE_MS = config.test?.testTimeout ?? 5000;

/** A trailing `}, 120_000)` of a test or hook, or a `{ timeout: 120_000 }` option of a test or describe block. */
const BUDGETS = [/^\s*\}\s*,\s*(\d[\d_]*)\s*\)/, /^\s*(?:describe|it|test)(?:\.\w+)*\(.*\{\s*timeout:\s*(\d[\d_]*)\s*\}/];

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testSources(file);
    return entry.name.endsWith(".ts") ? [file] : [];
  });
}

describe("test budgets", () => {
  it("the suite's budget is one that a loaded machine needs (at least 180 s)", () => {
    expect(SUITE_MS).toBeGreaterThanOrEqual(180_000);
  });

  it("no test, describe block or hook sets its own budget below the suite's", () => {
    const below: string[] = [];
    for (const file of testSources(path.join(repoRoot, "test"))) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          for (const pattern of BUDGETS) {
            const ms = pattern.exec(line)?.[1];
            if (ms !== undefined && Number(ms.replaceAll("_", "")) < SUITE_MS) below.push(`${path.relative(repoRoot, file)}:${index + 1}: ${line.trim()}`);
          }
        });
    }
    expect(below).toEqual([]);
  });
});
