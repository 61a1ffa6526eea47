/**
 * The host grammar (`ThreadEventGrammar`, spec 10 §3): a streaming filter over canonical thread
 * events, keyed by `event.threadId`, that reports events breaking turn and item lifecycle rules.
 * A violation does not advance state; the caller drops the event.
 */
import { STREAM_DELTA_EVENT_TYPES, type ThreadEvent } from "../protocol/thread-events.js";
import { BoundedSet } from "./bounded.js";
import { MAX_GRAMMAR_ITEM_IDS } from "./limits.js";

/** The rules of spec 10 §3, by name. */
export const THREAD_EVENT_GRAMMAR_RULES = ["turn/starts-once", "turn/settles-once", "turn/known", "item/settles-once", "item/opens-before-delta"] as const;
/** A host-grammar rule name. */
export type ThreadEventGrammarRule = (typeof THREAD_EVENT_GRAMMAR_RULES)[number];

/** The outcome of {@link ThreadEventGrammar.observe}: `ok`, or the rule broken and why. */
export type GrammarVerdict = { ok: true } | { ok: false; rule: ThreadEventGrammarRule; reason: string };

/** A streaming host grammar (spec 10 §3). */
export interface ThreadEventGrammar {
  /** Checks one event; on `ok` the event's effect is recorded, on a violation nothing changes. */
  observe(event: ThreadEvent): GrammarVerdict;
  /** Forgets every thread. */
  clear(): void;
  /** Forgets one thread (runtime and parity call it on `thread/stop{intent:"release"}`). */
  clearThread(threadId: string): void;
}

interface GrammarThreadState {
  openItems: BoundedSet<string>;
  settledItems: BoundedSet<string>;
  startedTurns: Set<string>;
  completedTurns: Set<string>;
}

const ITEM_COMPLETIONS: ReadonlySet<string> = new Set(["item/completed", "item/backgroundTask/completed", "item/delegation/completed"]);

/** Progress events checked on `item.id`. */
const ITEM_SNAPSHOT_PROGRESS: ReadonlySet<string> = new Set(["item/backgroundTask/progress", "item/delegation/progress"]);

/** Deltas and progress checked on `itemId`: the stream deltas of spec 10 §2.11 and tool progress. */
const ITEM_ID_DELTAS: ReadonlySet<string> = new Set([...STREAM_DELTA_EVENT_TYPES, "item/mcpToolCall/progress", "item/toolCall/progress"]);

const OK: GrammarVerdict = { ok: true };

function violation(rule: ThreadEventGrammarRule, reason: string): GrammarVerdict {
  return { ok: false, rule, reason };
}

function turnIdOf(event: ThreadEvent): string | undefined {
  return event.scope.kind === "turn" ? event.scope.turnId : undefined;
}

/**
 * Creates a host grammar with no state (spec 10 §3). Per thread it remembers open and settled
 * item ids (512 each, oldest forgotten) and started and completed turn ids (uncapped).
 * `item/started` always passes and un-settles its item (a reopen is legal); a completion without
 * a start is kept; turn rules ignore events that are not turn-scoped.
 */
export function createThreadEventGrammar(): ThreadEventGrammar {
  const threads = new Map<string, GrammarThreadState>();
  const stateOf = (threadId: string): GrammarThreadState => {
    let state = threads.get(threadId);
    if (!state) {
      state = {
        openItems: new BoundedSet(MAX_GRAMMAR_ITEM_IDS),
        settledItems: new BoundedSet(MAX_GRAMMAR_ITEM_IDS),
        startedTurns: new Set(),
        completedTurns: new Set(),
      };
      threads.set(threadId, state);
    }
    return state;
  };

  const observe = (event: ThreadEvent): GrammarVerdict => {
    const state = stateOf(event.threadId);
    const type = event.type;
    if (type === "turn/started" || type === "turn/completed") {
      const turnId = turnIdOf(event);
      if (turnId === undefined) return OK;
      if (type === "turn/started") {
        if (state.completedTurns.has(turnId)) return violation("turn/starts-once", `turn ${turnId} already completed`);
        if (state.startedTurns.has(turnId)) return violation("turn/starts-once", `turn ${turnId} is already open`);
        state.startedTurns.add(turnId);
        return OK;
      }
      if (state.completedTurns.has(turnId)) return violation("turn/settles-once", `turn ${turnId} already completed`);
      if (!state.startedTurns.has(turnId)) return violation("turn/known", `turn ${turnId} never started`);
      state.completedTurns.add(turnId);
      return OK;
    }
    if (type === "item/started") {
      const itemId = event.item.id;
      state.openItems.add(itemId);
      state.settledItems.delete(itemId);
      return OK;
    }
    if (ITEM_COMPLETIONS.has(type)) {
      const itemId = (event as { item: { id: string } }).item.id;
      if (state.settledItems.has(itemId)) return violation("item/settles-once", `item ${itemId} already settled`);
      state.settledItems.add(itemId);
      state.openItems.delete(itemId);
      return OK;
    }
    if (ITEM_SNAPSHOT_PROGRESS.has(type) || ITEM_ID_DELTAS.has(type)) {
      const itemId = ITEM_SNAPSHOT_PROGRESS.has(type) ? (event as { item: { id: string } }).item.id : (event as { itemId: string }).itemId;
      if (!state.openItems.has(itemId)) return violation("item/opens-before-delta", `${type} for item ${itemId}, which is not open`);
      return OK;
    }
    return OK;
  };

  return {
    observe,
    clear: () => threads.clear(),
    clearThread: (threadId) => void threads.delete(threadId),
  };
}
