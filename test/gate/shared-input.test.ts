import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

// Under CI the real recordings are input the suite must read: their absence fails here first,
// with the path, rather than as a scatter of failures (or, before, silent skips).
describe.runIf(process.env.CI === "true")("CI reads the real recordings by path", () => {
  it.each(["../shared/recordings/acp-cursor", "../shared/reference-lanes/acp-cursor"])("%s exists", (rel) => {
    expect(existsSync(path.resolve(repoRoot, rel)), path.resolve(repoRoot, rel)).toBe(true);
  });
});
