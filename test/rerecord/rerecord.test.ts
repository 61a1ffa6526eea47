import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import { CURRENT_BRIDGE_LANE_FILE, compareLaneEntries, type LaneEntry } from "../../harness/recording/lane-entry.js";
import { readRecording } from "../../harness/recording/reader.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { NO_VERIFY_REFUSAL } from "../../harness/cli/rerecord.js";
import { copyCell, cursorRecordings, hashes, parity, readEntries, repoRoot, sandbox, tree, type Sandbox } from "./helpers.js";

const boxes: Sandbox[] = [];
afterAll(async () => {
  for (const box of boxes) {
    await chmod(box.root, 0o755).catch(() => undefined);
    await rm(box.root, { recursive: true, force: true });
  }
});
async function box(): Promise<Sandbox> {
  const b = await sandbox();
  boxes.push(b);
  return b;
}

const RECORDED_FILES = ["bridge→provider.ndjson", "bridge→runtime.ndjson", "manifest.json", "provider→bridge.ndjson", "runtime→bridge.ndjson"];
const message = (line: string) => JSON.parse(line) as { id?: string | number; method?: string };
const laneText = (lane: ReturnType<typeof buildThreadLane>) => serializeThreadLane(normalizeThreadLane(lane.events));
const rerecord = (b: Sandbox, provider: string, cell: string, extra: string[] = [], ci = false) =>
  parity(["rerecord", "--recordings", b.recordings, "--provider", provider, "--cell", cell, "--lanes", b.lanes, ...extra], { ci });

/** What must hold of a freshly written current lane against its recording (spec 10 §6.6 steps 2–4). */
function expectAnchored(current: LaneEntry[], runtime: LaneEntry[], agent: LaneEntry[]): void {
  expect(current.length).toBeGreaterThan(0);
  // File order is arrival order and already (run, seq) order.
  expect([...current].sort(compareLaneEntries)).toEqual(current);
  const first = runtime[0]!;
  for (const e of current) {
    expect(e.dir).toBe("bridge→runtime");
    expect(e.line).not.toContain("parity-initialize");
    // Anchored on the input sent before it, a runtime or an agent entry (782f37f): same run,
    // seq in (anchor.seq, anchor.seq + 1), ts = anchor.ts + k.
    const inputs = [...runtime, ...agent].sort(compareLaneEntries);
    const anchor = inputs.filter((r) => compareLaneEntries(r, e) < 0).at(-1) ?? { run: first.run, seq: first.seq - 1, ts: first.ts };
    expect(e.run).toBe(anchor.run);
    expect(Math.floor(e.seq)).toBe(anchor.seq);
    expect(e.seq).not.toBe(anchor.seq);
    expect(e.ts - anchor.ts).toBeGreaterThanOrEqual(1);
  }
  // Causality survives the merge: each answer to a runtime request sorts after that request,
  // and each recorded runtime answer sorts after the bridge request (same id) it answers.
  const merged = [...runtime, ...current].sort(compareLaneEntries);
  const at = (pred: (e: LaneEntry) => boolean) => merged.findIndex(pred);
  for (const r of runtime) {
    const m = message(r.line);
    if (m.id === undefined) continue;
    if (m.method !== undefined) {
      const answer = at((e) => e.dir === "bridge→runtime" && message(e.line).method === undefined && message(e.line).id === m.id);
      if (answer >= 0) expect(answer).toBeGreaterThan(merged.indexOf(r));
    } else {
      const request = at((e) => e.dir === "bridge→runtime" && message(e.line).method !== undefined && message(e.line).id === m.id);
      expect(request).toBeGreaterThanOrEqual(0);
      expect(request).toBeLessThan(merged.indexOf(r));
    }
  }
}

