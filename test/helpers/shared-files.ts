/**
 * The test files that read the real recordings under `../shared/` by path without guarding each
 * test (`sharedInputPresent`, shared-input.ts). In a clone with no sibling `../shared` (a new user's
 * machine) the vitest configs leave these files out and say so in one line, so `npm test` passes on
 * what the repository holds; under `CI=true` the real input is part of the contract and nothing is
 * left out (a missing `../shared` then fails the tests that read it).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const READS_SHARED = /\.\.\/shared\b|"\.\.", "shared"/;
const GUARDED = /\bsharedInputPresent\b/;

/** Every `*.test.ts`/`*.ci.ts` file under `testDir` (relative to `root`, `/`-separated) that reads `../shared` unguarded. */
export function filesNeedingShared(root: string, testDir = "test"): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (/\.(test|ci)\.ts$/.test(entry.name)) {
        const text = readFileSync(path.join(root, child), "utf8");
        if (READS_SHARED.test(text) && !GUARDED.test(text)) found.push(child);
      }
    }
  };
  walk(testDir);
  return found.sort();
}

/**
 * The files a vitest config leaves out here: none under `CI=true` or when `<root>/../shared` exists,
 * else {@link filesNeedingShared}, with one line on standard error naming what is missing (once per
 * process: a config is evaluated once per run).
 */
export function sharedExclusions(root: string, env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const shared = path.resolve(root, "../shared");
  if (env.CI === "true" || existsSync(shared)) return [];
  const files = filesNeedingShared(root);
  if (files.length > 0) {
    process.stderr.write(`vitest: ${shared} is missing (the real acp-cursor recordings): ${files.length} test files that read it are left out (CI=true requires it)\n`);
  }
  return files;
}
