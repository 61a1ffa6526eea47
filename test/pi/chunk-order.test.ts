/**
 * What the runtime said first reaches pi first. The runtime writes its answer to pi's gate
 * `confirm` and its next request (a `thread/stop`, a `turn/steer`) in ONE chunk; the bridge reads
 * both at once. The stop's `abort` (and the steer's `steer`) command is written synchronously where
 * its line is read, but the `extension_ui_response` was written in the promise continuation of the
 * runtime request (`session.ts` answerUiRequest): pi heard the abort before the deny. Now the
 * answer is written where the runtime's line is read (bridge-kit `askRuntime`).
 *
 * Driven in process with pi played from the committed recordings (recordings/pi/approval-deny,
 * stop-interrupt, steer); no clock, no real-time window.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createPiBridge } from "../../stack/pi/bridge.js";
import { denyThen as denyThenIn, recordedLane, seqOf, startNativeChunkBridge, type Line, type NativeChunkBridge } from "../helpers/native-chunk.js";
import { REPO_ROOT } from "../acp/fixture-agent-build.js";

const lane = (cell: string, name: string) => recordedLane(REPO_ROOT, "pi", cell, name);
const deny = lane("approval-deny", "provider→bridge.ndjson");
const denyRuntime = lane("approval-deny", "runtime→bridge.ndjson");
const denyToAgent = lane("approval-deny", "bridge→provider.ndjson");
const stop = lane("stop-interrupt", "provider→bridge.ndjson");
const stopRuntime = lane("stop-interrupt", "runtime→bridge.ndjson");
const steer = lane("steer", "provider→bridge.ndjson");
const steerRuntime = lane("steer", "runtime→bridge.ndjson");
const steerToAgent = lane("steer", "bridge→provider.ndjson");

/** pi as the approval-deny cell recorded it, up to its gate's confirm; an abort ends the run as the stop-interrupt cell did, a steer is queued as the steer cell's was. */
const pi = (message: Line, write: (line: Line) => void): void => {
  if (message.type === "get_state") write({ ...seqOf(deny, 5), id: message.id });
  else if (message.type === "prompt") {
    write({ ...seqOf(deny, 11), id: message.id });
    for (let seq = 14; seq <= 25; seq += 1) write(seqOf(deny, seq));
  } else if (message.type === "abort") {
    for (const seq of [26, 27, 28]) write(seqOf(stop, seq));
    write({ ...seqOf(stop, 30), id: message.id });
  } else if (message.type === "steer") {
    write(seqOf(steer, 24));
    write({ ...seqOf(steer, 25), id: message.id });
  }
};

const open: NativeChunkBridge[] = [];
afterEach(async () => {
  for (const bridge of open.splice(0)) await bridge.close();
});

/** Runs the approval-deny cell to the runtime's question, then hands the bridge the deny (seq 28) and `next` in one chunk. */
async function denyThen(next: { method: string; params: unknown }): Promise<{ bridge: NativeChunkBridge; response: Line }> {
  const bridge = startNativeChunkBridge(
    (spawn) => createPiBridge({ spawn }),
    "pi",
    pi,
    () => undefined,
  );
  open.push(bridge);
  return { bridge, response: await denyThenIn(bridge, denyRuntime, { start: 3, turn: 9, deny: 28 }, next) };
}

describe("pi: the runtime's deny and the request after it, read in one chunk, reach pi in that order", () => {
  const threadId = seqOf(denyRuntime, 9).params.threadId;

  it("deny + thread/stop: the deny's extension_ui_response (the committed one, seq 29) before abort", async () => {
    const { bridge, response } = await denyThen({ method: "thread/stop", params: { ...seqOf(stopRuntime, 22).params, threadId } });
    expect(response.result).toEqual({ ok: true });
    expect(bridge.toAgent.filter((line) => line.type === "extension_ui_response")).toEqual([seqOf(denyToAgent, 29)]);
    expect(bridge.toAgent.map((line) => line.type)).toEqual(["get_state", "prompt", "extension_ui_response", "abort"]);
  });

  it("deny + turn/steer (the steer cell's seq 22): the deny before pi's steer command (the committed one, seq 23)", async () => {
    const { bridge, response } = await denyThen({ method: "turn/steer", params: { ...seqOf(steerRuntime, 22).params, threadId } });
    expect(response.result).toEqual({ threadId });
    expect(bridge.toAgent.at(-1)).toEqual(seqOf(steerToAgent, 23));
    expect(bridge.toAgent.map((line) => line.type)).toEqual(["get_state", "prompt", "extension_ui_response", "steer"]);
  });
});
