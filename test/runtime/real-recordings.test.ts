import path from "node:path";
import { describe, expect, it } from "vitest";
import { createEventCollector } from "../../harness/conformance/collector.js";
import { readRecording } from "../../harness/recording/reader.js";
import { BridgeRefusedError } from "../../harness/runtime/errors.js";
import { checkInitializeResult } from "../../harness/runtime/handshake.js";
import { createProviderRegistry, findWidenedFacts } from "../../harness/runtime/provider-registry.js";
import { classifyJsonRpcMessage } from "../../stack/protocol/json-rpc.js";
import { resolveBridgeCapabilities } from "../../stack/protocol/handshake.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const cursorCell = (cell: string) => path.resolve(repoRoot, "../shared/recordings/acp-cursor", cell);

/** The answer, in the bridge lane, to the first runtime request of `method`. */
async function recordedAnswer(cell: string, method: string) {
  const recording = await readRecording(cursorCell(cell));
  const request = recording.lanes["runtime→bridge"].map((entry) => classifyJsonRpcMessage(JSON.parse(entry.line))).find((m) => m.kind === "request" && m.message.method === method);
  if (request?.kind !== "request") throw new Error(`no ${method} request in ${cell}`);
  const bridgeLane = recording.currentBridgeLane ?? recording.lanes["bridge→runtime"];
  const index = bridgeLane.findIndex((entry) => {
    const m = classifyJsonRpcMessage(JSON.parse(entry.line));
    return m.kind === "response" && m.message.id === request.message.id;
  });
  const answer = classifyJsonRpcMessage(JSON.parse(bridgeLane[index]!.line));
  return { recording, bridgeLane, index, answer, request: request.message };
}

describe("the grammar gate on the real acp-cursor model-list recording", () => {
  it("refuses the older bridge's initialize result, which has no grammarVersions", async () => {
    const { answer } = await recordedAnswer("model-list", "initialize");
    if (answer.kind !== "response" || !("result" in answer.message)) throw new Error("initialize was not answered with a result");
    const refusal = (() => {
      try {
        checkInitializeResult("acp-cursor (recorded)", answer.message.result);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(BridgeRefusedError);
    expect((refusal as Error).message).toContain("grammarVersions [2,2] (no grammarVersions field, which reads [2,2])");
  });

  it('its process-wide fork:"tip" widens a Cursor declaration of fork:"none" (spec 20 §1.3)', async () => {
    const { answer } = await recordedAnswer("model-list", "initialize");
    if (answer.kind !== "response" || !("result" in answer.message)) throw new Error("initialize was not answered with a result");
    const registry = createProviderRegistry();
    registry.registerProvider({ id: "acp-cursor", displayName: "Cursor", family: "acp", glyph: "Toolbox", capabilities: { fork: "none" } });
    const capabilities = resolveBridgeCapabilities((answer.message.result as { capabilities: never }).capabilities);
    expect(findWidenedFacts(registry.get("acp-cursor")!, capabilities)).toEqual(['fork "tip" (declared "none")']);
  });
});

describe("interrupt-settles-before-answer on the real acp-cursor stop-interrupt recording", () => {
  it("the reference bridge's current lane settles the interrupted turn before it answers thread/stop", async () => {
    const { recording, bridgeLane, index: answerIndex, request } = await recordedAnswer("stop-interrupt", "thread/stop");
    expect((request.params as { intent: string }).intent).toBe("interrupt");
    const collector = createEventCollector({ providerId: recording.manifest.provider, now: () => 0 });
    bridgeLane.forEach((entry, i) => {
      const message = classifyJsonRpcMessage(JSON.parse(entry.line));
      if (message.kind === "notification") collector.accept({ method: message.message.method, params: message.message.params, position: i + 1 });
    });
    const interrupted = collector.events.find((r) => r.event.type === "turn/completed" && (r.event as { status: string }).status === "interrupted");
    expect(interrupted).toBeDefined();
    expect(interrupted!.position).toBeLessThan(answerIndex + 1);
    expect(collector.deltaErrors).toEqual([]);
  });
});
