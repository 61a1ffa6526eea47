/**
 * `rerecord` is closed under bridge changes (issue 24): a recording whose bridge lane an older
 * bridge wrote, refreshed by today's bridge, replays. The inputs are real recordings as the older
 * bridge left them (the committed recorded lanes, without the `.current` a refresh writes):
 *
 * - acp-qwen/approval-deny: qwen asks before it reports the call; today's bridge writes the denied
 *   item when the runtime's answer arrives — a line the recording never had, caused by a runtime line;
 * - acp-opencode/steer: today's bridge splits the agent's two messages (a close between chunks of
 *   the agent's second message) — a line caused by an agent line (the recording as committed until
 *   acp-opencode's recordings were made again by today's bridge, kept in test/fixtures/older-bridge/);
 * - acp-pi/zero-work: today's bridge drops the phantom turn of pi-acp's pre-prompt "\n".
 *
 * Each is rerecorded into a scratch root, then `check` replays it from its `.current` lane: it
 * must pass, and no line the new bridge writes may sit before the input that caused it.
 * Spawns the compiled bridge (fresh `dist/` needed).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../cli/run-cli.js";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CURRENT = "bridge→runtime.current.ndjson";

/** Recordings an older bridge made that the project has since recorded again with today's bridge. */
const OLDER_BRIDGE = path.join(repoRoot, "test", "fixtures", "older-bridge");

/** A scratch recordings root holding `provider/cell` as the older bridge recorded it (no `.current`). */
function olderRecording(provider: string, cell: string): string {
  const root = mkdtempSync(path.join(tmpdir(), "rerecord-closure-"));
  temps.push(root);
  const to = path.join(root, "recordings", provider, cell);
  const kept = path.join(OLDER_BRIDGE, provider, cell);
  const from = existsSync(kept) ? kept : path.join(repoRoot, "recordings", provider, cell);
  cpSync(from, to, { recursive: true, filter: (src) => path.basename(src) !== CURRENT && path.basename(src) !== "alternates" });
  return root;
}

describe("rerecord, then check, on recordings an older bridge made", () => {
  it.each([
    ["acp-qwen", "approval-deny"],
    ["acp-opencode", "steer"],
    ["acp-pi", "zero-work"],
  ])("%s/%s: the refreshed recording replays", async (provider, cell) => {
    const root = olderRecording(provider, cell);
    const recordings = path.join(root, "recordings");
    const lanes = path.join(root, "lanes");
    const rerecord = await runCli(["rerecord", "--recordings", recordings, "--lanes", lanes, "--provider", provider, "--cell", cell]);
    expect(rerecord.err + rerecord.out).not.toMatch(/warning/);
    expect(rerecord.code).toBe(0);
    const current = path.join(recordings, provider, cell, CURRENT);
    expect(existsSync(current)).toBe(true);
    const check = await runCli(["check", "--recordings", recordings, "--lanes", lanes, "--provider", provider, "--cell", cell]);
    expect(check.out).toMatch(/PASS/);
    expect(check.code).toBe(0);
    // Lines anchored after agent lines too: the refreshed lane needs no re-placement to replay.
    const seqs = readFileSync(current, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });
});
