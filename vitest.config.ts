import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { sharedExclusions } from "./test/helpers/shared-files.js";

/**
 * Test files that run in a fresh worker each (vitest's default isolation). Every other file shares
 * its worker, and so its module cache, with the files run before it: importing the bridges and the
 * harness from source costs about 1.5–2 s of CPU per file, more than most files' tests.
 * - `test/check/one-read.test.ts` replaces `node:fs` with `vi.mock`, which must not reach a file
 *   run after it in the same worker.
 * - `test/api/vitest-helper.test.ts`, `vitest-unawaited.test.ts` run `checkCell` in their own
 *   process, whose temp session points the process's TMPDIR at itself while a call runs
 *   (harness/vitest/temp-session.ts): a call that outlives its test must not move the next file's
 *   temp dirs into a session that is then removed.
 * The end-to-end files (determinism, review, the reports, rerecord, outside-cell, the live
 * recordings) were isolated too, out of caution; none leaks what sharing cannot undo
 * (test/qa/test-isolation.test.ts), and each fresh worker cost its import again, so they share.
 */
export const ISOLATED = ["test/check/one-read.test.ts", "test/api/vitest-helper.test.ts", "test/api/vitest-unawaited.test.ts"];

/**
 * Global setup of `npm test`'s projects only (`npm run test:ci` leaves `projects` out, and its README
 * tour runs `npm ci`): `NODE_EXTRA_CA_CERTS` is taken out of the env of the workers and of every
 * process a test spawns. Each Node process parsed that CA bundle at start (~45 ms of CPU), and no
 * test of `npm test` talks TLS; the file says why and gives `npm pack` the value back.
 * Global setup runs in vitest's main process, not in a worker: test/qa/test-isolation.test.ts lets
 * these files write process.env.
 */
export const GLOBAL_SETUP_NPM_TEST = ["test/helpers/no-extra-ca-certs.ts"];

/**
 * Global setup of every run (both configs): the run's temp files in one directory under TMPDIR,
 * removed at its end (test/helpers/run-tmpdir.ts); it writes process.env.TMPDIR in the main process,
 * before any worker is forked (test/qa/test-isolation.test.ts lets it).
 */
export const GLOBAL_SETUP_RUN = ["test/helpers/run-tmpdir.ts"];

/** Left out in a clone with no sibling `../shared` (test/helpers/shared-files.ts); none under CI=true. */
const NEEDS_SHARED = sharedExclusions(fileURLToPath(new URL(".", import.meta.url)));

export default defineConfig({
  test: {
    // Child-process tests spawn bridges; keep the pool small on 2-core machines.
    pool: "forks",
    // Two workers even on 2 cores (vitest's default would be cores − 1 = 1): most of a test's
    // wall time is spent waiting on the bridges and agents it starts, and no verdict depends on
    // how busy the machine is (the determinism soak proves it with busy processes pinned).
    maxWorkers: 2,
    // Both only stop a hung test, never decide one: no verdict depends on time (the waits end on
    // their causes), and at load 15+ on 2 cores a healthy end-to-end case took longer than 30 s.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // The fixture agents and the MCP proxy are bundled once per run, not once per test.
    // Every temp file of the run in one directory, removed at its end (test/helpers/run-tmpdir.ts);
    // first, so the bundles and everything after it are made inside it.
    globalSetup: [...GLOBAL_SETUP_RUN, "test/helpers/bundles-setup.ts"],
    // A file that shares its worker must not leave env stubs or spies behind for the next file:
    // they are undone after each test, whatever the test itself does (test/qa/test-isolation.test.ts
    // refuses the changes this cannot undo outside ISOLATED).
    setupFiles: ["test/helpers/undo-stubs.ts"],
    // `extends: true` concatenates arrays, so each project names its own files (none at the root).
    projects: [
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: [...ISOLATED, ...NEEDS_SHARED], isolate: false, globalSetup: GLOBAL_SETUP_NPM_TEST } },
      { extends: true, test: { name: "isolated", include: ISOLATED, exclude: NEEDS_SHARED, globalSetup: GLOBAL_SETUP_NPM_TEST } },
    ],
  },
});
