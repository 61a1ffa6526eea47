import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import type { ReplayDivergence } from "../../harness/replay/walk/divergence.js";
import { runCli } from "../cli/run-cli.js";
import { copyRecording, cursorRecordings, editLane, isAlive, messageOf, readLane, repoRoot } from "./helpers.js";

// Each case doctors a temporary copy of a recording (the originals are never touched) and
// replays it through `parity replay --json`: the first divergence must name the seq the
// doctoring broke, the exit code must be 1, and no bridge or replay child may survive.

const copies: string[] = [];
afterAll(async () => {
  for (const dir of copies) await rm(path.dirname(path.dirname(dir)), { recursive: true, force: true });
});

interface ReplayJson {
  ok: boolean;
  divergenceCount: number;
  divergences: ReplayDivergence[];
  pids: number[];
}

async function replayJson(dir: string, extra: string[] = []): Promise<{ code: number; json: ReplayJson; err: string }> {
  const r = await runCli(["replay", dir, "--json", ...extra]);
  return { code: r.code, json: JSON.parse(r.out) as ReplayJson, err: r.err };
}

async function doctored(src: string): Promise<string> {
  const dir = await copyRecording(src);
  copies.push(dir);
  return dir;
}

const firstAfter = (entries: readonly LaneEntry[], seq: number): LaneEntry => {
  const found = entries.find((e) => e.seq > seq);
  if (!found) throw new Error(`no entry after seq ${seq}`);
  return found;
};

describe("replay divergences are diagnosed, never hung on (docs/design/00-product.md, Determinism)", () => {
  it("a dropped agent line: the bridge output it caused is reported missing at its seq", async () => {
    const dir = await doctored(path.join(cursorRecordings, "resume"));
    const provider = await readLane(dir, "provider→bridge");
    const dropped = provider.find((e) => (messageOf(e).result as { stopReason?: unknown } | undefined)?.stopReason !== undefined);
    expect(dropped).toBeDefined();
    await editLane(dir, "provider→bridge", (entries) => entries.filter((e) => e.seq !== dropped!.seq));
    const expected = firstAfter(await readLane(dir, "bridge→runtime"), dropped!.seq);

    const { code, json, err } = await replayJson(dir);
    expect(code).toBe(1);
    expect(json.ok).toBe(false);
    expect(json.divergences[0]).toMatchObject({ kind: "missing-expectation", seq: expected.seq, dir: "bridge→runtime" });
    expect(err).toContain(`acp-cursor/resume: seq ${expected.seq} (bridge→runtime):`);
    expect(json.pids.length).toBe(3);
    expect(json.pids.filter(isAlive)).toEqual([]);
  });

  it("two bridge requests swapped: the first live request that comes out of order is named at its seq", async () => {
    const dir = await doctored(path.join(cursorRecordings, "resume"));
    let firstSeq = 0;
    await editLane(dir, "bridge→provider", (entries) => {
      const [a, b, ...rest] = entries;
      firstSeq = a!.seq;
      return [{ ...a!, line: b!.line }, { ...b!, line: a!.line }, ...rest];
    });

    const { code, json, err } = await replayJson(dir);
    expect(code).toBe(1);
    expect(json.divergences[0]).toMatchObject({ kind: "unexpected-line", seq: firstSeq, dir: "bridge→provider", got: "request initialize (id 1)" });
    expect(json.divergences[0]!.expected).toContain("request session/new");
    expect(err).toContain(`seq ${firstSeq} (bridge→provider)`);
    expect(json.pids.filter(isAlive)).toEqual([]);
  });

  it("the agent lane cut mid-turn: the first output that needed the missing lines is reported at its seq", async () => {
    const dir = await doctored(path.join(cursorRecordings, "approval-allow"));
    const provider = await readLane(dir, "provider→bridge");
    const permission = provider.find((e) => messageOf(e).method === "session/request_permission");
    expect(permission).toBeDefined();
    await editLane(dir, "provider→bridge", (entries) => entries.filter((e) => e.seq < permission!.seq));
    const interaction = (await readLane(dir, "bridge→runtime")).find((e) => messageOf(e).method === "interaction/request");

    const { code, json } = await replayJson(dir);
    expect(code).toBe(1);
    expect(json.divergences[0]).toMatchObject({ kind: "missing-expectation", seq: interaction!.seq, expected: "request interaction/request (id 1)" });
    expect(json.pids.filter(isAlive)).toEqual([]);
  });

  it("an expected line the bridge never writes: missing at its seq once the bridge is idle, everything else met", async () => {
    const dir = await doctored(path.join(repoRoot, "recordings", "echo", "turn"));
    let extraSeq = 0;
    await editLane(dir, "bridge→runtime", (entries) => {
      const last = entries[entries.length - 1]!;
      extraSeq = last.seq + 1;
      const never = { jsonrpc: "2.0", method: "thread/delta", params: { threadId: "thr_echo_turn", deltas: [{ kind: "extension.state", extensionKind: "bb/never", payload: {} }] } };
      return [...entries, { ...last, seq: extraSeq, line: JSON.stringify(never) }];
    });

    const { code, json, err } = await replayJson(dir);
    expect(code).toBe(1);
    expect(json.divergenceCount).toBe(1);
    expect(json.divergences[0]).toMatchObject({ kind: "missing-expectation", seq: extraSeq, dir: "bridge→runtime" });
    expect(json.divergences[0]!.message).toContain("the bridge went idle without it");
    expect(err).toContain(`echo/turn: seq ${extraSeq} (bridge→runtime):`);
    expect(json.pids.filter(isAlive)).toEqual([]);
  });

  it("a bridge that crashes mid-replay: the report names the first output it never wrote", async () => {
    const dir = await doctored(path.join(repoRoot, "recordings", "echo", "resume"));
    const turns = (await readLane(dir, "runtime→bridge")).filter((e) => messageOf(e).method === "turn/start");
    expect(turns).toHaveLength(2);
    const expected = firstAfter(await readLane(dir, "bridge→runtime"), turns[1]!.seq);

    const { code, json, err } = await replayJson(dir, ["--module", "test/replay/fixtures/crash-on-second-turn.mjs"]);
    expect(code).toBe(1);
    expect(json.divergences[0]).toMatchObject({ kind: "bridge-exited", seq: expected.seq });
    expect(json.divergences[0]!.message).toMatch(/^bridge exited with code 70 after seq \d+ \(runtime→bridge\); \d+ recorded output\(s\) never came$/);
    expect(json.divergenceCount).toBe(1);
    expect(err).toContain(`echo/resume: seq ${expected.seq} (bridge→runtime): bridge exited with code 70 after seq ${turns[1]!.seq}`);
    expect(json.pids.filter(isAlive)).toEqual([]);
  });
});

