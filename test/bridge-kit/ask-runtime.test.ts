/**
 * bridge-kit `askRuntime`: the runtime's answer is handed over in the `acceptResponse` that reads
 * it, so what a native bridge writes for it comes before anything it writes for a runtime line
 * read after it in the same chunk (test/claude-code, test/codex, test/pi chunk-order tests).
 */
import { describe, expect, it } from "vitest";
import { BridgeIoClosedError, askRuntime, createBridgeIo, type RuntimeAnswerOrFailure } from "../../stack/bridge-kit/io.js";
import { BridgeJsonRpcError } from "../../stack/protocol/errors.js";

/** An io whose requests are parsed into `sent`. */
function io() {
  const sent: Array<{ id: number; method: string }> = [];
  return { io: createBridgeIo((line) => sent.push(JSON.parse(line) as { id: number; method: string })), sent };
}

describe("askRuntime", () => {
  it("settles once, synchronously in the acceptResponse that reads the answer, before the next line is handled", () => {
    const { io: bridgeIo, sent } = io();
    const order: string[] = [];
    askRuntime(bridgeIo, "interaction/request", { payload: 1 }, (answer) => order.push(`answer ${JSON.stringify(answer.ok ? answer.result : null)}`));
    expect(sent.map((m) => m.method)).toEqual(["interaction/request"]);
    // One chunk: the answer, then another line handled synchronously right after it.
    expect(bridgeIo.acceptResponse({ jsonrpc: "2.0", id: sent[0]!.id, result: { decision: "deny" } })).toBe(true);
    order.push("next line");
    expect(order).toEqual(['answer {"decision":"deny"}', "next line"]);
    // A second answer to the same id matches nothing and settles nothing.
    expect(bridgeIo.acceptResponse({ jsonrpc: "2.0", id: sent[0]!.id, result: { decision: "allow_once" } })).toBe(false);
    expect(order).toHaveLength(2);
  });

  it("an error answer settles synchronously as { ok: false } with the runtime's code and message", () => {
    const { io: bridgeIo, sent } = io();
    const answers: RuntimeAnswerOrFailure[] = [];
    askRuntime(bridgeIo, "interaction/request", {}, (answer) => answers.push(answer));
    bridgeIo.acceptResponse({ jsonrpc: "2.0", id: sent[0]!.id, error: { code: -32001, message: "no" } });
    expect(answers).toHaveLength(1);
    expect(answers[0]!.ok).toBe(false);
    const { error } = answers[0] as { ok: false; error: BridgeJsonRpcError };
    expect(error).toBeInstanceOf(BridgeJsonRpcError);
    expect([error.code, error.message]).toEqual([-32001, "no"]);
  });

  it("a request that ends without an answer (the io closed) settles once with that error", async () => {
    const { io: bridgeIo } = io();
    const answers: RuntimeAnswerOrFailure[] = [];
    askRuntime(bridgeIo, "interaction/request", {}, (answer) => answers.push(answer));
    bridgeIo.rejectPending(new BridgeIoClosedError());
    // Progress: every microtask the rejection queued has run.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(answers).toHaveLength(1);
    expect((answers[0] as { error: Error }).error).toBeInstanceOf(BridgeIoClosedError);
  });
});
