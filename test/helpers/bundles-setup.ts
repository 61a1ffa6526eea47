/**
 * vitest global setup: bundles the entries tests run as processes (the fixture agents, the MCP
 * proxy: `TEST_BUNDLES` in test/acp/fixture-agent-build.ts) once per run, in the main process, and
 * provides their paths to every test file as `inject("testBundles")`. In watch mode they are
 * bundled again before each rerun, so an edited source is never run stale.
 */
import type { TestProject } from "vitest/node";
import { bundleAll, type TestBundleName } from "../acp/fixture-agent-build.js";

declare module "vitest" {
  export interface ProvidedContext {
    testBundles: Record<TestBundleName, string>;
  }
}

/** Provides `testBundles` (bundle name → absolute path of the bundled `.js`). */
export default function setup(project: TestProject): void {
  project.provide("testBundles", bundleAll());
  project.onTestsRerun(() => project.provide("testBundles", bundleAll()));
}
