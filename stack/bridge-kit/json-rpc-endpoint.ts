/**
 * The core every JSON-RPC wire of the project shares (spec 10 §1.1: each direction mints its
 * own ids and matches answers by id): the table of this side's requests still waiting for an
 * answer, with their timeouts, and the rule that a request of the other side is answered
 * exactly once. The wires (the ACP connection to an agent, the bridge's io towards the
 * runtime, the runtime's client of a bridge, the fixture agent) keep reading and writing
 * their own lines, so every raw line still passes through them (recording depends on it);
 * they hand this core the answers they parse and the requests they serve.
 */
import { jsonRpcError, jsonRpcResult, type JsonRpcErrorObject, type JsonRpcId, type JsonRpcResponse } from "../protocol/json-rpc.js";
import { createRealScheduler, type ScheduledHandle, type Scheduler } from "./scheduler.js";

/**
 * How one waiting request ends: exactly one of these is called, once, synchronously from
 * {@link PendingRequests.answer}, {@link PendingRequests.closeAll} or the scheduled timeout.
 */
export interface PendingWaiter<Answer, Reason> {
  /** The other side answered (with whatever the wire parsed: a result or an error). */
  answered(answer: Answer): void;
  /** The wire closed first; `reason` is what the wire passed to {@link PendingRequests.closeAll}. */
  closed(reason: Reason): void;
  /** The request's `timeoutMs` passed first; it is no longer pending. */
  timedOut(): void;
}

interface Entry<Answer, Reason> {
  waiter: PendingWaiter<Answer, Reason>;
  timeout: ScheduledHandle | undefined;
}

/** Options of {@link PendingRequests}. */
export interface PendingRequestsOptions {
  /** The first id {@link PendingRequests.nextId} mints (default 1; an agent such as Cursor starts at 0). */
  firstId?: number;
  /** Where request timeouts are scheduled (default the real timers, {@link createRealScheduler}). */
  scheduler?: Scheduler;
}

/**
 * This side's requests waiting for an answer, by id. Ids are matched as given (`1` and `"1"`
 * differ); a wire that accepts an echoed string id normalizes it before
 * {@link PendingRequests.answer}. Each waiter is settled once: a second answer to the same id
 * finds nothing pending and returns false, for the wire to note or ignore.
 */
export class PendingRequests<Answer, Reason = unknown> {
  private readonly entries = new Map<JsonRpcId, Entry<Answer, Reason>>();
  private readonly scheduler: Scheduler;
  private next: number;

  constructor(options: PendingRequestsOptions = {}) {
    this.next = options.firstId ?? 1;
    this.scheduler = options.scheduler ?? createRealScheduler();
  }

  /** The next request id of this side (consecutive whole numbers). */
  nextId(): number {
    return this.next++;
  }

  /**
   * Waits for the answer to `id` (one waiter per id; a later one replaces it). With
   * `timeoutMs` (ms) the request stops waiting after that long and `timedOut` is called.
   */
  wait(id: JsonRpcId, waiter: PendingWaiter<Answer, Reason>, timeoutMs?: number): void {
    const timeout =
      timeoutMs === undefined
        ? undefined
        : this.scheduler.schedule(timeoutMs, () => {
            this.entries.delete(id);
            waiter.timedOut();
          });
    this.entries.set(id, { waiter, timeout });
  }

  /** True while `id` waits for an answer. */
  has(id: JsonRpcId): boolean {
    return this.entries.has(id);
  }

  /** Settles the request `id` with `answer`; false when nothing waits for it (answered twice, never sent, timed out). */
  answer(id: JsonRpcId, answer: Answer): boolean {
    const entry = this.take(id);
    if (!entry) return false;
    entry.waiter.answered(answer);
    return true;
  }

  /** Stops waiting for `id` without settling it (the caller gave up); false when it was not pending. */
  forget(id: JsonRpcId): boolean {
    return this.take(id) !== undefined;
  }

  /** Settles every waiting request as closed with `reason`; the table is empty afterwards. */
  closeAll(reason: Reason): void {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) {
      this.scheduler.cancel(entry.timeout);
      entry.waiter.closed(reason);
    }
  }

  /** Requests still waiting. */
  get size(): number {
    return this.entries.size;
  }

  private take(id: JsonRpcId): Entry<Answer, Reason> | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.scheduler.cancel(entry.timeout);
    return entry;
  }
}

/**
 * Serves one request of the other side and sends exactly one response (spec 10 §1.1): the
 * value `handle` returns or resolves with (undefined is sent as null), or the error object
 * `errorOf` makes of what it throws or rejects with. `handle` runs on a later microtask,
 * never inside the caller's line handling. Resolves once the response is handed to `send`.
 */
export function answerRequestOnce(id: JsonRpcId, handle: () => unknown, send: (response: JsonRpcResponse) => void, errorOf: (thrown: unknown) => JsonRpcErrorObject): Promise<void> {
  let answered = false;
  const answerOnce = (response: JsonRpcResponse): void => {
    if (answered) return;
    answered = true;
    send(response);
  };
  return Promise.resolve()
    .then(handle)
    .then(
      (result) => answerOnce(jsonRpcResult(id, result)),
      (thrown: unknown) => {
        const { code, message, data } = errorOf(thrown);
        answerOnce(jsonRpcError(id, code, message, data));
      },
    );
}
