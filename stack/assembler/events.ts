/**
 * Builders of canonical thread events in the exact field order of spec 10 §2.2: `type, threadId,
 * [providerThreadId], scope`, then the event's own fields. Absent fields are omitted, never set
 * to `undefined`, because parity compares key order and presence (spec 10 §6.3).
 */
import type { ProviderRawEvent } from "../protocol/thread-delta.js";
import type { EventScope, ThreadEvent } from "../protocol/thread-events.js";

/** The thread scope `{kind:"thread"}`. */
export function threadScope(): EventScope {
  return { kind: "thread" };
}

/** The turn scope `{kind:"turn", turnId}`. */
export function turnScope(turnId: string): EventScope {
  return { kind: "turn", turnId };
}

/** Turn scope when a turn is given, thread scope otherwise. */
export function scopeFor(turnId: string | undefined): EventScope {
  return turnId === undefined ? threadScope() : turnScope(turnId);
}

/** Copies `fields` in order, leaving out keys whose value is `undefined`. */
export function definedFields<T extends Record<string, unknown>>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const key in fields) {
    const value = fields[key];
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

/**
 * An event stamped with `threadId: ""` and `providerThreadId: ""` (the runtime fills them;
 * spec 10 §2.1), followed by `scope` and the defined `fields` in the given order.
 */
export function buildEvent(type: ThreadEvent["type"], scope: EventScope, fields: Record<string, unknown> = {}): ThreadEvent {
  return { type, threadId: "", providerThreadId: "", scope, ...definedFields(fields) } as ThreadEvent;
}

/** `thread/started`: the only event without a `providerThreadId` key (spec 10 §2.1). */
export function buildThreadStarted(): ThreadEvent {
  return { type: "thread/started", threadId: "", scope: threadScope() } as ThreadEvent;
}

/** `thread/identity`: the only event carrying the real `providerThreadId` (spec 10 §2.1). */
export function buildThreadIdentity(providerThreadId: string): ThreadEvent {
  return { type: "thread/identity", threadId: "", providerThreadId, scope: threadScope() } as ThreadEvent;
}

/**
 * `provider/unhandled` with its own key order: `type, threadId, providerThreadId, providerId,
 * rawType, rawEvent, scope, parentToolCallId?` (spec 10 §2.2).
 */
export function buildProviderUnhandled(providerId: string, rawType: string, rawEvent: ProviderRawEvent, scope: EventScope, parentToolCallId: string | undefined): ThreadEvent {
  return definedFields({
    type: "provider/unhandled",
    threadId: "",
    providerThreadId: "",
    providerId,
    rawType,
    rawEvent,
    scope,
    parentToolCallId,
  }) as unknown as ThreadEvent;
}
