import { defineConfig } from "vitest/config";
import base, { GLOBAL_SETUP_RUN } from "./vitest.config.js";

// The thorough end-to-end files (`test/**/*.ci.ts`) that `.ci/run` runs after `npm test`, with
// `npm run test:ci`: the README tour in a fresh clone, every real ACP agent recorded live, and the
// whole-matrix determinism soak. Each repeats work of the whole matrix or of every agent; `npm test`
// keeps the bursty/broken determinism pair and two live recordings (README, "Tests"); the tour runs
// only here.
// One file at a time: the soak's busy loops are there to load its own replays, not the tour's or
// the agents' (beside them, at load 20, the tour's 600 s hang bound was reached).
// The base config's `projects` name their own files (every `*.test.ts`): left out here, so the
// include below is the one that counts.
const { projects: _projects, ...shared } = base.test ?? {};
// Under the run's one TMPDIR directory, as npm test (test/helpers/run-tmpdir.ts); the live
// recordings too, below it (real-agents.ci.ts).
export default defineConfig({ ...base, test: { ...shared, globalSetup: [...GLOBAL_SETUP_RUN, "test/helpers/bundles-setup.ts"], include: ["test/**/*.ci.ts"], fileParallelism: false } });
