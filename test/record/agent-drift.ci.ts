/**
 * The registry's neighbouring versions against the pins (issue 41 build point 7, "Done when"):
 * `parity drift --provider codex --from 0.170.0 --json` and `--provider claude-code --from 2.1.325
 * --json` install the older version from the npm registry into the agent cache, record every
 * committed cell of the provider with it and with the pinned version, the same day on this machine,
 * and name the real changes between them once each. What they say is checked here as it was read
 * on 2026-12-07 (README "Upgrading an agent"):
 *
 * - codex 0.170.0 sends two more `turn/diff/updated` in turn-tools than 0.171.0 (4 against 2, in
 *   every run). Whether 0.170.0 streams a command's output (`item/commandExecution/outputDelta`)
 *   varies from run to run (3 runs: none, both cells, one cell), so a single drift named it a new
 *   kind one time and nothing the next: the drift runs with `--repeat 3`, which sets such a change
 *   aside as run-to-run variation when one side's own runs differ in it.
 * - claude-code 2.1.332 adds `sandbox_enabled`, `served_by_anthropic` and
 *   `hooks_when_unanswered_kept` to its wire in every cell, and an interrupted turn now reports its
 *   cost and the model's context window (stop-interrupt's lane; a second 2.1.325 recording of it
 *   was byte-identical, so this is the version, not the run).
 *
 * Needs the registry and the agents' install (`npm run agents:install`): skipped where the pinned
 * CLIs are not installed, and under CI, where they always are, it must run. Not in `npm test`: the
 * two drifts record every committed cell of each provider (60 recordings of codex with `--repeat 3`, 30 of
 * claude-code; about 3 and 3 minutes at load 14–18 on a 2-core box), so `.ci/run`
 * runs it with `npm run test:ci`.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DriftReport } from "../../harness/cli/drift.js";
import { fillProfileTemplate } from "../../harness/families/agent-profile.js";
import { CLAUDE_CODE_PROFILE } from "../../harness/families/claude-code/agent-profiles.js";
import { CODEX_PROFILE } from "../../harness/families/codex/profile.js";
import { agentsDir, packageRoot } from "../../harness/families/record-provider.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

/** The cells of `provider` with a committed recording: the drift records every one of them on each side. */
const committedCells = (provider: string): number => readdirSync(path.join(repoRoot, "recordings", provider)).length;

const installed = (command: string) => existsSync(fillProfileTemplate(command, { agents: agentsDir(), repo: packageRoot() }));
const runHere = (installed(CODEX_PROFILE.command) && installed(CLAUDE_CODE_PROFILE.command)) || process.env.CI === "true";

/** The recordings folders a drift printed, removed afterwards (they live beside the run's temp dir). */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function drift(provider: string, from: string, ...more: string[]): Promise<{ code: number; report: DriftReport }> {
  const run = await runCli(["drift", "--provider", provider, "--from", from, "--json", ...more]);
  for (const m of run.err.matchAll(/reuse these recordings with --(?:from|to) (\S+)\n/g)) made.push(m[1]!);
  expect(run.out, run.err).not.toBe("");
  return { code: run.code, report: JSON.parse(run.out) as DriftReport };
}

/** Each wire change is reported once: no two with the same change, kind and path. */
function expectOnceEach(report: DriftReport): void {
  const keys = report.wire.map((w) => `${w.change} ${w.kind} ${w.path ?? ""}`);
  expect(new Set(keys).size).toBe(keys.length);
}

describe("the registry's neighbouring versions against the pins", () => {
  it.skipIf(!runHere)(
    "codex 0.170.0 → 0.171.0 (3 runs a side): two fewer turn diffs in turn-tools; the lanes changed (exit 1)",
    async () => {
      const { code, report } = await drift("codex", "0.170.0", "--repeat", "3");
      expect([report.from.versions, report.to.versions, report.from.failed, report.to.failed]).toEqual([["codex 0.170.0"], ["codex 0.171.0"], [], []]);
      expect(report.common.length).toBe(committedCells("codex"));
      expectOnceEach(report);
      expect(report.lanes).toContainEqual(expect.objectContaining({ op: "remove", where: "turn/diff/updated #2", cells: ["turn-tools"] }));
      expect(report.lanes).toContainEqual(expect.objectContaining({ op: "remove", where: "turn/diff/updated #3", cells: ["turn-tools"] }));
      expect(code).toBe(1);
    },
    1_800_000,
  );

  it.skipIf(!runHere)(
    "claude-code 2.1.325 → 2.1.332: three new wire fields in every cell; an interrupted turn's cost and context window (exit 1)",
    async () => {
      const { code, report } = await drift("claude-code", "2.1.325");
      expect([report.from.versions, report.to.versions, report.from.failed, report.to.failed]).toEqual([["claude-code 2.1.325"], ["claude-code 2.1.332"], [], []]);
      expect(report.common.length).toBe(committedCells("claude-code"));
      expectOnceEach(report);
      for (const path of ["sandbox_enabled", "served_by_anthropic", "response.response.hooks_when_unanswered_kept"]) {
        expect(report.wire).toContainEqual(expect.objectContaining({ change: "field added", path, cells: report.common }));
      }
      expect(report.lanes).toContainEqual(
        expect.objectContaining({ op: "replace", where: "thread/tokenUsage/updated: tokenUsage.modelContextWindow", old: null, new: 200000, cells: ["stop-interrupt"] }),
      );
      expect(code).toBe(1);
    },
    1_800_000,
  );
});
