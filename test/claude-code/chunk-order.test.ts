/**
 * What the runtime said first reaches Claude Code first. The runtime writes its answer to the
 * CLI's `can_use_tool` and its next request (a `thread/stop`, a `turn/steer`) in ONE chunk; the
 * bridge reads both at once. The stop's `interrupt` control request (and the steer's user line)
 * is written synchronously where its line is read, but the permission answer's `control_response`
 * was written in the promise continuation of the runtime request (`session.ts` answerPermission):
 * Claude Code heard the interrupt before the deny. Now the answer is acted on where it is read
 * (bridge-kit `askRuntime`).
 *
 * Driven in process with Claude Code played from the committed recordings
 * (recordings/claude-code/approval-deny, stop-interrupt, steer); no clock, no real-time window.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClaudeCodeBridge } from "../../stack/claude-code/bridge.js";
import { denyThen as denyThenIn, recordedLane, seqOf, startNativeChunkBridge, type Line, type NativeChunkBridge } from "../helpers/native-chunk.js";
import { REPO_ROOT } from "../acp/fixture-agent-build.js";

const lane = (cell: string, name: string) => recordedLane(REPO_ROOT, "claude-code", cell, name);
const deny = lane("approval-deny", "provider→bridge.ndjson");
const denyRuntime = lane("approval-deny", "runtime→bridge.ndjson");
const denyToAgent = lane("approval-deny", "bridge→provider.ndjson");
const stop = lane("stop-interrupt", "provider→bridge.ndjson");
const stopRuntime = lane("stop-interrupt", "runtime→bridge.ndjson");
const steerRuntime = lane("steer", "runtime→bridge.ndjson");
const steerToAgent = lane("steer", "bridge→provider.ndjson");

/** A control response line of the recording, for the request the bridge just made. */
const answering = (line: Line, requestId: string): Line => ({ ...line, response: { ...line.response, request_id: requestId } });

/** Claude Code as the approval-deny cell recorded it, up to its `can_use_tool`; an interrupt ends the turn as the stop-interrupt cell did. */
const claude = (message: Line, write: (line: Line) => void): void => {
  if (message.type === "control_request" && message.request.subtype === "initialize") write(answering(seqOf(deny, 5), message.request_id));
  else if (message.type === "control_request" && message.request.subtype === "set_permission_mode") write(answering(seqOf(deny, 11), message.request_id));
  else if (message.type === "user" && message.message.content[0].text === seqOf(denyToAgent, 15).message.content[0].text) {
    for (let seq = 16; seq <= 26; seq += 1) if (deny.has(seq)) write(seqOf(deny, seq));
  } else if (message.type === "control_request" && message.request.subtype === "interrupt") {
    write(answering(seqOf(stop, 24), message.request_id));
    write(seqOf(stop, 31));
  }
};

const open: NativeChunkBridge[] = [];
afterEach(async () => {
  for (const bridge of open.splice(0)) await bridge.close();
});

/** Runs the approval-deny cell to the runtime's question, then hands the bridge the deny (seq 28) and `next` in one chunk. */
async function denyThen(next: { method: string; params: unknown }): Promise<{ bridge: NativeChunkBridge; response: Line }> {
  const bridge = startNativeChunkBridge(
    (spawn) => createClaudeCodeBridge({ entropy: (n) => new Uint8Array(n).fill(7), spawn }),
    "claude-code",
    claude,
    () => undefined,
  );
  open.push(bridge);
  return { bridge, response: await denyThenIn(bridge, denyRuntime, { start: 3, turn: 9, deny: 28 }, next) };
}

/** The bridge's lines to Claude Code, by what they are. */
const kinds = (toAgent: Line[]): string[] =>
  toAgent.map((line) => (line.type === "control_request" ? `request ${line.request.subtype}` : line.type === "control_response" ? `answer ${line.response.response.behavior}` : line.type));

describe("claude-code: the runtime's deny and the request after it, read in one chunk, reach Claude Code in that order", () => {
  const threadId = seqOf(denyRuntime, 9).params.threadId;

  it("deny + thread/stop: the deny's control_response (the committed one, seq 29) before the interrupt", async () => {
    const { bridge, response } = await denyThen({ method: "thread/stop", params: { ...seqOf(stopRuntime, 22).params, threadId } });
    expect(response.result).toEqual({ ok: true });
    expect(bridge.toAgent.filter((line) => line.type === "control_response")).toEqual([seqOf(denyToAgent, 29)]);
    expect(kinds(bridge.toAgent)).toEqual(["request initialize", "request set_permission_mode", "user", "answer deny", "request interrupt"]);
  });

  it("deny + turn/steer (the steer cell's seq 44): the deny before the steer's user line (the committed one, seq 47)", async () => {
    const { bridge, response } = await denyThen({ method: "turn/steer", params: { ...seqOf(steerRuntime, 44).params, threadId } });
    expect(response.result).toEqual({ threadId });
    expect(bridge.toAgent.at(-1)).toEqual(seqOf(steerToAgent, 47));
    expect(kinds(bridge.toAgent)).toEqual(["request initialize", "request set_permission_mode", "user", "answer deny", "user"]);
  });
});
