/**
 * `rerecord` is closed under bridge changes (issue 24, Build 5): recordings made with an older
 * bridge — the fixture ACP agent `acp-hermes-agent` recorded through a variant of the ACP bridge
 * that sends no agentMessage text deltas (fixtures/older-acp-bridge.mjs) — are refreshed by
 * today's bridge, whose new lines are caused by agent lines, and then `check` passes on them.
 * And the converse: a refreshed recording that would not replay is never written — `rerecord`
 * exits 1 naming the seq and what diverged, and the recording and oracle root are left as they
 * were (fixtures/extra-on-first-run.mjs: a bridge whose output differs between its first
 * process and the later ones, so the verify replay misses a line the refresh saw).
 * Spawns the compiled bridges (fresh `dist/` needed).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BRIDGE_FAMILIES, type BridgeFamily } from "../../harness/families/index.js";
import { FIXTURE_RECORD_PROVIDERS } from "../../harness/families/acp/fixture-agents.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { copyCell, hashes, parity as runCli, repoRoot, sandbox } from "./helpers.js";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CURRENT = "bridge→runtime.current.ndjson";
const PROVIDER = "acp-hermes-agent";
const OLDER_BRIDGE = path.join(repoRoot, "test", "rerecord", "fixtures", "older-acp-bridge.mjs");

/** The ACP family, except that its fixture agent records through the older bridge variant. */
function olderBridgeFamily(): BridgeFamily {
  const acp = BRIDGE_FAMILIES.find((f) => f.id === "acp")!;
  const fixture = FIXTURE_RECORD_PROVIDERS[PROVIDER]!;
  return { ...acp, recordProviders: () => ({ fixtures: { [PROVIDER]: { ...fixture, modulePath: OLDER_BRIDGE } } }) };
}

const agentTextLines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.includes('\\"item.textDelta\\"') && l.includes('\\"agentMessage\\"'));

describe("rerecord then check, on recordings an older bridge made with the fixture agent", () => {
  it.each(["turn-tools", "resume"])(
    "%s: today's bridge adds lines after the agent lines that cause them, and the refreshed recording checks green",
    async (cell) => {
      const root = mkdtempSync(path.join(tmpdir(), "rerecord-older-"));
      temps.push(root);
      const recordings = path.join(root, "recordings");
      const lanes = path.join(root, "lanes");
      await recordCell({ providerId: PROVIDER, cell, cellsRoot: path.join(repoRoot, "cells"), outRoot: recordings, lanesRoot: lanes, redact: [], now: Date.now, families: [olderBridgeFamily()] });
      const dir = path.join(recordings, PROVIDER, cell);
      // The older bridge's recording: no agent text in its bridge lane, so its oracle has none either.
      expect(agentTextLines(path.join(dir, "bridge→runtime.ndjson"))).toEqual([]);
      const olderOracle = readFileSync(path.join(lanes, PROVIDER, `${cell}.json`), "utf8");

      const rerecord = await runCli(["rerecord", "--recordings", recordings, "--lanes", lanes, "--provider", PROVIDER, "--cell", cell]);
      expect(rerecord.code, rerecord.out + rerecord.err).toBe(0);
      expect(rerecord.out).toContain("1 rerecorded, 0 diverged, 0 refused");
      const current = path.join(dir, CURRENT);
      expect(agentTextLines(current).length).toBeGreaterThan(0);
      expect(readFileSync(path.join(lanes, PROVIDER, `${cell}.json`), "utf8")).not.toBe(olderOracle);

      const check = await runCli(["check", "--recordings", recordings, "--lanes", lanes, "--provider", PROVIDER, "--cell", cell]);
      expect(check.code, check.out + check.err).toBe(0);
      expect(check.out).toMatch(/^PASS /m);
      // Each new line sits after the agent line that caused it: the lane is in seq order, and every
      // agent text delta comes after some agent line (none hoisted before the agent spoke).
      const seqs = readFileSync(current, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).seq as number);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      // Three bridge runs (record, rerecord, its verify replay) and a check: a ceiling, not a verdict.
    },
    240_000,
  );

  it("a refreshed recording that would not replay is refused: exit 1, the seq and what diverged, nothing written", async () => {
    const box = await sandbox();
    temps.push(box.root);
    const dir = await copyCell(box, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await hashes(dir);
    const mark = path.join(box.root, "first-run");
    process.env.PARITY_TEST_FIRST_RUN_MARK = mark;
    try {
      const run = await runCli(["rerecord", "--recordings", box.recordings, "--lanes", box.lanes, "--provider", "echo", "--cell", "turn", "--module", "test/rerecord/fixtures/extra-on-first-run.mjs"]);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/^REFUSED echo\/turn: a replay of the refreshed recording diverges at echo\/turn: seq [\d.]+ \(bridge→runtime\): .+; nothing written/m);
      expect(run.out).toContain("0 rerecorded, 0 diverged, 1 refused");
    } finally {
      delete process.env.PARITY_TEST_FIRST_RUN_MARK;
    }
    expect(existsSync(mark)).toBe(true);
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(path.join(dir, CURRENT))).toBe(false);
    expect(existsSync(box.lanes)).toBe(false);
  }, 120_000);
});
