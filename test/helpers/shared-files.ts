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
const IMPORT = /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)"/g;

function walkTs(root: string, rel: string, found: string[]): void {
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) walkTs(root, child, found);
    else if (entry.name.endsWith(".ts")) found.push(child);
  }
}

/**
 * The names a helper module exports whose own declaration reads `../shared` (`export const
 * cursorRecordings = path.resolve(repoRoot, "../shared/…")`, or an exported function whose body
 * does): each export's text runs from its `export` to the next one.
 */
function sharedExports(text: string): Set<string> {
  const names = new Set<string>();
  const parts = text.split(/\n(?=export )/);
  for (const part of parts) {
    const name = /^export\s+(?:async\s+)?(?:const|let|function\*?|class)\s+([A-Za-z_$][\w$]*)/.exec(part)?.[1];
    if (name !== undefined && READS_SHARED.test(part)) names.add(name);
  }
  return names;
}

/**
 * Every `*.test.ts`/`*.ci.ts` file under `testDir` (relative to `root`, `/`-separated) that reads
 * `../shared` unguarded: by path itself, or through a name a helper module of the tests exports
 * from it (`cursorRecordings` of test/replay/helpers.ts).
 */
export function filesNeedingShared(root: string, testDir = "test"): string[] {
  const files: string[] = [];
  walkTs(root, testDir, files);
  const texts = new Map(files.map((rel) => [rel, readFileSync(path.join(root, rel), "utf8")]));
  const helperNames = new Map<string, Set<string>>();
  for (const [rel, text] of texts) {
    if (/\.(test|ci)\.ts$/.test(rel)) continue;
    const names = sharedExports(text);
    if (names.size > 0) helperNames.set(rel, names);
  }
  const found: string[] = [];
  for (const [rel, text] of texts) {
    if (!/\.(test|ci)\.ts$/.test(rel) || GUARDED.test(text)) continue;
    let needs = READS_SHARED.test(text);
    for (const m of text.matchAll(IMPORT)) {
      if (needs) break;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[2]!)).replace(/\.js$/, ".ts");
      const names = helperNames.get(target);
      if (names === undefined) continue;
      const imported = m[1]!.split(",").map(
        (n) =>
          n
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0]!,
      );
      needs = imported.some((n) => names.has(n));
    }
    if (needs) found.push(rel);
  }
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
