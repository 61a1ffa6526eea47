/**
 * The order the ACP bridge acts on two pipes' lines is the order it read them. omp writes
 * `session/request_permission` and then its `tool_call` for the same call; the runtime's deny comes
 * on the bridge's stdin. The bridge reads a runtime line at once but an agent line one macrotask
 * later (stack/acp/connection/line-queue.ts), so a deny read right after omp's `tool_call` was once
 * acted on before it: a fresh re-record (`parity record --provider acp-omp --cell approval-deny
 * --repeat 5`, run 3) recorded the `tool_call` first (seq 22, the deny 23) but wrote the deny's
 * item.open/item.close first and the `tool_call` as a late raw update; its replay, fed in the
 * recorded order, diverged. Now the runtime's answer waits for the agent lines read before it
 * (interaction/runtime-interaction.ts).
 *
 * This drives the bridge in process with an agent that plays the committed recording's own lines
 * (recordings/acp-omp/approval-deny) and answers the runtime's `interaction/request` in the same
 * macrotask as the agent's `tool_call` is read, after it: nothing here depends on the clock.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { isBoundary, startInProcessBridge, type InProcessBridge, type WireMessage } from "./bridge-harness.js";
import { pipedChild } from "../helpers/piped-child.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

const CELL = path.join(REPO_ROOT, "recordings/acp-omp/approval-deny");

/** The committed lines of one lane, by seq (parsed JSON-RPC messages). */
function lane(name: string): Map<number, WireMessage> {
  const entries = readFileSync(path.join(CELL, name), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { seq: number; line: string });
  return new Map(entries.map((entry) => [entry.seq, JSON.parse(entry.line) as WireMessage]));
}

const agentLines = lane("provider→bridge.ndjson");
const runtimeLines = lane("runtime→bridge.ndjson");
// What today's bridge writes for the committed lines (harness/rerecord: the `.current` bridge lane).
const recordedOut = lane("bridge→runtime.current.ndjson");
const line = (seq: number): WireMessage => {
  const message = agentLines.get(seq);
  if (message === undefined) throw new Error(`no provider→bridge line ${seq}`);
  return message;
};

/** Where omp's `tool_call` (seq 21) is read: before the runtime's deny (the committed order) or after the bridge acted on it. */
type ToolCallRead = "before-the-deny" | "after-the-deny";

/**
 * An agent child whose stdout is written by the test: each line is delivered as its own `data`
 * chunk at once, exactly as the connection reads a pipe. It answers the bridge's requests with the
 * recording's answers and plays the rest of the turn once the bridge answered its permission request.
 */
function ompChild(order: ToolCallRead): { child: ChildProcess; emitToolCall(): void } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const child = pipedChild({ stdin, stdout, stderr });
  const write = (message: WireMessage): void => void stdout.emit("data", Buffer.from(`${JSON.stringify(message)}\n`));
  const answer = (seq: number, id: WireMessage["id"]): void => write({ ...line(seq), id });
  let buffered = "";
  stdin.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    for (let at = buffered.indexOf("\n"); at !== -1; at = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, at)) as WireMessage;
      buffered = buffered.slice(at + 1);
      if (message.method === "initialize") answer(5, message.id);
      else if (message.method === "session/new") [7, 12, 13].forEach((seq) => (seq === 7 ? answer(seq, message.id) : write(line(seq))));
      else if (message.method === "session/prompt") write(line(20));
      else if (message.method === undefined && message.id === 0) {
        // The bridge answered the permission request (seq 25): the rest of omp's turn.
        if (order === "after-the-deny") write(line(21));
        for (const seq of [26, 28, 29, 31, 32, 33, 38, 40, 41]) write(line(seq));
        answer(42, 3);
      }
    }
  });
  return { child, emitToolCall: () => write(line(21)) };
}

