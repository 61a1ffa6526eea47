import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { GLOBAL_SETUP_NPM_TEST, GLOBAL_SETUP_RUN, ISOLATED } from "../../vitest.config.js";

// The shared vitest project (vitest.config.ts) runs its files one after another in one worker with
// one module cache. Env stubs, global stubs and spies are undone after every test
// (test/helpers/undo-stubs.ts); what that cannot undo must stay in a file of ISOLATED: a module
// replaced with vi.mock / vi.doMock (the module cache is shared), a changed working directory, and
// process.env written by hand (use vi.stubEnv, which is undone). A global setup file of the config
// (GLOBAL_SETUP_NPM_TEST) runs once in vitest's main process before any worker, so its env writes
// are the run's starting env, not a leak from one file to the next.

const repoRoot = path.resolve(import.meta.dirname, "../..");
const SELF = "test/qa/test-isolation.test.ts";

/** What a file of the shared project may not do, each with the reason printed on failure. */
const LEAKS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /\bvi\.(?:mock|doMock|unmock|doUnmock)\(/, what: "replaces a module (vi.mock): the next file in the worker would get the mock" },
  { pattern: /\bprocess\.chdir\(/, what: "changes the working directory of the worker" },
  { pattern: /\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|\bdelete\s+process\.env\b|Object\.assign\(\s*process\.env\b/, what: "writes process.env by hand (use vi.stubEnv, undone after each test)" },
];

/** The leaks `text` shows, as `what` strings (empty when none). */
function leaksOf(text: string): string[] {
  return LEAKS.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
}

/** Every `.ts` file under `test/`, repo-relative with `/`. */
function testSources(): string[] {
  return (readdirSync(path.join(repoRoot, "test"), { recursive: true, encoding: "utf8" }) as string[])
    .filter((file) => file.endsWith(".ts"))
    .map((file) => `test/${file.split(path.sep).join("/")}`)
    .sort();
}

describe("test isolation: what the shared vitest project may not do", () => {
  const isIsolated = picomatch([...ISOLATED]);

  it("the detector sees each kind of leak and passes what is undone anyway", () => {
    expect(leaksOf('vi.mock("node:fs", () => ({}));')).toHaveLength(1);
    expect(leaksOf("process.chdir(dir);")).toHaveLength(1);
    expect(leaksOf("process.env.HOME = dir;")).toHaveLength(1);
    expect(leaksOf('process.env["HOME"] = dir;')).toHaveLength(1);
    expect(leaksOf("delete process.env.TOKEN;")).toHaveLength(1);
    expect(leaksOf('vi.stubEnv("HOME", dir); if (process.env.HOME === dir) vi.spyOn(console, "log");')).toEqual([]);
  });

  it("every file that leaks is a test file of ISOLATED (helpers are imported by shared files)", () => {
    const offenders = testSources()
      .filter((file) => file !== SELF)
      .flatMap((file) => {
        const leaks = leaksOf(readFileSync(path.join(repoRoot, file), "utf8"));
        const allowed = (file.endsWith(".test.ts") && isIsolated(file)) || GLOBAL_SETUP_NPM_TEST.includes(file) || GLOBAL_SETUP_RUN.includes(file);
        return leaks.length === 0 || allowed ? [] : [`${file}: ${leaks.join("; ")}`];
      });
    expect(offenders).toEqual([]);
  });

  it("each global setup file of npm test is a file under test/helpers", () => {
    expect(GLOBAL_SETUP_NPM_TEST.filter((file) => !file.startsWith("test/helpers/") || !testSources().includes(file))).toEqual([]);
  });

  it("each ISOLATED entry names at least one test file", () => {
    const files = testSources().filter((file) => file.endsWith(".test.ts"));
    expect(ISOLATED.filter((glob) => !files.some((file) => picomatch(glob)(file)))).toEqual([]);
  });
});
