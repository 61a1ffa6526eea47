import { describe, expect, it } from "vitest";
import { answerRequestOnce, PendingRequests } from "../../stack/bridge-kit/json-rpc-endpoint.js";
import type { ScheduledHandle, Scheduler } from "../../stack/bridge-kit/scheduler.js";
import type { JsonRpcResponse } from "../../stack/protocol/json-rpc.js";

/** A scheduler whose callbacks run only when the test says so: no real-time window anywhere. */
function manualTimers() {
  const due = new Map<ScheduledHandle, { callback: () => void; ms: number }>();
  const timers: Scheduler = {
    schedule(ms, callback) {
      const handle = {} as ScheduledHandle;
      due.set(handle, { callback, ms });
      return handle;
    },
    cancel(handle) {
      if (handle !== undefined) due.delete(handle);
    },
    now: () => 0,
  };
  const fireAll = () => {
    const fired = [...due.values()];
    due.clear();
    for (const timer of fired) timer.callback();
  };
  return { timers, due, fireAll };
}

/** A waiter that writes down how it ended. */
function recorder() {
  const ends: string[] = [];
  return {
    ends,
    waiter: {
      answered: (answer: string) => ends.push(`answered ${answer}`),
      closed: (reason: string) => ends.push(`closed ${reason}`),
      timedOut: () => ends.push("timed out"),
    },
  };
}

describe("PendingRequests", () => {
  it("mints consecutive ids from 1, or from the first id given", () => {
    const table = new PendingRequests();
    expect([table.nextId(), table.nextId(), table.nextId()]).toEqual([1, 2, 3]);
    const fromZero = new PendingRequests({ firstId: 0 });
    expect([fromZero.nextId(), fromZero.nextId()]).toEqual([0, 1]);
  });

  it("settles a request once: a second answer to the same id finds nothing pending", () => {
    const { timers, due } = manualTimers();
    const table = new PendingRequests<string, string>({ scheduler: timers });
    const { ends, waiter } = recorder();
    table.wait(1, waiter, 500);
    expect(due.size).toBe(1);
    expect(table.answer(1, "first")).toBe(true);
    expect(table.answer(1, "again")).toBe(false);
    expect(ends).toEqual(["answered first"]);
    expect(due.size).toBe(0);
    expect(table.size).toBe(0);
  });

  it('matches ids as given: the string "1" does not answer request 1', () => {
    const table = new PendingRequests<string, string>();
    const { ends, waiter } = recorder();
    table.wait(1, waiter);
    expect(table.answer("1", "wrong id")).toBe(false);
    expect(table.has(1)).toBe(true);
    expect(ends).toEqual([]);
  });

  it("times a request out on the injected timers and then ignores its late answer", () => {
    const { timers, due, fireAll } = manualTimers();
    const table = new PendingRequests<string, string>({ scheduler: timers });
    const { ends, waiter } = recorder();
    table.wait(7, waiter, 250);
    expect([...due.values()].map((timer) => timer.ms)).toEqual([250]);
    fireAll();
    expect(ends).toEqual(["timed out"]);
    expect(table.answer(7, "late")).toBe(false);
    expect(ends).toEqual(["timed out"]);
  });

  it("closes every waiting request with the reason and clears their timers", () => {
    const { timers, due } = manualTimers();
    const table = new PendingRequests<string, string>({ scheduler: timers });
    const a = recorder();
    const b = recorder();
    table.wait(1, a.waiter, 100);
    table.wait(2, b.waiter);
    table.closeAll("bridge exited");
    expect([...a.ends, ...b.ends]).toEqual(["closed bridge exited", "closed bridge exited"]);
    expect(due.size).toBe(0);
    expect(table.size).toBe(0);
  });

  it("forgets a request without settling it", () => {
    const table = new PendingRequests<string, string>();
    const { ends, waiter } = recorder();
    table.wait(3, waiter);
    expect(table.forget(3)).toBe(true);
    expect(table.forget(3)).toBe(false);
    table.closeAll("later");
    expect(ends).toEqual([]);
  });
});

describe("answerRequestOnce", () => {
  const errorOf = (thrown: unknown) => ({ code: -32000, message: thrown instanceof Error ? thrown.message : String(thrown) });

  it("sends the handler's value as the result, undefined as null, after the caller returns", async () => {
    const sent: JsonRpcResponse[] = [];
    const done = answerRequestOnce(
      4,
      () => undefined,
      (response) => sent.push(response),
      errorOf,
    );
    expect(sent).toEqual([]);
    await done;
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 4, result: null }]);
    await answerRequestOnce(
      "x",
      async () => ({ ok: true }),
      (response) => sent.push(response),
      errorOf,
    );
    expect(sent[1]).toEqual({ jsonrpc: "2.0", id: "x", result: { ok: true } });
  });

  it("turns a throw or a rejection into one error response", async () => {
    const sent: JsonRpcResponse[] = [];
    await answerRequestOnce(
      5,
      () => {
        throw new Error("no such file");
      },
      (response) => sent.push(response),
      errorOf,
    );
    await answerRequestOnce(
      6,
      () => Promise.reject(new Error("denied")),
      (response) => sent.push(response),
      (thrown) => ({ code: 7, message: String(thrown), data: { why: 1 } }),
    );
    expect(sent).toEqual([
      { jsonrpc: "2.0", id: 5, error: { code: -32000, message: "no such file" } },
      { jsonrpc: "2.0", id: 6, error: { code: 7, message: "Error: denied", data: { why: 1 } } },
    ]);
  });
});