/** The bridge's `thread/delta` and `thread/identity` notifications of one run of the cell, and the agent lines it answered. */
async function run(order: ToolCallRead): Promise<{ notifications: WireMessage[]; answers: WireMessage[] }> {
  const agent = ompChild(order);
  const answers: WireMessage[] = [];
  const bridge = startInProcessBridge({ spawn: () => agent.child });
  open.push(bridge);
  agent.child.stdin!.on("data", (chunk: Buffer) =>
    answers.push(
      ...chunk
        .toString("utf8")
        .trim()
        .split("\n")
        .map((text) => JSON.parse(text) as WireMessage),
    ),
  );
  bridge.onRuntimeRequest((method) => {
    expect(method).toBe("interaction/request");
    // omp's tool_call is read in this macrotask, before the runtime's deny (delivered a few
    // microtasks later by the harness), and queued: the bridge handles it on a later macrotask.
    if (order === "before-the-deny") agent.emitToolCall();
    return runtimeLines.get(24)!.result;
  });
  const withCwd = (params: any) => ({ ...params, cwd: bridge.dir });
  await bridge.request("thread/start", withCwd(runtimeLines.get(3)!.params));
  await bridge.request("turn/start", runtimeLines.get(15)!.params);
  await bridge.waitFor(isBoundary);
  const notifications = bridge.out.filter((message) => message.id === undefined && (message.method === "thread/delta" || message.method === "thread/identity"));
  return { notifications, answers };
}

const open: InProcessBridge[] = [];
afterEach(async () => {
  for (const bridge of open.splice(0)) await bridge.close();
});

/** Each delta's kind, with the item's status for opens and closes. */
const kinds = (notifications: WireMessage[]): string[] =>
  notifications.flatMap((message) => (message.params.deltas ?? [message.method]).map((delta: any) => (typeof delta === "string" ? delta : delta.kind)));

describe("acp-omp approval-deny: the bridge acts on omp's tool_call and the runtime's deny in the order it read them", () => {
  it("omp's tool_call read just before the deny is handled before it: the bridge writes the committed cell's bridge→runtime notifications (its .current lane)", async () => {
    const { notifications, answers } = await run("before-the-deny");
    const recorded = [...recordedOut.values()].filter((message) => message.id === undefined && (message.method === "thread/delta" || message.method === "thread/identity"));
    expect(notifications).toEqual(recorded);
    // The call opens from omp's tool_call and settles denied from its failed update; nothing of it is a raw update.
    expect(kinds(notifications).filter((kind) => kind.startsWith("item.open") || kind === "item.close" || kind === "unhandled")).toEqual(["item.open", "item.close"]);
    expect(answers.find((message) => message.id === 0)).toEqual(lane("bridge→provider.ndjson").get(25));
  });

  it("omp's tool_call read after the bridge acted on the deny: the denial opens and settles the call, omp's two reports are its raw updates, shown only with no turn open", async () => {
    const { notifications } = await run("after-the-deny");
    const deltas = notifications.flatMap((message) => message.params.deltas ?? []);
    const call = deltas.filter((delta: any) => delta.kind === "item.open" || delta.kind === "item.close" || delta.kind === "unhandled");
    expect(call.map((delta: any) => [delta.kind, delta.onlyIfNoTurn ?? null, delta.rawType ?? null])).toEqual([
      ["item.open", null, null],
      ["item.close", null, null],
      ["unhandled", true, "acp/update:tool_call"],
      ["unhandled", true, "acp/update:tool_call_update"],
    ]);
    // The same item either way: the deny-first open and close say what the tool_call-first ones say.
    const { notifications: committedOrder } = await run("before-the-deny");
    const items = (list: any[]) => list.filter((delta) => delta.kind === "item.open" || delta.kind === "item.close").map(({ noTurnFallback: _fallback, ...delta }) => delta);
    expect(items(call)).toEqual(items(committedOrder.flatMap((message) => message.params.deltas ?? [])));
  });
});