describe("parity rerecord on a copy of the committed echo/turn recording", () => {
  it("writes .current and the oracle, leaves the recorded lanes and manifest byte-identical, and the lane reassembles and replays to the live lane", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await hashes(dir);
    const live = await replayRecording(dir);
    expect(live.ok).toBe(true);

    // Today's echo bridge gives the recorded lane: only --always-current writes a current lane.
    const plain = await rerecord(b, "echo", "turn");
    expect(plain.code).toBe(0);
    expect(plain.out).toContain(`${CURRENT_BRIDGE_LANE_FILE} not written: the recorded bridge lane still assembles to this thread lane`);
    expect(Object.keys(await hashes(dir)).sort()).toEqual(Object.keys(before).sort());

    const run = await rerecord(b, "echo", "turn", ["--always-current"]);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^RERECORDED echo\/turn: \d+ line\(s\), \d+ event\(s\)$/m);
    expect(run.out).toContain("1 rerecorded, 0 diverged, 0 refused, 0 skipped (1 cell)\n");
    expect(run.out).not.toContain("warning");

    const after = await hashes(dir);
    for (const name of Object.keys(before)) expect(after[name], name).toBe(before[name]);
    expect(Object.keys(after).sort()).toEqual([...Object.keys(before), CURRENT_BRIDGE_LANE_FILE].sort());
    // Written by temp file + rename: no temp file is left anywhere.
    expect((await tree(dir)).filter((f) => f.includes(".tmp"))).toEqual([]);
    expect((await tree(b.lanes)).filter((f) => f.includes(".tmp"))).toEqual([]);

    const recording = await readRecording(dir);
    expectAnchored(recording.currentBridgeLane!, recording.lanes["runtime→bridge"], recording.lanes["provider→bridge"]);
    const oracle = await readFile(path.join(b.lanes, "echo", "turn.json"), "utf8");
    expect(oracle).toBe(laneText(live.lane));
    // The committed oracle of the same recording agrees (today's echo bridge is unchanged).
    expect(oracle).toBe(await readFile(path.join(repoRoot, "lanes", "echo", "turn.json"), "utf8"));
    expect(laneText(buildThreadLane(recording, { useCurrent: true }))).toBe(oracle);
    const again = await replayRecording(recording);
    expect(again.ok).toBe(true);
    expect(laneText(again.lane)).toBe(oracle);

    // A second rerecord (now planned from this .current) keeps the oracle byte for byte. The
    // echo bridge mints a random providerThreadId per run, so only that differs in .current.
    const firstCurrent = await readEntries(path.join(dir, CURRENT_BRIDGE_LANE_FILE));
    const second = await rerecord(b, "echo", "turn", ["--always-current"]);
    expect(second.code).toBe(0);
    expect(second.out).toContain("turn.json (unchanged)");
    const secondCurrent = await readEntries(path.join(dir, CURRENT_BRIDGE_LANE_FILE));
    const withoutProviderIds = (lane: LaneEntry[]) => lane.map((e) => ({ ...e, line: e.line.replace(/echo-[0-9a-f]{16}/g, "echo-…") }));
    expect(withoutProviderIds(secondCurrent)).toEqual(withoutProviderIds(firstCurrent));
  });

  it("a divergence prints it, writes nothing for the cell, and exits 1", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await hashes(dir);
    const run = await rerecord(b, "echo", "turn", ["--module", "test/rerecord/fixtures/exit-on-turn.mjs"]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^DIVERGED echo\/turn: seq \d+ \(bridge→runtime\): bridge exited with code 71 after seq \d+/m);
    expect(run.out).toContain("nothing written for this cell");
    expect(run.out).toContain("0 rerecorded, 1 diverged");
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(b.lanes)).toBe(false);
  });

  it("a bridge that now sends fewer notifications than recorded is rerecorded: the walk went on past each, so the new lane is whole", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const run = await rerecord(b, "echo", "turn", ["--module", "test/rerecord/fixtures/drop-text-close.mjs"]);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toContain("1 rerecorded, 0 diverged");
    expect(run.out).toMatch(/^ {2}no longer sent: seq \d+: notification thread\/delta \[item\.textClose\]$/m);
    const current = (await readEntries(path.join(dir, CURRENT_BRIDGE_LANE_FILE))).map((e) => e.line);
    expect(current.some((line) => line.includes('"item.textDelta"'))).toBe(true);
    expect(current.some((line) => line.includes('"item.textClose"'))).toBe(false);
  });

  /** A copy of echo/turn whose prompt (echoed back word by word by the echo bridge) is `text` (seven words). */
  async function echoSaying(b: Sandbox, text: string): Promise<string> {
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const file = path.join(dir, "runtime→bridge.ndjson");
    const entries = await readEntries(file);
    const edited = entries.map((e) => {
      const m = JSON.parse(e.line) as { method?: string; params?: { input?: Array<{ text?: string }> } };
      if (m.method !== "turn/start") return e;
      m.params!.input![0]!.text = text;
      return { ...e, line: JSON.stringify(m) };
    });
    expect(edited).not.toEqual(entries);
    await writeFile(file, edited.map((e) => `${JSON.stringify(e)}\n`).join(""));
    return dir;
  }

  it("a secret the redactor cannot rewrite survives in the live output: exit 3, its line named (never its value), nothing written", async () => {
    const b = await box();
    const dir = await echoSaying(b, "Echo DEPLOY_API_TOKEN=abcdefgh12345678 sentence back, word by word.");
    const before = await hashes(dir);
    const run = await rerecord(b, "echo", "turn");
    expect(run.code).toBe(3);
    expect(run.out).toMatch(/^REFUSED echo\/turn: \d+ secret pattern\(s\) survived redaction of the current lane \(line \d+: secret assignment(; line \d+: secret assignment)*\); nothing written$/m);
    expect(run.out).not.toContain("abcdefgh12345678");
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(b.lanes)).toBe(false);
  });

  it("redaction that would change the lane (a secret value of the environment echoed back): exit 1, nothing written", async () => {
    const b = await box();
    const dir = await echoSaying(b, "Echo zq9-secret-value-77 sentence back, word by word.");
    const before = await hashes(dir);
    // Stubbed, not written: the stub is undone even if this file shares its worker (vitest.config.ts).
    vi.stubEnv("PARITY_TEST_SERVICE_TOKEN", "zq9-secret-value-77");
    try {
      const run = await rerecord(b, "echo", "turn");
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/^REFUSED echo\/turn: redaction rewrote \d+ line\(s\) of the live bridge output \(first: line \d+ of the current lane\)/m);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(b.lanes)).toBe(false);
  });

  it("--redact patterns reach the current lane's redaction (a rewritten echo word refuses the cell); a bad pattern is exit 2", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await hashes(dir);
    const run = await rerecord(b, "echo", "turn", ["--redact", "sent[e]nce"]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^REFUSED echo\/turn: redaction rewrote \d+ line\(s\)/m);
    const bad = await rerecord(b, "echo", "turn", ["--redact", "("]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^parity: --redact "\(":/);
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(b.lanes)).toBe(false);
  });

  it("--no-verify is refused (exit 2, one line saying why), nothing written: no mode writes a .current that was not replayed", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await hashes(dir);
    const run = await rerecord(b, "echo", "turn", ["--no-verify", "--always-current"]);
    expect(run.code).toBe(2);
    expect(run.err).toBe(`parity: ${NO_VERIFY_REFUSAL}\n`);
    expect(run.out).toBe("");
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(b.lanes)).toBe(false);
    // The help lists no such option.
    expect((await parity(["rerecord", "--help"])).out).not.toMatch(/^\s+--(no-)?verify\b/m);
  });

  it("a target that cannot be written is an input error naming it (exit 2), the recording untouched", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await hashes(dir);
    await writeFile(path.join(b.root, "not-a-dir"), "");
    const out = path.join(b.root, "not-a-dir");
    const run = await rerecord(b, "echo", "turn", ["--out", out]);
    expect(run.code).toBe(2);
    // Directory flags are checked before anything is replayed (issue 26): the flag and its value are named.
    expect(run.err).toBe(`parity: --out ${out}: not a directory\n`);
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(b.lanes)).toBe(false);
  });

  it("CI=true: a write into the project (no --out, or --out inside the working directory) is refused with exit 2 and the reason, nothing replayed or written", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(repoRoot, "recordings", "echo", "turn"));
    const before = await tree(b.root);
    const besides = await parity(["rerecord", "--recordings", b.recordings, "--provider", "echo", "--cell", "turn"], { ci: true, cwd: b.root });
    expect(besides.code).toBe(2);
    expect(besides.err).toMatch(/^parity: rerecord writes .* under CI=true nothing writes the project's recordings or oracles; pass --out <dir> outside/);
    const run = await parity(["rerecord", "--recordings", b.recordings, "--provider", "echo", "--cell", "turn", "--out", b.out], { ci: true, cwd: b.root });
    expect(run.code).toBe(2);
    expect(run.err).toBe(
      `parity: --out ${b.out} is inside the working directory ${b.root}, and under CI=true nothing writes the project's recordings or oracles; point --out (and --lanes) outside it, e.g. a temp dir\n`,
    );
    expect(run.out).toBe("");
    expect(await tree(b.root)).toEqual(before);
    expect(existsSync(path.join(dir, CURRENT_BRIDGE_LANE_FILE))).toBe(false);
  });

  it("--help shows examples", async () => {
    const run = await parity(["rerecord", "--help"]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/Examples:\n\s+parity rerecord --provider echo/);
    expect(run.out).toContain("--out");
  });
});

