import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { piCliPath } from "../../harness/agents/pi.js";
import { agentsDir } from "../../harness/families/record-provider.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot } from "../cli/run-cli.js";

// The real pi 0.73.1 (spec 60), recorded live offline through the native pi bridge: a fresh
// recording of turn-tools gives the committed oracle byte for byte, and its manifest names pi's
// real version. Runs where the agents are installed (npm run agents:install); under CI, where
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
    "pi turn-tools: a second recording gives the committed oracle byte for byte",
    async () => {
      await recordCell({
        providerId: "pi",
        cell: "turn-tools",
        cellsRoot: path.join(repoRoot, "cells"),
        outRoot: path.join(root, "rec"),
        lanesRoot: path.join(root, "rec", "lanes"),
        redact: [],
        now: () => Date.now(),
      });
      const fresh = readFileSync(path.join(root, "rec", "lanes", "pi", "turn-tools.json"), "utf8");
      expect(fresh).toBe(readFileSync(path.join(repoRoot, "lanes", "pi", "turn-tools.json"), "utf8"));
      const manifest = (await readRecording(path.join(root, "rec", "pi", "turn-tools"))).manifest;
      expect(manifest.cliVersion).toBe("pi 0.73.1");
    },
    300_000,
  );
});
