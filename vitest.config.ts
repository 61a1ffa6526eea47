import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Child-process tests spawn bridges; keep the pool small on 2-core machines.
    pool: "forks",
    // Two workers even on 2 cores (vitest's default would be cores − 1 = 1): most of a test's
    // wall time is spent waiting on the bridges and agents it starts, and no verdict depends on
    // how busy the machine is (the determinism soak proves it with busy processes pinned).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
