/**
 * What the runtime said first reaches Codex first. The runtime writes its answer to Codex's
 * approval request and its next request (a `thread/stop`, a `turn/steer`) in ONE chunk; the bridge
 * reads both at once. The stop's `turn/interrupt` (and the steer's `turn/steer`) is written
 * synchronously where its line is read, but the approval's answer went back through a promise
 * chain (`approvals.ts` answerApproval, then the app-server's request serving): Codex heard the
 * interrupt before the decline. Now the answer is written where the runtime's line is read
 * (bridge-kit `askRuntime`, app-server `respond`).
 *
 * Driven in process with Codex played from the committed recordings (recordings/codex/approval-deny,
 * stop-interrupt, steer); no clock, no real-time window.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createCodexBridge } from "../../stack/codex/bridge.js";
import { denyThen as denyThenIn, recordedLane, seqOf, startNativeChunkBridge, type Line, type NativeChunkBridge } from "../helpers/native-chunk.js";
import { REPO_ROOT } from "../acp/fixture-agent-build.js";

const lane = (cell: string, name: string) => recordedLane(REPO_ROOT, "codex", cell, name);
const deny = lane("approval-deny", "provider→bridge.ndjson");
const denyRuntime = lane("approval-deny", "runtime→bridge.ndjson");
const denyToAgent = lane("approval-deny", "bridge→provider.ndjson");
const stop = lane("stop-interrupt", "provider→bridge.ndjson");
const stopRuntime = lane("stop-interrupt", "runtime→bridge.ndjson");
const steer = lane("steer", "provider→bridge.ndjson");
const steerRuntime = lane("steer", "runtime→bridge.ndjson");

/** The approval-deny cell's Codex thread and turn ids. */
const codexThread: string = seqOf(deny, 9).result.thread.id;
const codexTurn: string = seqOf(deny, 17).result.turn.id;

/** Codex as the approval-deny cell recorded it, up to its approval request; an interrupt ends the turn as the stop-interrupt cell did, a steer is taken as the steer cell's was. */
const codex = (message: Line, write: (line: Line) => void): void => {
  if (message.method === "initialize") write({ ...seqOf(deny, 5), id: message.id });
  else if (message.method === "thread/start") [9, 13].forEach((seq) => write(seq === 9 ? { ...seqOf(deny, seq), id: message.id } : seqOf(deny, seq)));
  else if (message.method === "turn/start") [17, 19, 20, 22, 23, 24, 25, 26].forEach((seq) => write(seq === 17 ? { ...seqOf(deny, seq), id: message.id } : seqOf(deny, seq)));
  else if (message.method === "turn/interrupt") {
    write({ ...seqOf(stop, 31), id: message.id });
    const completed = seqOf(stop, 33);
    write({ ...completed, params: { ...completed.params, threadId: codexThread, turn: { ...completed.params.turn, id: codexTurn, rootTurnId: codexTurn } } });
  } else if (message.method === "turn/steer") write({ id: message.id, result: { ...seqOf(steer, 30).result, turnId: codexTurn } });
};

const open: NativeChunkBridge[] = [];
afterEach(async () => {
  for (const bridge of open.splice(0)) await bridge.close();
});

/** Runs the approval-deny cell to the runtime's question, then hands the bridge the deny (seq 29) and `next` in one chunk. */
async function denyThen(next: { method: string; params: unknown }): Promise<{ bridge: NativeChunkBridge; response: Line }> {
  const bridge = startNativeChunkBridge(
    (spawn) => createCodexBridge({ spawn }),
    "codex",
    codex,
    () => undefined,
  );
  open.push(bridge);
  return { bridge, response: await denyThenIn(bridge, denyRuntime, { start: 3, turn: 14, deny: 29 }, next) };
}

/** The bridge's lines to Codex, an answer named by the id it answers. */
const wire = (toAgent: Line[]): string[] => toAgent.map((line) => line.method ?? `answer ${String(line.id)}`);

describe("codex: the runtime's deny and the request after it, read in one chunk, reach Codex in that order", () => {
  const threadId = seqOf(denyRuntime, 14).params.threadId;

  it("deny + thread/stop: the decline (the committed answer, seq 30) before turn/interrupt", async () => {
    const { bridge, response } = await denyThen({ method: "thread/stop", params: { ...seqOf(stopRuntime, 28).params, threadId, providerThreadId: codexThread } });
    expect(response.result).toEqual({ ok: true });
    expect(bridge.toAgent.filter((line) => line.method === undefined)).toEqual([seqOf(denyToAgent, 30)]);
    expect(wire(bridge.toAgent)).toEqual(["initialize", "initialized", "thread/start", "turn/start", "answer 0", "turn/interrupt"]);
  });

  it("deny + turn/steer (the steer cell's seq 28): the decline before Codex's turn/steer", async () => {
    const { bridge, response } = await denyThen({ method: "turn/steer", params: { ...seqOf(steerRuntime, 28).params, threadId, providerThreadId: codexThread } });
    expect(response.result).toEqual({ threadId });
    expect(bridge.toAgent.filter((line) => line.method === undefined)).toEqual([seqOf(denyToAgent, 30)]);
    expect(wire(bridge.toAgent)).toEqual(["initialize", "initialized", "thread/start", "turn/start", "answer 0", "turn/steer"]);
  });
});
