/**
 * `rerecord` is closed under bridge changes (issue 24, Build 5): recordings made with an older
 * bridge — the fixture ACP agent `acp-hermes-agent` recorded through a variant of the ACP bridge
 * that sends no agentMessage text deltas (fixtures/older-acp-bridge.mjs) — are refreshed by
 * today's bridge, whose new lines are caused by agent lines, and then `check` passes on them.
 * And the converse: a refreshed recording that would not replay is never written — `rerecord`
 * exits 1 naming the seq and what diverged, and the recording and oracle root are left as they
 * were (fixtures/extra-on-first-run.mjs: a bridge whose output differs between its first
 * process and the later ones, so the verify replay misses a line the refresh saw).
 * And the anchoring itself (a line the new bridge writes goes after the agent line that caused it,
 * not only after the runtime's line before it): a cell made here paces the omp fixture agent's one
 * message over three chunks, each after a round trip to the bridge, recorded through a bridge that
 * lost the first text line (fixtures/first-text-lost-bridge.mjs). Anchored after the runtime's line
 * only, that line would be aligned onto the next text line's place, behind the agent's second
 * chunk, and the refreshed recording diverges (checked by giving `liveLinesOf` in rerecord-cell.ts
 * the runtime lane only: REFUSED, "expected … thread/delta [item.textClose, item.textDelta]; the bridge
 * went idle without it"); anchored after the agent's first chunk, it replays.
 * Spawns the compiled bridges (fresh `dist/` needed).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
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

/** The ACP family, except that `provider`'s fixture agent records through the bridge module `older`. */
function olderBridgeFamily(provider = PROVIDER, older = OLDER_BRIDGE): BridgeFamily {
  const acp = BRIDGE_FAMILIES.find((f) => f.id === "acp")!;
  const fixture = FIXTURE_RECORD_PROVIDERS[provider]!;
  return { ...acp, recordProviders: () => ({ fixtures: { [provider]: { ...fixture, modulePath: older } } }) };
}

const OMP = "acp-omp-fixture";
const PACED = "paced-message";
const chunk = (text: string) => ({ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text }, messageId: "fx-omp-msg-1" } });
// A round trip the agent waits for (omp reads through the client), so the next chunk comes only after the bridge handled this one.
const roundTrip = { request: { method: "fs/read_text_file", params: { sessionId: "{{sessionId}}", path: "{{cwd}}/notes.txt" } } };

/** A cells root holding one cell: the omp fixture agent answers in one message of three chunks, each followed by a round trip. */
function pacedCells(root: string): string {
  const cells = path.join(root, "cells");
  const dir = path.join(cells, PACED);
  mkdirSync(path.join(dir, "agents"), { recursive: true });
  mkdirSync(path.join(dir, "workspace"), { recursive: true });
  writeFileSync(path.join(dir, "workspace", "notes.txt"), "status: draft\n");
  const steps = [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "Tell me about notes.txt in three parts." }];
  writeFileSync(path.join(dir, "cell.json"), JSON.stringify({ description: "One agent message in three paced chunks.", threadId: "thr_paced", options: { permissionMode: "full" }, steps }));
  const prompts = [{ steps: [chunk("One, "), roundTrip, chunk("two, "), roundTrip, chunk("three."), roundTrip, { end: "end_turn" }] }];
  writeFileSync(path.join(dir, "agents", `${OMP}.json`), JSON.stringify({ prompts }));
  return cells;
}

/** The seq of the agent's chunk saying `text`. */
const chunkSeq = (agentLane: string, text: string) =>
  agentLane
    .split("\n")
    .filter((l) => l.includes('\\"agent_message_chunk\\"') && l.includes(`\\"text\\":\\"${text}\\"`))
    .map((l) => JSON.parse(l).seq as number)[0]!;

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

  it("a line the new bridge writes is anchored after the agent line that caused it, not only after the runtime's: the paced message replays", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "rerecord-anchor-"));
    temps.push(root);
    const recordings = path.join(root, "recordings");
    const lanes = path.join(root, "lanes");
    const older = path.join(repoRoot, "test", "rerecord", "fixtures", "first-text-lost-bridge.mjs");
    await recordCell({ providerId: OMP, cell: PACED, cellsRoot: pacedCells(root), outRoot: recordings, lanesRoot: lanes, redact: [], now: Date.now, families: [olderBridgeFamily(OMP, older)] });
    const dir = path.join(recordings, OMP, PACED);
    // The older bridge lost the first chunk's line: two text lines for three chunks.
    expect(agentTextLines(path.join(dir, "bridge→runtime.ndjson"))).toHaveLength(2);

    const rerecord = await runCli(["rerecord", "--recordings", recordings, "--lanes", lanes, "--provider", OMP, "--cell", PACED]);
    expect(rerecord.code, rerecord.out + rerecord.err).toBe(0);
    expect(rerecord.out).toContain("1 rerecorded, 0 diverged, 0 refused");
    const check = await runCli(["check", "--recordings", recordings, "--lanes", lanes, "--provider", OMP, "--cell", PACED]);
    expect(check.code, check.out + check.err).toBe(0);
    expect(check.out).toMatch(/^PASS /m);

    // The regained line sits after the agent's first chunk and before its second.
    const agentLane = readFileSync(path.join(dir, "provider→bridge.ndjson"), "utf8");
    const [first] = agentTextLines(path.join(dir, CURRENT)).map((l) => JSON.parse(l).seq as number);
    expect(first).toBeGreaterThan(chunkSeq(agentLane, "One, "));
    expect(first).toBeLessThan(chunkSeq(agentLane, "two, "));
  }, 240_000);

  it("a refreshed recording that would not replay is refused: exit 1, the seq and what diverged, nothing written", async () => {
    const box = await sandbox();
    temps.push(box.root);
    const dir = await copyCell(box, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await hashes(dir);
    const mark = path.join(box.root, "first-run");
    // Stubbed, not written: the stub is undone even if this file shares its worker (vitest.config.ts).
    vi.stubEnv("PARITY_TEST_FIRST_RUN_MARK", mark);
    try {
      const run = await runCli(["rerecord", "--recordings", box.recordings, "--lanes", box.lanes, "--provider", "echo", "--cell", "turn", "--module", "test/rerecord/fixtures/extra-on-first-run.mjs"]);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/^REFUSED echo\/turn: a replay of the refreshed recording diverges at echo\/turn: seq [\d.]+ \(bridge→runtime\): .+; nothing written/m);
      expect(run.out).toContain("0 rerecorded, 0 diverged, 1 refused");
    } finally {
      vi.unstubAllEnvs();
    }
    expect(existsSync(mark)).toBe(true);
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(path.join(dir, CURRENT))).toBe(false);
    expect(existsSync(box.lanes)).toBe(false);
  });
});