describe("parity rerecord on a copy of the real acp-cursor approval-allow recording", () => {
  it("replaces the reference .current by rename, maps the bridge request id back to the recorded one, and never touches the recorded lanes", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(cursorRecordings, "approval-allow"));
    const before = await hashes(dir);
    const currentFile = path.join(dir, CURRENT_BRIDGE_LANE_FILE);
    const oldCurrent = await readFile(currentFile, "utf8");
    const oldInode = (await stat(currentFile)).ino;
    const oracleFile = path.join(b.lanes, "acp-cursor", "approval-allow.json");
    await mkdir(path.dirname(oracleFile), { recursive: true });
    await writeFile(oracleFile, "[]\n");
    const oldOracleInode = (await stat(oracleFile)).ino;

    // A reader polling both files while the rerecord runs must only ever see a whole file.
    const seen = { current: new Set<string>(), oracle: new Set<string>() };
    let reading = true;
    const reader = (async () => {
      while (reading) {
        seen.current.add(await readFile(currentFile, "utf8"));
        seen.oracle.add(await readFile(oracleFile, "utf8"));
        await new Promise((r) => setImmediate(r));
      }
    })();
    const run = await rerecord(b, "acp-cursor", "approval-allow", ["--always-current"]);
    reading = false;
    await reader;
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).not.toContain("warning");

    const after = await hashes(dir);
    for (const name of RECORDED_FILES) expect(after[name], name).toBe(before[name]);
    const newCurrent = await readFile(currentFile, "utf8");
    const newOracle = await readFile(oracleFile, "utf8");
    expect(newCurrent).not.toBe(oldCurrent);
    expect((await stat(currentFile)).ino).not.toBe(oldInode);
    expect((await stat(oracleFile)).ino).not.toBe(oldOracleInode);
    expect([...seen.current].every((t) => t === oldCurrent || t === newCurrent)).toBe(true);
    expect([...seen.oracle].every((t) => t === "[]\n" || t === newOracle)).toBe(true);
    expect((await tree(dir)).filter((f) => f.includes(".tmp"))).toEqual([]);

    const recording = await readRecording(dir);
    const current = recording.currentBridgeLane!;
    expectAnchored(current, recording.lanes["runtime→bridge"], recording.lanes["provider→bridge"]);
    // The bridge's interaction/request carries the recorded id, which the recorded runtime answer uses.
    const recordedIds = recording.lanes["bridge→runtime"]
      .map((e) => message(e.line))
      .filter((m) => m.method === "interaction/request")
      .map((m) => m.id);
    const currentIds = current
      .map((e) => message(e.line))
      .filter((m) => m.method === "interaction/request")
      .map((m) => m.id);
    expect(recordedIds.length).toBeGreaterThan(0);
    expect(currentIds).toEqual(recordedIds);

    // The rerecorded lane assembles, and replays, to exactly the oracle it was written with.
    expect(laneText(buildThreadLane(recording, { useCurrent: true }))).toBe(newOracle);
    const again = await replayRecording(recording);
    expect(again.ok).toBe(true);
    expect(laneText(again.lane)).toBe(newOracle);

    // Deterministic: rerecording the rerecorded copy changes neither file, byte for byte.
    const second = await rerecord(b, "acp-cursor", "approval-allow", ["--always-current"]);
    expect(second.code).toBe(0);
    expect(second.out).toContain(`${CURRENT_BRIDGE_LANE_FILE} (unchanged)`);
    expect(second.out).toContain("approval-allow.json (unchanged)");
    expect(await readFile(currentFile, "utf8")).toBe(newCurrent);
    expect(await readFile(oracleFile, "utf8")).toBe(newOracle);
  });

  it("turn-tools (the longest real cell, whose reference lane had a grammar drop, and home-like words in the agent's text): rerecorded lane assembles to its oracle", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(cursorRecordings, "turn-tools"));
    const before = await hashes(dir);
    const run = await rerecord(b, "acp-cursor", "turn-tools");
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const after = await hashes(dir);
    for (const name of RECORDED_FILES) expect(after[name], name).toBe(before[name]);
    const recording = await readRecording(dir);
    expectAnchored(recording.currentBridgeLane!, recording.lanes["runtime→bridge"], recording.lanes["provider→bridge"]);
    // The reference bridge settled Cursor's Edit File twice (a grammar drop); today's bridge opens the edit once (issue 37).
    const lane = buildThreadLane(recording, { useCurrent: true });
    expect(lane.grammarDrops).toEqual([]);
    expect(laneText(lane)).toBe(await readFile(path.join(b.lanes, "acp-cursor", "turn-tools.json"), "utf8"));
    // Nothing the agent said was rewritten on the way: the words survive as the live bridge wrote them.
    expect(recording.lanes["provider→bridge"].some((e) => e.line.includes("multi-root"))).toBe(true);
    expect(recording.currentBridgeLane!.some((e) => e.line.includes("multi-root"))).toBe(true);
    expect(recording.currentBridgeLane!.some((e) => e.line.includes("multi-home-user"))).toBe(false);
  });

  it("read-only recording directory: exit 2 without --out, nothing written; with --out writes only under it", async () => {
    const b = await box();
    const dir = await copyCell(b, path.join(cursorRecordings, "resume"));
    await chmod(dir, 0o555);
    const before = await hashes(dir);
    const refused = await rerecord(b, "acp-cursor", "resume");
    expect(refused.code).toBe(2);
    expect(refused.err).toBe(`parity: ${dir}: recording directory is read-only; pass --out <dir> to write ${CURRENT_BRIDGE_LANE_FILE} and the oracle there instead\n`);
    expect(refused.out).toBe("");
    expect(await hashes(dir)).toEqual(before);
    expect(existsSync(b.lanes)).toBe(false);

    const written = await parity(["rerecord", "--recordings", b.recordings, "--provider", "acp-cursor", "--cell", "resume", "--out", b.out]);
    expect(written.err).toBe("");
    expect(written.code).toBe(0);
    expect(await hashes(dir)).toEqual(before);
    expect(await tree(b.out)).toEqual([
      "acp-cursor",
      `acp-cursor/resume`,
      `acp-cursor/resume/${CURRENT_BRIDGE_LANE_FILE}`,
      "lanes",
      "lanes/acp-cursor",
      "lanes/acp-cursor/resume.json",
      "lanes/acp-cursor/resume.version",
    ]);
    const recording = await readRecording(dir);
    const current = await readEntries(path.join(b.out, "acp-cursor", "resume", CURRENT_BRIDGE_LANE_FILE));
    expectAnchored(current, recording.lanes["runtime→bridge"], recording.lanes["provider→bridge"]);
    const rebuilt = buildThreadLane({
      ...recording,
      currentBridgeLane: current,
      merged: () => [...recording.merged({ useCurrent: false }).filter((e) => e.dir !== "bridge→runtime"), ...current].sort(compareLaneEntries),
    });
    expect(laneText(rebuilt)).toBe(await readFile(path.join(b.out, "lanes", "acp-cursor", "resume.json"), "utf8"));
  });
});
