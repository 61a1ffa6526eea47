import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillProfileTemplate } from "../../harness/families/agent-profile.js";
import { CLAUDE_CODE_PROFILE } from "../../harness/families/claude-code/agent-profiles.js";
import { agentsDir, packageRoot } from "../../harness/families/record-provider.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { detectNetworkIsolation } from "../../harness/record/network.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot } from "../cli/run-cli.js";

// The real Claude Code (agents/ lockfile, @anthropic-ai/claude-code 2.1.332, its native binary run
// by path) recorded live, offline, in a fresh network namespace: two fresh recordings of turn-tools
// each give the committed oracle byte for byte, so everything that varies between runs (session
// ids, uuids, request ids, timestamps, durations, pids, socket paths, the workspace and temp
// paths) is normalized or never reaches the thread lane. Runs where the binary is installed and
// a network namespace can be made; under CI, where both always are, either missing fails.

// Made when the file runs a test: a skipped file runs no hook, so a directory made at load would be left (issue 42).
let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-claude-code-live-"));
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});
const installed = existsSync(fillProfileTemplate(CLAUDE_CODE_PROFILE.command, { agents: agentsDir(), repo: packageRoot() }));
const runHere = (installed && detectNetworkIsolation("netns").kind === "netns") || process.env.CI === "true";

describe("claude-code recorded live, offline", () => {
  it.skipIf(!runHere)(
    "turn-tools recorded twice in a network namespace: both oracles are the committed one, byte for byte",
    async () => {
      const committed = readFileSync(path.join(repoRoot, "lanes", "claude-code", "turn-tools.json"), "utf8");
      const version = (await readRecording(path.join(repoRoot, "recordings", "claude-code", "turn-tools"))).manifest.cliVersion;
      for (const run of ["first", "second"]) {
        const result = await recordCell({
          providerId: "claude-code",
          cell: "turn-tools",
          cellsRoot: path.join(repoRoot, "cells"),
          outRoot: path.join(root, run),
          lanesRoot: path.join(root, run, "lanes"),
          redact: [],
          network: "netns",
          now: () => Date.now(),
        });
        expect(result.manifest.cliVersion).toBe(version);
        expect(result.manifest.network).toMatch(/^netns/);
        expect(readFileSync(result.oracleFile, "utf8")).toBe(committed);
      }
    },
    300_000,
  );
});
