/**
 * The order the ACP bridge acts on runtime lines: each one after every agent line read before it
 * (on any of the bridge's agent connections) has been handled, and after every runtime line read
 * before it was acted on. The agent's lines are handled one per macrotask (line-queue.ts) but the
 * runtime's are read at once, so without this a runtime line read after an agent line could be
 * acted on first: a `thread/stop` would drop the agent's already-read last chunk (a stopping
 * session drops updates), a `turn/steer` would cancel a prompt whose answer was already read. The
 * recorder orders lines as read (one `seq` over the four lanes), and a replay feeds them in that
 * order, so acting in read order is what lets a recording replay as it was made
 * (stack/acp/connection/README.md "Read order").
 *
 * Only lines read BEFORE the runtime line are waited for: a stop still acts while the agent floods.
 *
 * A runtime line whose effect on the agent is written some microtasks after its place (the
 * runtime's answer to a permission request: the outcome goes back through the request's handler
 * and the connection) names that write as `actedOn`: the runtime line read after it is placed
 * only once it is written, so what the runtime said first reaches the agent first (a deny and a
 * `thread/stop` in one chunk: the deny's answer, then `session/cancel`).
 */

/** The act points of runtime lines, in the order they were read. */
export interface ReadOrder {
  /**
   * Takes the next place in line for a runtime line read just now. Call it synchronously where
   * the line is read, with each agent connection's `handledReceived()` taken at that moment (the
   * agent lines read before it). Resolves (never rejects) once those lines were handled and the
   * runtime line read before this one reached its own place (and, when that line named its
   * `actedOn`, once that settled too); places resolve in call order.
   *
   * `actedOn`, when given, settles (never rejects) once this line's own write to the agent is done
   * or dropped; it must not wait for a runtime line read after this one. The next place waits for it.
   */
  place(agentLinesReadBefore: ReadonlyArray<Promise<void>>, actedOn?: Promise<void>): Promise<void>;
}

/** Creates an empty {@link ReadOrder} (one per bridge instance). */
export function createReadOrder(): ReadOrder {
  let last: Promise<void> = Promise.resolve();
  return {
    place(agentLinesReadBefore, actedOn) {
      const place = Promise.all([last, ...agentLinesReadBefore]).then(
        () => undefined,
        () => undefined,
      );
      last = actedOn
        ? Promise.all([place, actedOn]).then(
            () => undefined,
            () => undefined,
          )
        : place;
      return place;
    },
  };
}
