import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillProfileTemplate } from "../../harness/families/agent-profile.js";
import { CODEX_HOST_PROGRAMS } from "../../harness/agents/codex.js";
import { CODEX_PROFILE } from "../../harness/families/codex/profile.js";
import { missingHostPrograms } from "../../harness/families/host-programs.js";
import { agentsDir, packageRoot } from "../../harness/families/record-provider.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot } from "../cli/run-cli.js";
import { crossRunVerdict } from "../helpers/cross-run.js";

// The real Codex CLI (agents/ lockfile, @openai/codex 0.171.0) recorded live, offline: a fresh
// recording of turn-tools passes `parity check` against the committed oracle (the cross-run
// comparison, test/helpers/cross-run.ts), so everything that varies between runs (times, ids,
// process ids, rollout paths, the workspace) is normalized or never reaches the thread lane, and
// what codex's scheduling decides is only what a run-to-run rule names (harness/compare/run-to-run.ts:
// once, under load, the command's token count came before its output, rule 6). Not bytes: a
// byte-for-byte test fails on the scheduler, not on the bridge. Runs where the CLI and what it needs of the host (bubblewrap: without
// it Codex warns into the lane, issue 38) are installed; under CI, where they always are, a missing
// one fails (record says which, in one line).

// Made when the file runs a test: a skipped file runs no hook, so a directory made at load would be left (issue 42).
let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-codex-live-"));
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});
const installed = existsSync(fillProfileTemplate(CODEX_PROFILE.command, { agents: agentsDir(), repo: packageRoot() })) && missingHostPrograms(CODEX_HOST_PROGRAMS, process.env.PATH).length === 0;

describe("codex recorded live, offline", () => {
  it.skipIf(!installed && process.env.CI !== "true")(
    "turn-tools: a second recording passes check against the committed oracle (the run-to-run rules only), with the same CLI version",
    async () => {
      const result = await recordCell({
        providerId: "codex",
        cell: "turn-tools",
        cellsRoot: path.join(repoRoot, "cells"),
        outRoot: path.join(root, "rec"),
        lanesRoot: path.join(root, "rec", "lanes"),
        redact: [],
        now: () => Date.now(),
      });
      expect(result.manifest.cliVersion).toBe((await readRecording(path.join(repoRoot, "recordings", "codex", "turn-tools"))).manifest.cliVersion);
      const verdict = await crossRunVerdict("codex", "turn-tools", result);
      expect(verdict.diffs).toEqual([]);
      expect(verdict.passed).toBe(true);
    },
    240_000,
  );
});
