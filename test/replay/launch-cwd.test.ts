/**
 * A recording whose ACP launch spec names the agent's own `cwd` (a custom agent recorded with
 * `"cwd": …`) replays anywhere: the replay child needs no agent directory, so the rewrite drops
 * it. A new-user trial recorded such an agent, moved on, and `parity check` failed with 16 s of
 * divergences because the bridge tried to spawn the replay child in a directory that was gone.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { repoRoot, runCli } from "../cli/run-cli.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("replays a recording whose launch spec has a cwd that does not exist here", async () => {
  const root = mkdtempSync(path.join(tmpdir(), "launch-cwd-"));
  dirs.push(root);
  const cell = path.join(root, "acp-hermes-agent", "turn-tools");
  cpSync(path.join(repoRoot, "recordings", "acp-hermes-agent", "turn-tools"), cell, { recursive: true });
  const laneFile = path.join(cell, "runtime→bridge.ndjson");
  let planted = 0;
  const lines = readFileSync(laneFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((raw) => {
      const entry = JSON.parse(raw) as { line: string };
      const message = JSON.parse(entry.line) as { params?: { options?: { providerOptions?: { acpLaunchSpec?: Record<string, unknown> } } } };
      const spec = message.params?.options?.providerOptions?.acpLaunchSpec;
      if (!spec) return raw;
      spec.cwd = path.join(root, "gone", "agent-home");
      planted += 1;
      return JSON.stringify({ ...entry, line: JSON.stringify(message) });
    });
  expect(planted).toBeGreaterThan(0);
  writeFileSync(laneFile, `${lines.join("\n")}\n`);
  const result = await runCli(["check", "--recordings", root, "--jobs", "1"]);
  expect(result.code, result.out + result.err).toBe(0);
  expect(result.out).toContain("1 passed, 0 failed");
});
