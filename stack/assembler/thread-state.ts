/**
 * Per-thread assembler state and the LRU registry that holds it (spec 10 §2.4).
 */
import type { ThreadDeltaKey } from "../protocol/thread-delta.js";
import type { ThreadEvent, ThreadItem } from "../protocol/thread-events.js";
import { BoundedMap, BoundedSet } from "./bounded.js";
import { IdMap } from "./ids.js";
import { MAX_ID_MAP_ENTRIES, MAX_SETTLED_ITEM_KEYS } from "./limits.js";

/** An item between its start and its settlement, held under its key string (spec 10 §2.4). */
export interface OpenItem {
  bbItemId: string;
  key: ThreadDeltaKey;
  /** The item as last emitted by `item/started` (or synthesized). */
  item: ThreadItem;
  /** backgroundTask, or delegation with `background:true`: survives finishTurn and session.ended. */
  threadAttached: boolean;
  /** Accumulated text of every text channel except `reasoningSummary` (spec 10 §2.8). */
  text: string;
  /** Accumulated `reasoningSummary` text (spec 10 §2.8). */
  summaryText: string;
}

/** A throttled progress event waiting for its window to pass (spec 10 §2.10). */
export interface PendingProgress {
  event: ThreadEvent;
  /** Message progress (no snapshot): dropped by finishTurn. */
  turnScoped: boolean;
}

/** A batched text stream: the first buffered event and every delta since (spec 10 §2.11). */
export interface PendingText {
  event: ThreadEvent & { delta: string };
  deltas: string[];
}

/** Everything the assembler remembers about one thread (spec 10 §2.4). */
export interface ThreadState {
  /** The unkeyed current turn ("cur"). */
  currentTurnId: string | undefined;
  /** The previous unkeyed turn ("last"). */
  lastTurnId: string | undefined;
  /** Client request ids accepted while no unkeyed turn was open, FIFO. */
  pendingAccepted: string[];
  /** Open items by key string, in insertion order. */
  openItems: Map<string, OpenItem>;
  /** Last command output snapshot by key string (spec 10 §2.9). */
  commandSnapshots: Map<string, string>;
  /** providerItemId ↔ bb item id. */
  itemIds: IdMap;
  /** providerTurnId ↔ bb turn id. */
  turnIds: IdMap;
  /** Key strings of settled items that have a `providerItemId` (close dedup). */
  settledItemKeys: BoundedSet<string>;
  /** Last emitted progress per key string, in ms. */
  progressLastEmit: BoundedMap<string, number>;
  /** Throttled progress per key string. */
  pendingProgress: Map<string, PendingProgress>;
  /** Last text flush per stream key, in ms. */
  textLastEmit: BoundedMap<string, number>;
  /** Buffered text per stream key, in arrival order. */
  pendingText: Map<string, PendingText>;
}

/** A fresh, empty thread state. */
export function createThreadState(): ThreadState {
  return {
    currentTurnId: undefined,
    lastTurnId: undefined,
    pendingAccepted: [],
    openItems: new Map(),
    commandSnapshots: new Map(),
    itemIds: new IdMap(MAX_ID_MAP_ENTRIES),
    turnIds: new IdMap(MAX_ID_MAP_ENTRIES),
    settledItemKeys: new BoundedSet(MAX_SETTLED_ITEM_KEYS),
    progressLastEmit: new BoundedMap(MAX_ID_MAP_ENTRIES),
    pendingProgress: new Map(),
    textLastEmit: new BoundedMap(MAX_ID_MAP_ENTRIES),
    pendingText: new Map(),
  };
}

/**
 * A thread is idle when it has no current turn, no open items, no pending input and no pending
 * text; pending progress does not pin it (spec 10 §2.4).
 */
export function isIdleThread(state: ThreadState): boolean {
  return state.currentTurnId === undefined && state.openItems.size === 0 && state.pendingAccepted.length === 0 && state.pendingText.size === 0;
}

/** Thread states in LRU order (spec 10 §2.4). */
export interface ThreadRegistry {
  /** The state of `threadId` without creating it or refreshing its LRU position. */
  peek(threadId: string): ThreadState | undefined;
  /** The state of `threadId`, created when missing; refreshes it and may evict the oldest idle thread. */
  stateFor(threadId: string): ThreadState;
  /** Forgets `threadId` entirely. */
  delete(threadId: string): void;
  /** Number of threads held. */
  readonly size: number;
}

/** Creates a registry that keeps at most `maxThreads` threads while idle ones can be evicted. */
export function createThreadRegistry(maxThreads: number): ThreadRegistry {
  const states = new Map<string, ThreadState>();
  // The most recently used thread is already last in LRU order; skipping its refresh keeps the
  // common case (many batches of one thread) free of map churn.
  let newest: string | undefined;
  const prune = (keep: string): void => {
    while (states.size > maxThreads) {
      let victim: string | undefined;
      for (const [threadId, state] of states) {
        if (threadId !== keep && isIdleThread(state)) {
          victim = threadId;
          break;
        }
      }
      // Busy threads are never evicted; the registry may then exceed its cap.
      if (victim === undefined) return;
      states.delete(victim);
    }
  };
  return {
    peek: (threadId) => states.get(threadId),
    stateFor(threadId) {
      let state = states.get(threadId);
      if (state && threadId === newest) return state;
      if (state) states.delete(threadId);
      else state = createThreadState();
      states.set(threadId, state);
      newest = threadId;
      prune(threadId);
      return state;
    },
    delete(threadId) {
      states.delete(threadId);
      if (threadId === newest) newest = undefined;
    },
    get size() {
      return states.size;
    },
  };
}
