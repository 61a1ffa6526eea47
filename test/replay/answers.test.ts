/**
 * The gate compares the bridge's answers to the agent's requests, not only the thread lane
 * (harness/replay/answers.ts). A copy of the committed acp-cursor/turn-tools recording gets
 * two agent `fs/read_text_file` requests (lines 1 and 2 of the cell's `notes.txt`) and the
 * answers the bridge gives them; `parity check` passes it. With the two recorded answers
 * swapped, `check` fails naming the seq of the first one, with both values.
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import { runCli } from "../cli/run-cli.js";
import { copyRecording, editLane, isAlive, readLane, repoRoot } from "./helpers.js";

const copies: string[] = [];
afterAll(async () => {
  for (const dir of copies) await rm(path.dirname(path.dirname(dir)), { recursive: true, force: true });
});

/** The recorded workspace path of the cell (its launch spec's cwd). */
const RECORDED_WORKSPACE = "/tmp/parity-workspace";

/** Seqs of the inserted lines: after the bridge's `session/prompt` (16) and before the agent's first update (19). */
const SEQ = { askFirst: 18.2, answerFirst: 18.4, askSecond: 18.6, answerSecond: 18.8 } as const;

async function withReads(answers: { first: string; second: string }): Promise<string> {
  const dir = await copyRecording(path.join(repoRoot, "recordings", "acp-cursor", "turn-tools"));
  copies.push(dir);
  const [sample] = await readLane(dir, "provider→bridge");
  const at = (seq: number, dir: LaneEntry["dir"], message: unknown): LaneEntry => ({ ts: sample!.ts, run: sample!.run, seq, dir, line: JSON.stringify(message) });
  const ask = (id: string, line: number) => ({
    jsonrpc: "2.0",
    id,
    method: "fs/read_text_file",
    params: { sessionId: "fixture-cursor-1", path: `${RECORDED_WORKSPACE}/notes.txt`, line, limit: 1 },
  });
  const bySeq = (a: LaneEntry, b: LaneEntry) => a.seq - b.seq;
  await editLane(dir, "provider→bridge", (entries) => [...entries, at(SEQ.askFirst, "provider→bridge", ask("fx-read-a", 1)), at(SEQ.askSecond, "provider→bridge", ask("fx-read-b", 2))].sort(bySeq));
  await editLane(dir, "bridge→provider", (entries) =>
    [
      ...entries,
      at(SEQ.answerFirst, "bridge→provider", { jsonrpc: "2.0", id: "fx-read-a", result: { content: answers.first } }),
      at(SEQ.answerSecond, "bridge→provider", { jsonrpc: "2.0", id: "fx-read-b", result: { content: answers.second } }),
    ].sort(bySeq),
  );
  return dir;
}

describe("the bridge's answers to the agent's requests are part of the verdict", () => {
  it("recorded fs/read_text_file answers that match what the bridge reads pass; swapped, check fails at the first one's seq with both values", async () => {
    const notes = (await readFile(path.join(repoRoot, "cells", "turn-tools", "workspace", "notes.txt"), "utf8")).split("\n");
    const right = { first: notes[0]!, second: notes[1]! };
    expect(right.first).not.toBe(right.second);

    const good = await withReads(right);
    const pass = await runCli(["check", "--recordings", path.dirname(path.dirname(good)), "--reporter", "json"], { ci: true });
    expect(pass.code).toBe(0);

    const swapped = await withReads({ first: right.second, second: right.first });
    const json = await runCli(["check", "--recordings", path.dirname(path.dirname(swapped)), "--reporter", "json"], { ci: true });
    expect(json.code).toBe(1);
    const cell = (JSON.parse(json.out) as { cells: Array<{ status: string; divergences: Array<{ seq: number; expected: string; actual: string }> }> }).cells[0]!;
    expect(cell.status).toBe("fail");
    expect(cell.divergences[0]).toMatchObject({ seq: SEQ.answerFirst });
    expect(cell.divergences[0]!.expected).toContain(JSON.stringify(right.second));
    expect(cell.divergences[0]!.actual).toContain(JSON.stringify(right.first));
    expect(cell.divergences[1]).toMatchObject({ seq: SEQ.answerSecond });

    const replay = await runCli(["replay", swapped, "--json"]);
    expect(replay.code).toBe(1);
    expect(replay.err).toContain(`seq ${SEQ.answerFirst} (bridge→provider): the bridge answered the agent's fs/read_text_file`);
    const result = JSON.parse(replay.out) as { divergences: Array<{ kind: string }>; pids: number[] };
    expect(result.divergences.map((d) => d.kind)).toEqual(["answer-differs", "answer-differs"]);
    expect(result.pids.filter(isAlive)).toEqual([]);
  });
});
