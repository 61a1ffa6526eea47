/**
 * The two pieces the ACP bridge's read order is built of (stack/acp/connection): the agent line
 * queue's `handledReceived` waiters, and the chain of runtime lines' places (read-order.ts). Both
 * release in the order the waits began. The queue used to wake its newest waiter first; the places
 * chain behind each other anyway, but any other waiter of the queue must not overtake an earlier one.
 * Progress-based: each wait ends when the queue has handled the lines, never on a timer.
 */
import { describe, expect, it } from "vitest";
import { createLineQueue } from "../../stack/acp/connection/line-queue.js";
import { createReadOrder } from "../../stack/acp/connection/read-order.js";

describe("line-queue handledReceived", () => {
  it("waiters waiting for the same line wake in the order they started waiting", async () => {
    const handled: string[] = [];
    const queue = createLineQueue((line) => handled.push(line));
    queue.push("a");
    const woke: string[] = [];
    const first = queue.handledReceived().then(() => woke.push("first"));
    const second = queue.handledReceived().then(() => woke.push("second"));
    await Promise.all([first, second]);
    expect(handled).toEqual(["a"]);
    expect(woke).toEqual(["first", "second"]);
  });

  it("a waiter waits only for the lines read before it, not for lines read after", async () => {
    const handled: string[] = [];
    const queue = createLineQueue((line) => handled.push(line));
    queue.push("a");
    const seen = queue.handledReceived().then(() => [...handled]);
    queue.push("b");
    expect(await seen).toEqual(["a"]);
    await queue.handledReceived();
    expect(handled).toEqual(["a", "b"]);
  });
});

describe("read-order places", () => {
  it("a place resolves after the agent lines read before it and after the earlier place, in read order", async () => {
    const handled: string[] = [];
    const queue = createLineQueue((line) => handled.push(line));
    const order = createReadOrder();
    queue.push("a");
    queue.push("b");
    const acted: string[] = [];
    // Read after the agent's a and b: it waits for them.
    const stop = order.place([queue.handledReceived()]).then(() => acted.push(`stop after ${handled.join("")}`));
    queue.push("c");
    // Read after c, but with no agent line of its own to wait for (another connection): still after the stop.
    const next = order.place([]).then(() => acted.push("next"));
    await Promise.all([stop, next]);
    expect(acted).toEqual(["stop after ab", "next"]);
  });

  it("a place taken with `actedOn` holds the next place until that write is done, not its own", async () => {
    const order = createReadOrder();
    const acted: string[] = [];
    let written!: () => void;
    const answerWritten = new Promise<void>((resolve) => (written = resolve));
    // The runtime's answer: its own place does not wait for its write (the write follows the place).
    const answer = order.place([], answerWritten).then(() => acted.push("answer placed"));
    // A stop read after it, in the same chunk.
    const stop = order.place([]).then(() => acted.push("stop placed"));
    await answer;
    // Progress, not time: every microtask the answer's place allows has run; the stop still waits.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(acted).toEqual(["answer placed"]);
    written();
    await stop;
    expect(acted).toEqual(["answer placed", "stop placed"]);
  });
});
