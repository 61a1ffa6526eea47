/**
 * Raw envelopes and small delta builders shared by the translator modules (spec 20 §3.1–3.2):
 * the `acp/update` envelope behind `noTurnFallback` and suppressed `unhandled`, and the two text
 * stream closes.
 */
import type { JsonValue, NoTurnFallback, ProviderRawEvent, ThreadDelta } from "../../protocol/thread-delta.js";

/** Key channel of the assistant message stream (spec 20 §3.2). */
export const ASSISTANT_CHANNEL = "assistant";
/** Key channel of the thought (reasoning) stream (spec 20 §3.2). */
export const THOUGHT_CHANNEL = "thought";

function toJson(value: unknown): JsonValue {
  // Updates come from parsed JSON lines; this only drops `undefined`s a caller may have added.
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

/**
 * The internal `acp/update` envelope `{jsonrpc:"2.0", method:"acp/update", params:{threadId, update}}`.
 * Tool updates list `sessionUpdate` last, as the reference bridge's parsed updates do, so the raw
 * events of `provider/unhandled` match the recorded lanes key for key.
 */
export function acpUpdateEnvelope(threadId: string, update: Record<string, unknown>): ProviderRawEvent {
  let ordered: Record<string, unknown> = update;
  if (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") {
    const { sessionUpdate, ...rest } = update;
    ordered = { ...rest, sessionUpdate };
  }
  // Updates are parsed JSON lines already; copying them again would cost a clone per chunk.
  return { jsonrpc: "2.0", method: "acp/update", params: { threadId, update: ordered } as JsonValue };
}

/** A raw envelope of another internal event, e.g. `acp/fs/write` (spec 20 §3.1). */
export function internalEnvelope(method: string, params: unknown): ProviderRawEvent {
  return { jsonrpc: "2.0", method, params: toJson(params) };
}

/** `noTurnFallback {raw, rawType:"acp/update:<kind>"}` of an update (spec 20 §3.2). */
export function updateFallback(threadId: string, update: Record<string, unknown>): NoTurnFallback {
  return { raw: acpUpdateEnvelope(threadId, update), rawType: `acp/update:${String(update.sessionUpdate)}` };
}

/** A suppressed update: `unhandled {vouchedTurn:false, onlyIfNoTurn:true}`, shown only with no turn open. */
export function suppressedUpdate(threadId: string, update: Record<string, unknown>): ThreadDelta {
  const fallback = updateFallback(threadId, update);
  return { kind: "unhandled", raw: fallback.raw, rawType: fallback.rawType, vouchedTurn: false, onlyIfNoTurn: true };
}

/** An unknown update kind: `unhandled {vouchedTurn:true}` (spec 20 §3.2 "other kinds"). */
export function unhandledUpdate(threadId: string, update: Record<string, unknown>): ThreadDelta {
  const fallback = updateFallback(threadId, update);
  return { kind: "unhandled", raw: fallback.raw, rawType: fallback.rawType, vouchedTurn: true };
}

/** `item.textClose` of the thought stream. */
export function closeThought(): ThreadDelta {
  return { kind: "item.textClose", key: { channel: THOUGHT_CHANNEL }, channel: "reasoningText" };
}

/** `item.textClose` of the assistant stream. */
export function closeAssistant(): ThreadDelta {
  return { kind: "item.textClose", key: { channel: ASSISTANT_CHANNEL }, channel: "agentMessage" };
}