describe("a live request nothing recorded can answer", () => {
  it("is answered generically at once and listed as a note, not a divergence", async () => {
    const dir = await doctored(path.join(cursorRecordings, "approval-allow"));
    // Take the approval request (and the runtime's answer to it) out of the recording, as if
    // the recorded bridge had never asked: the live bridge's request is then new behaviour.
    const isInteraction = (e: LaneEntry) => messageOf(e).method === "interaction/request";
    const request = (await readLane(dir, "bridge→runtime")).find(isInteraction)!;
    const answer = (await readLane(dir, "runtime→bridge")).find((e) => messageOf(e).id === messageOf(request).id && messageOf(e).method === undefined)!;
    await editLane(dir, "bridge→runtime", (entries) => entries.filter((e) => !isInteraction(e)));
    await editLane(dir, "bridge→runtime.current", (entries) => entries.filter((e) => !isInteraction(e)));
    await editLane(dir, "runtime→bridge", (entries) => entries.filter((e) => e.seq !== answer.seq));

    const { json } = await replayJson(dir, ["--verbose"]);
    const notes = (json as unknown as { notes: Array<{ message: string }> }).notes.map((n) => n.message);
    expect(notes).toContain("answered bridge→runtime request interaction/request (id 1) generically: nothing recorded answers it");
    expect(json.divergences.filter((d) => (d.got ?? "").includes("interaction/request"))).toEqual([]);
    expect(json.pids.filter(isAlive)).toEqual([]);
  });
});

describe("bad recordings are input errors (exit 2), not divergences", () => {
  it("a lane out of (run, seq) order names its file and line", async () => {
    const dir = await doctored(path.join(repoRoot, "recordings", "echo", "turn"));
    await editLane(dir, "bridge→runtime", (entries) => [entries[1]!, entries[0]!, ...entries.slice(2)]);
    const { replayRecording } = await import("../../harness/replay/replay-recording.js");
    await expect(replayRecording(dir)).rejects.toThrow(`${path.join(dir, "bridge→runtime.ndjson")}:2: entry (run`);
  });

  it("manifest line counts that disagree with a lane: streamed and loaded replays both refuse, naming the manifest", async () => {
    const dir = await doctored(path.join(repoRoot, "recordings", "echo", "turn"));
    const lane = await readLane(dir, "bridge→runtime");
    await writeFile(
      path.join(dir, "bridge→runtime.ndjson"),
      lane
        .slice(0, -1)
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(""),
    );
    const manifestFile = path.join(dir, "manifest.json");
    const { replayRecording } = await import("../../harness/replay/replay-recording.js");
    await expect(replayRecording(dir)).rejects.toThrow(`${manifestFile}: lines["bridge→runtime"] is ${lane.length} but bridge→runtime.ndjson has ${lane.length - 1} entries`);
    const r = await runCli(["replay", dir]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${manifestFile}: lines["bridge→runtime"] is ${lane.length} but bridge→runtime.ndjson has ${lane.length - 1} entries\n`);
  });
});
