/**
 * The agent's stdout lines, handled one per macrotask in order (see connection.ts): the
 * consequences of each line (a prompt answer settling its turn) land before the next line is
 * read, so an update written after a prompt answer belongs to no prompt.
 */

/** A queue of read lines and a way to wait until every line read so far has been handled. */
export interface LineQueue {
  /** Queues one line read from the agent. */
  push(line: string): void;
  /** True while lines are queued or being handled. */
  readonly draining: boolean;
  /** Runs `close` once the queue has drained (at once when it is empty). */
  whenDrained(close: () => void): void;
  /** Resolves once every line read so far has been handled; waiters resolve in the order they called. */
  handledReceived(): Promise<void>;
}

/** Creates a {@link LineQueue} that calls `handle` for each line, one per macrotask. */
export function createLineQueue(handle: (line: string) => void): LineQueue {
  const queue: string[] = [];
  let draining = false;
  let pendingClose: (() => void) | null = null;
  // Lines read and lines handled, counted from spawn; waiters of handledReceived() by target count.
  let readCount = 0;
  let handledCount = 0;
  const handledWaiters: Array<{ target: number; resolve(): void }> = [];
  // Waiters wake in the order they started waiting (read order: a runtime line read first is
  // acted on first when both wait for the same agent line).
  const wakeHandledWaiters = (): void => {
    const due = handledWaiters.filter((waiter) => waiter.target <= handledCount);
    if (due.length === 0) return;
    handledWaiters.splice(0, handledWaiters.length, ...handledWaiters.filter((waiter) => waiter.target > handledCount));
    for (const waiter of due) waiter.resolve();
  };
  const drain = (): void => {
    const line = queue.shift();
    if (line === undefined) {
      draining = false;
      const close = pendingClose;
      pendingClose = null;
      close?.();
      return;
    }
    handle(line);
    handledCount += 1;
    wakeHandledWaiters();
    setImmediate(drain);
  };
  return {
    push(line) {
      readCount += 1;
      queue.push(line);
      if (!draining) {
        draining = true;
        setImmediate(drain);
      }
    },
    get draining() {
      return draining;
    },
    whenDrained(close) {
      // Lines still queued were written before the close: handle them first.
      if (draining) pendingClose = close;
      else close();
    },
    handledReceived() {
      if (handledCount >= readCount) return Promise.resolve();
      const target = readCount;
      return new Promise<void>((resolve) => handledWaiters.push({ target, resolve }));
    },
  };
}
