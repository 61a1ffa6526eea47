import { createDeltaAssembler } from "../../stack/assembler/index.js";
import { createThreadEventGrammar } from "../../stack/assembler/index.js";
import { createRealScheduler, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { parseThreadDeltaParams } from "../../stack/protocol/thread-delta.js";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";
import type { BridgeNotification } from "../runtime/json-rpc-client.js";

/** Method name under which each assembled event is re-emitted (spec 10 §7 Transport). */
export const ASSEMBLED_EVENT_METHOD = "conformance/assembledEvent";

/** One canonical thread event the collector assembled, in order. */
export interface AssembledEventRecord {
  /** Runtime thread id, stamped from the `thread/delta` params (the assembler leaves it ""). */
  threadId: string;
  /** The event with `threadId` stamped. */
  event: ThreadEvent;
  /** Position of the bridge line that carried the delta (see `BridgeNotification.position`). */
  position: number;
  /** 0-based index of this record in {@link EventCollector.events}. */
  index: number;
}

/** A host-grammar violation seen while collecting (spec 10 §3). */
export interface GrammarViolation {
  threadId: string;
  rule: string;
  reason: string;
  eventType: string;
}

/**
 * The one collector of a conformance run (spec 10 §7 Transport): assembles every
 * `thread/delta` with text batching off, stamps the thread id, re-emits each event as a
 * `conformance/assembledEvent` notification, and runs the host grammar live so a release
 * stop can clear the thread as the runtime does (spec 10 §3). Waits are event-driven.
 */
export interface EventCollector {
  /** Feeds one bridge notification (non-delta notifications are ignored). */
  accept(notification: BridgeNotification): void;
  /** Every assembled event so far. */
  readonly events: readonly AssembledEventRecord[];
  /** The re-emitted `conformance/assembledEvent` notifications, one per event. */
  readonly assembledNotifications: ReadonlyArray<{ method: string; params: { threadId: string; event: unknown } }>;
  /** One sentence per `thread/delta` notification that failed grammar-v3 validation. */
  readonly deltaErrors: readonly string[];
  /** Host-grammar violations, in order (the violating events are still listed in `events`). */
  readonly grammarViolations: readonly GrammarViolation[];
  /** Forgets the grammar state of `threadId` (what the runtime does on a release stop). */
  clearThread(threadId: string): void;
  /**
   * Resolves with the first event at index ≥ `fromIndex` matching `predicate`, waiting for
   * new events as they arrive; `undefined` after `timeoutMs` ms (divergence detection only)
   * or once {@link EventCollector.end} was called.
   */
  waitFor(predicate: (record: AssembledEventRecord) => boolean, options: { fromIndex?: number; timeoutMs: number }): Promise<AssembledEventRecord | undefined>;
  /** No more events will come (the bridge is gone): pending and later waits end at once. */
  end(): void;
}

/** Options of {@link createEventCollector}. */
export interface EventCollectorOptions {
  /** Provider id given to the assembler (it appears in `provider/unhandled` events). */
  providerId: string;
  /** Clock of the assembler's throttles, in ms. */
  now: () => number;
  /** Timers of the event waits' `timeoutMs`. Absent: the real scheduler. */
  scheduler?: Scheduler;
}

/** Creates an {@link EventCollector}. */
export function createEventCollector(options: EventCollectorOptions): EventCollector {
  const assembler = createDeltaAssembler({ providerId: options.providerId, textDeltaFlushMs: 0, now: options.now });
  const scheduler = options.scheduler ?? createRealScheduler();
  const grammar = createThreadEventGrammar();
  const events: AssembledEventRecord[] = [];
  const assembledNotifications: Array<{ method: string; params: { threadId: string; event: unknown } }> = [];
  const deltaErrors: string[] = [];
  const grammarViolations: GrammarViolation[] = [];
  const waiters = new Set<(record: AssembledEventRecord | undefined) => void>();
  let ended = false;

  const push = (threadId: string, event: ThreadEvent, position: number) => {
    const stamped = { ...event, threadId } as ThreadEvent;
    const verdict = grammar.observe(stamped);
    if (!verdict.ok) grammarViolations.push({ threadId, rule: verdict.rule, reason: verdict.reason, eventType: stamped.type });
    const record: AssembledEventRecord = { threadId, event: stamped, position, index: events.length };
    events.push(record);
    assembledNotifications.push({ method: ASSEMBLED_EVENT_METHOD, params: { threadId, event: stamped } });
    for (const waiter of [...waiters]) waiter(record);
  };

  return {
    accept(notification) {
      if (notification.method !== "thread/delta") return;
      let parsed: ReturnType<typeof parseThreadDeltaParams>;
      try {
        parsed = parseThreadDeltaParams(notification.params);
      } catch (error) {
        deltaErrors.push(error instanceof Error ? error.message : String(error));
        return;
      }
      let assembled: ThreadEvent[];
      try {
        assembled = assembler.assemble({ threadId: parsed.threadId, deltas: parsed.deltas });
      } catch (error) {
        // A delta the schema admits but the assembler cannot take is still the bridge's fault to report.
        deltaErrors.push(`the assembler refused a thread/delta: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      for (const event of assembled) push(parsed.threadId, event, notification.position);
    },
    events,
    assembledNotifications,
    deltaErrors,
    grammarViolations,
    clearThread: (threadId) => grammar.clearThread(threadId),
    end() {
      ended = true;
      for (const waiter of [...waiters]) waiter(undefined);
    },
    waitFor(predicate, { fromIndex = 0, timeoutMs }) {
      const found = events.slice(fromIndex).find(predicate);
      if (found || ended) return Promise.resolve(found);
      return new Promise((resolve) => {
        const waiter = (record: AssembledEventRecord | undefined) => {
          if (record && (record.index < fromIndex || !predicate(record))) return;
          waiters.delete(waiter);
          scheduler.cancel(timer);
          resolve(record);
        };
        const timer = scheduler.schedule(timeoutMs, () => {
          waiters.delete(waiter);
          resolve(undefined);
        });
        waiters.add(waiter);
      });
    },
  };
}
