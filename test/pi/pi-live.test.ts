import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { piCliPath } from "../../harness/agents/pi.js";
import { agentsDir } from "../../harness/families/record-provider.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot } from "../cli/run-cli.js";
import { crossRunVerdict } from "../helpers/cross-run.js";

// The real pi 0.73.1 (spec 60), recorded live offline through the native pi bridge: a fresh
// recording of turn-tools passes `parity check` against the committed oracle (the cross-run
// comparison with the run-to-run rules, test/helpers/cross-run.ts: what pi's scheduling decides,
// nothing else), and its manifest names pi's real version. Runs where the agents are installed (npm run agents:install); under CI, where
// they always are, a missing pi fails.

// Made when the file runs a test: a skipped file runs no hook, so a directory made at load would be left (issue 42).
let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-pi-live-"));
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});
const runHere = existsSync(piCliPath(agentsDir())) || process.env.CI === "true";

describe("pi recorded live, offline", () => {
  it.skipIf(!runHere)(
    "pi turn-tools: a second recording passes check against the committed oracle (the run-to-run rules only)",
    async () => {
      const result = await recordCell({
        providerId: "pi",
        cell: "turn-tools",
        cellsRoot: path.join(repoRoot, "cells"),
        outRoot: path.join(root, "rec"),
        lanesRoot: path.join(root, "rec", "lanes"),
        redact: [],
        now: () => Date.now(),
      });
      const verdict = await crossRunVerdict("pi", "turn-tools", result);
      expect(verdict.diffs).toEqual([]);
      expect(verdict.passed).toBe(true);
      const manifest = (await readRecording(path.join(root, "rec", "pi", "turn-tools"))).manifest;
      expect(manifest.cliVersion).toBe("pi 0.73.1");
    },
    300_000,
  );
});
