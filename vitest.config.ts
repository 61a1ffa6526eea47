import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Child-process tests spawn bridges; keep the pool small on 2-core machines.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
