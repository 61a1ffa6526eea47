/**
 * vitest setup file, run in every test file: after each test, undoes every env stub
 * (`vi.stubEnv`), global stub (`vi.stubGlobal`) and spy (`vi.spyOn`) the test left. Files of the
 * shared project (vitest.config.ts) run one after another in one worker, so a stub left by the last
 * test of one file would otherwise reach the next file's top level and hooks. A test's own
 * `afterEach` runs before this one (vitest runs after-hooks last-registered first).
 */
import { afterEach, vi } from "vitest";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});
