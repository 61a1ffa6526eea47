import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// The thorough end-to-end files (`test/**/*.ci.ts`) that `.ci/run` runs after `npm test`, with
// `npm run test:ci`: the README tour in a fresh clone, every real ACP agent recorded live, and the
// whole-matrix determinism soak. Each repeats work of the whole matrix or of every agent; `npm test`
// keeps a test of each point on the smallest input that can fail (README, "Tests").
export default defineConfig({ ...base, test: { ...base.test, include: ["test/**/*.ci.ts"] } });
