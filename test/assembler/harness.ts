/** Test helpers for the delta assembler: a manual clock, batch feeding and event projections. */
import { createDeltaAssembler, createThreadEventGrammar, type DeltaAssembler } from "../../stack/assembler/index.js";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";

export const THREAD = "thr_test";

/** A raw event for fallbacks and unhandled deltas. */
export function raw(method: string, id?: number | string): { jsonrpc: "2.0"; method: string; id?: number | string; params: object } {
  return id === undefined ? { jsonrpc: "2.0", method, params: { n: 1 } } : { jsonrpc: "2.0", id, method, params: { n: 1 } };
}

export const presentation = (name: string) => ({ label: { pending: `${name}…`, completed: name }, icon: { glyph: name } });

/** An assembler on a manual clock, fed batch by batch. */
export class Rig {
  clock = 1_000;
  readonly assembler: DeltaAssembler;
  readonly all: ThreadEvent[] = [];

  constructor(options: { progressThrottleMs?: number; textDeltaFlushMs?: number } = {}) {
    this.assembler = createDeltaAssembler({
      providerId: "test-provider",
      entropyPrefix: "da",
      textDeltaFlushMs: options.textDeltaFlushMs ?? 0,
      ...(options.progressThrottleMs === undefined ? {} : { progressThrottleMs: options.progressThrottleMs }),
      now: () => this.clock,
    });
  }

  /** Feeds one batch (after advancing the clock by `advanceMs`) and returns its events. */
  feed(deltas: object[], advanceMs = 0, threadId = THREAD): ThreadEvent[] {
    this.clock += advanceMs;
    const events = this.assembler.assemble({ threadId, deltas });
    this.all.push(...events);
    return events;
  }
}

/** `type` or `type:item.type` per event. */
export function kinds(events: readonly ThreadEvent[]): string[] {
  return events.map((event) => ("item" in event ? `${event.type}:${event.item.type}` : event.type));
}

/** The turn id of a turn-scoped event, else "thread". */
export function scopeOf(event: ThreadEvent): string {
  return event.scope.kind === "turn" ? event.scope.turnId : "thread";
}

/** Runs events through a fresh host grammar; returns survivors and `rule:eventType` drops. */
export function filterByGrammar(events: readonly ThreadEvent[]): { kept: ThreadEvent[]; drops: string[] } {
  const grammar = createThreadEventGrammar();
  const kept: ThreadEvent[] = [];
  const drops: string[] = [];
  for (const event of events) {
    const verdict = grammar.observe(event);
    if (verdict.ok) kept.push(event);
    else drops.push(`${verdict.rule}:${event.type}`);
  }
  return { kept, drops };
}

/** Shorthands for deltas. */
export const d = {
  turnOpen: (extra: object = {}) => ({ kind: "turn.open", ...extra }),
  accepted: (clientRequestId: string, extra: object = {}) => ({ kind: "input.accepted", clientRequestId, ...extra }),
  boundary: (status = "completed", extra: object = {}) => ({ kind: "turn.boundary", status, ...extra }),
  open: (key: object, item: object, extra: object = {}) => ({ kind: "item.open", key, item, ...extra }),
  close: (key: object, item: object, extra: object = {}) => ({ kind: "item.close", key, status: "completed", item, ...extra }),
  progress: (key: object, extra: object = {}) => ({ kind: "item.progress", key, ...extra }),
  text: (key: object, channel: string, text: string, extra: object = {}) => ({ kind: "item.textDelta", key, channel, text, ...extra }),
  textClose: (key: object, channel: string, extra: object = {}) => ({ kind: "item.textClose", key, channel, ...extra }),
  output: (key: object, channel: string, text: string) => ({ kind: "item.outputDelta", key, channel, text }),
  snapshot: (key: object, text: string) => ({ kind: "command.outputSnapshot", key, text }),
};

/** Valid client request ids (creq_ + 10 chars of the creq alphabet). */
export const CREQ = ["creq_aaaaaaaaaa", "creq_bbbbbbbbbb", "creq_cccccccccc", "creq_dddddddddd"] as const;
