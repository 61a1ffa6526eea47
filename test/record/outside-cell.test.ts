import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillProfileTemplate } from "../../harness/families/agent-profile.js";
import { SHIPPED_AGENT_PROFILES } from "../../harness/families/acp/agent-profiles.js";
import { agentsDir, packageRoot } from "../../harness/families/record-provider.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

// A cell outside the project, recorded live from a real agent (spec 50) offline: the recording
// carries the cell's workspace fixture, so it replays after the cell is gone, and diverges
// without that fixture. Runs where the agent is installed (npm run agents:install); under CI,
// where it always is, a missing agent fails. acp-qwen: its bridge reads the
// workspace through fs/read_text_file, so the replay needs the fixture (acp-codex, quicker,
// reads files itself and would not diverge).

const AGENT = "acp-qwen";
// Made when the file runs a test: a skipped file runs no hook, so a directory made at load would be left (issue 42).
let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-outside-cell-"));
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});
const installed = existsSync(fillProfileTemplate(SHIPPED_AGENT_PROFILES[AGENT]!.command, { agents: agentsDir(), repo: packageRoot() }));

describe("a recording of a cell outside the project", () => {
  it.skipIf(!installed && process.env.CI !== "true")(
    "replays in the fixture it carries, and diverges without it",
    async () => {
      const cells = path.join(root, "outside-cells");
      cpSync(path.join(repoRoot, "cells", "turn-tools"), path.join(cells, "outside-turn"), { recursive: true });
      const out = path.join(root, "outside");
      const recorded = await runCli(["record", "--provider", AGENT, "--cell", "outside-turn", "--cells", cells, "--out", out], { cwd: root });
      expect(recorded.code, recorded.err).toBe(0);
      rmSync(cells, { recursive: true });
      const check = ["check", "--recordings", out, "--lanes", path.join(out, "lanes")];
      expect((await runCli(check, { cwd: root })).code).toBe(0);
      const carried = path.join(out, AGENT, "outside-turn", "workspace");
      renameSync(carried, path.join(root, "away"));
      expect((await runCli(check, { cwd: root })).code).toBe(1);
    },
    240_000,
  );
});
