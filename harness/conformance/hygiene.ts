import { BRIDGE_JSON_RPC_ERRORS } from "../../stack/protocol/errors.js";
import { classifyJsonRpcMessage } from "../../stack/protocol/json-rpc.js";
import { checkInitializeResult } from "../runtime/handshake.js";
import { ask, describeAnswer, type RunContext } from "./context.js";
import { result } from "./rules.js";

/** Method no bridge serves (spec 10 §7 `rpc/unknown-method`). */
export const UNKNOWN_METHOD = "bb/conformance/definitely-unknown-method";
/** Method sent to see whether the bridge still answers (spec 10 §7). */
export const ALIVE_PROBE_METHOD = "bb/conformance/alive-probe";
/** Id of the unsolicited response (spec 10 §7 `rpc/response-not-request`). */
export const UNSOLICITED_RESPONSE_ID = 999_999;
/** `initialize` params of the handshake rule (spec 10 §7 `handshake/initialize`). */
export const CONFORMANCE_INITIALIZE_PARAMS = {
  protocolVersion: 2,
  client: { name: "bb-conformance", version: "0.0.1" },
  grammarVersions: [3, 3],
} as const;

/**
 * Phase 1, hygiene (spec 10 §7), before any `initialize`: unknown method, invalid params,
 * a non-JSON line, an unsolicited response. Records what the bridge answers in
 * `ctx.answering` so later phases can use an answered request as a barrier.
 */
export async function runHygienePhase(ctx: RunContext): Promise<void> {
  const unknown = await ask(ctx, UNKNOWN_METHOD, {});
  ctx.answering.answersUnknownMethods = unknown !== undefined;
  if (!unknown) {
    const dropped = ctx.client.channel.closed ? "" : "silently dropped: ";
    ctx.results.push(result("rpc/unknown-method", "fail", `${dropped}${describeAnswer(ctx, UNKNOWN_METHOD, unknown)}`));
  } else if (unknown.kind === "error" && unknown.error.code === BRIDGE_JSON_RPC_ERRORS.methodNotFound) {
    ctx.results.push(result("rpc/unknown-method", "pass"));
  } else {
    ctx.results.push(result("rpc/unknown-method", "fail", `${describeAnswer(ctx, UNKNOWN_METHOD, unknown)}; expected -32601`));
  }

  const invalid = await ask(ctx, "thread/stop", {});
  ctx.answering.answersInvalidParams = invalid !== undefined;
  ctx.results.push(
    invalid?.kind === "error" && invalid.error.code === BRIDGE_JSON_RPC_ERRORS.invalidParams
      ? result("rpc/invalid-params", "pass")
      : result("rpc/invalid-params", "fail", `${describeAnswer(ctx, "thread/stop {}", invalid)}; expected -32602`),
  );

  if (!ctx.answering.answersUnknownMethods) {
    const why = "unknown methods go unanswered, so the alive probe cannot tell";
    ctx.results.push(result("rpc/non-json-ignored", "skipped", why), result("rpc/response-not-request", "skipped", why));
    return;
  }

  ctx.client.sendLine("this line is not JSON {");
  const afterNonJson = await ask(ctx, ALIVE_PROBE_METHOD, {});
  ctx.results.push(afterNonJson ? result("rpc/non-json-ignored", "pass") : result("rpc/non-json-ignored", "fail", `after a non-JSON line, ${describeAnswer(ctx, ALIVE_PROBE_METHOD, afterNonJson)}`));

  const linesBefore = ctx.bridgeLines.length;
  ctx.client.sendLine(JSON.stringify({ jsonrpc: "2.0", id: UNSOLICITED_RESPONSE_ID, result: {} }));
  const afterResponse = await ask(ctx, ALIVE_PROBE_METHOD, {});
  const replies = ctx.bridgeLines.slice(linesBefore).filter((line) => {
    try {
      const classified = classifyJsonRpcMessage(JSON.parse(line));
      return classified.kind === "response" && classified.message.id === UNSOLICITED_RESPONSE_ID;
    } catch {
      return false;
    }
  });
  if (!afterResponse) {
    ctx.results.push(result("rpc/response-not-request", "fail", `after an unsolicited response, ${describeAnswer(ctx, ALIVE_PROBE_METHOD, afterResponse)}`));
  } else if (replies.length > 0) {
    ctx.results.push(result("rpc/response-not-request", "fail", `the unsolicited response id ${UNSOLICITED_RESPONSE_ID} was answered: ${replies[0]!.slice(0, 200)}`));
  } else {
    ctx.results.push(result("rpc/response-not-request", "pass"));
  }
}

/**
 * Phase 2, handshake (spec 10 §7 `handshake/initialize`): the result parses, speaks
 * protocol 2 and offers a grammar range that negotiates with `[3,3]` — the same check the
 * runtime's grammar gate applies at spawn.
 */
export async function runHandshakePhase(ctx: RunContext): Promise<void> {
  const answer = await ask(ctx, "initialize", CONFORMANCE_INITIALIZE_PARAMS);
  if (!answer || answer.kind === "error") {
    ctx.results.push(result("handshake/initialize", "fail", describeAnswer(ctx, "initialize", answer)));
    return;
  }
  try {
    checkInitializeResult(ctx.client.name, answer.result);
    ctx.results.push(result("handshake/initialize", "pass"));
  } catch (error) {
    ctx.results.push(result("handshake/initialize", "fail", error instanceof Error ? error.message : String(error)));
  }
}
