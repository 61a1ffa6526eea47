/**
 * The ACP bridge acts on a runtime request at its place in read order: after every agent line
 * read before it (stack/acp/connection/read-order.ts). The bridge reads a runtime line at once
 * but handles an agent line one macrotask later (connection/line-queue.ts); a `thread/stop` or a
 * `turn/steer` read right after an agent line was once acted on before that line:
 * - the stop moved the session to `stopping` first, and a stopping session drops updates
 *   (session/session-events.ts): the agent's last chunk, read before the stop, never reached the lane;
 * - the steer wrote `session/cancel` before the chunk's delta, and a steer read after the agent's
 *   prompt answer was accepted into a turn that had already ended (cancel sent, steer re-prompted)
 *   instead of being refused as stale.
 * The recorder orders lines as read (one `seq` over the four lanes) and a replay feeds them in that
 * order, so a live run acting otherwise replays differently from what it did.
 *
 * Each case drives the bridge in process with an agent that plays the committed recording's own
 * lines (recordings/acp-omp/stop-interrupt, recordings/acp-omp/steer) and delivers the runtime's
 * request in the macrotask in which the agent line is read, after it: nothing depends on the clock.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { isBoundary, startInProcessBridge, type InProcessBridge, type WireMessage } from "./bridge-harness.js";
import { lineReadingStdin, pipedChild } from "../helpers/piped-child.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

/** The committed lines of one lane of `cell`, by seq (parsed JSON-RPC messages). */
function lane(cell: string, name: string): Map<number, WireMessage> {
  const entries = readFileSync(path.join(REPO_ROOT, "recordings/acp-omp", cell, name), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { seq: number; line: string });
  return new Map(entries.map((entry) => [entry.seq, JSON.parse(entry.line) as WireMessage]));
}

/** One committed line of a lane. */
function at(lines: Map<number, WireMessage>, seq: number): WireMessage {
  const message = lines.get(seq);
  if (message === undefined) throw new Error(`no line ${seq}`);
  return message;
}

const isNotification = (message: WireMessage): boolean => message.id === undefined && (message.method === "thread/delta" || message.method === "thread/identity");

/** A line the bridge wrote to the agent, with how many lines it had written to the runtime by then. */
type AgentWrite = { message: WireMessage; runtimeLinesBefore: number };

/**
 * The agent's side of one run: what it does with each line the bridge writes to it. `write` delivers
 * one agent line as its own `data` chunk at once, as the connection reads a pipe.
 */
type AgentScript = (message: WireMessage, write: (line: WireMessage) => void) => void;

/**
 * An agent child whose stdout is written by `script`. Its stdin takes each write synchronously, so
 * `written` interleaves the bridge's two pipes exactly: `runtimeLinesBefore` is `out.length` then.
 */
function playerChild(script: AgentScript, out: () => WireMessage[], written: AgentWrite[]): ChildProcess {
  const stdout = new PassThrough();
  const stdin = lineReadingStdin<WireMessage>((message) => {
    written.push({ message, runtimeLinesBefore: out().length });
    script(message, write);
  });
  const child = pipedChild({ stdin, stdout, stderr: new PassThrough() });
  const write = (message: WireMessage): void => void stdout.emit("data", Buffer.from(`${JSON.stringify(message)}\n`));
  return child;
}

const open: InProcessBridge[] = [];
afterEach(async () => {
  for (const bridge of open.splice(0)) await bridge.close();
});

/** Starts a bridge whose agent is played by `script` (given the bridge, to send runtime requests from it). */
function startBridge(script: (bridge: InProcessBridge) => AgentScript): { bridge: InProcessBridge; written: AgentWrite[] } {
  const written: AgentWrite[] = [];
  const bridge: InProcessBridge = startInProcessBridge({ spawn: () => playerChild(script(bridge), () => bridge.out, written) });
  open.push(bridge);
  return { bridge, written };
}

/** The index in `out` of the first `thread/delta` with an `item.textDelta` (-1 when none). */
const firstTextDelta = (out: WireMessage[]): number => out.findIndex((message) => message.method === "thread/delta" && message.params.deltas.some((delta: any) => delta.kind === "item.textDelta"));
/** How many runtime lines the bridge had written when it wrote `session/cancel` to the agent. */
const cancelAfter = (written: AgentWrite[]): number | undefined => written.find((entry) => entry.message.method === "session/cancel")?.runtimeLinesBefore;

describe("acp-omp stop-interrupt: a thread/stop read just after the agent's chunk is acted on after it", () => {
  const agentLines = lane("stop-interrupt", "provider→bridge.ndjson");
  const runtimeLines = lane("stop-interrupt", "runtime→bridge.ndjson");
  // The first turn, before the cell's thread/resume (seq 27), of what today's bridge writes (.current).
  const recordedOut = [...lane("stop-interrupt", "bridge→runtime.current.ndjson").entries()].filter(([seq]) => seq < 27).map(([, message]) => message);

  it("the chunk (seq 20) reaches the lane before the stop settles the turn: the bridge writes the committed cell's notifications, and session/cancel after the chunk's delta", async () => {
    const { bridge, written } = startBridge((b) => (message, write) => {
      if (message.method === "initialize") write({ ...at(agentLines, 5), id: message.id });
      else if (message.method === "session/new") {
        write({ ...at(agentLines, 7), id: message.id });
        write(at(agentLines, 12));
        write(at(agentLines, 13));
      } else if (message.method === "session/prompt") {
        // omp's chunk is read in this macrotask, and the runtime's stop right after it (seq 20, 22).
        write(at(agentLines, 20));
        stopped = b.request("thread/stop", at(runtimeLines, 22).params);
      } else if (message.method === "session/cancel") write({ ...at(agentLines, 24), id: 3 });
    });
    let stopped: Promise<WireMessage> | undefined;
    await bridge.request("thread/start", { ...at(runtimeLines, 3).params, cwd: bridge.dir });
    await bridge.request("turn/start", at(runtimeLines, 15).params);
    await bridge.waitFor(isBoundary);
    expect((await stopped!).result).toEqual({ ok: true });
    expect(bridge.out.filter(isNotification)).toEqual(recordedOut.filter(isNotification));
    // The chunk's delta went to the runtime before session/cancel went to the agent.
    const delta = firstTextDelta(bridge.out);
    expect(delta).toBeGreaterThanOrEqual(0);
    expect(cancelAfter(written)).toBeGreaterThan(delta);
  });
});

describe("acp-omp stop-interrupt: the end of stdin just after the agent's chunk stops the session after it", () => {
  const agentLines = lane("stop-interrupt", "provider→bridge.ndjson");
  const runtimeLines = lane("stop-interrupt", "runtime→bridge.ndjson");

  it("the chunk (seq 20) reaches the lane, then the turn settles interrupted (onClose stops every session with interrupt semantics)", async () => {
    let closed: Promise<void> | undefined;
    const { bridge } = startBridge((b) => (message, write) => {
      if (message.method === "initialize") write({ ...at(agentLines, 5), id: message.id });
      else if (message.method === "session/new") write({ ...at(agentLines, 7), id: message.id });
      else if (message.method === "session/prompt") {
        write(at(agentLines, 20));
        open.splice(open.indexOf(b), 1);
        closed = b.close();
      } else if (message.method === "session/cancel") write({ ...at(agentLines, 24), id: 3 });
    });
    await bridge.request("thread/start", { ...at(runtimeLines, 3).params, cwd: bridge.dir });
    await bridge.request("turn/start", at(runtimeLines, 15).params);
    await closed;
    const kinds = bridge.deltas(at(runtimeLines, 3).params.threadId).map((delta: any) => delta.kind);
    expect(kinds.indexOf("item.textDelta")).toBeGreaterThan(kinds.indexOf("turn.open"));
    expect(kinds.at(-1)).toBe("turn.boundary");
    expect(bridge.deltas(at(runtimeLines, 3).params.threadId).at(-1).status).toBe("interrupted");
  });
});

describe("acp-omp steer: a turn/steer read just after an agent line is acted on after it", () => {
  const agentLines = lane("steer", "provider→bridge.ndjson");
  const runtimeLines = lane("steer", "runtime→bridge.ndjson");
  const recordedOut = [...lane("steer", "bridge→runtime.current.ndjson").values()];
  const agentSetup = (message: WireMessage, write: (line: WireMessage) => void): boolean => {
    if (message.method === "initialize") write({ ...at(agentLines, 5), id: message.id });
    else if (message.method === "session/new") {
      write({ ...at(agentLines, 7), id: message.id });
      write(at(agentLines, 12));
      write(at(agentLines, 13));
    } else return false;
    return true;
  };

  it("the chunk (seq 20) read just before the steer (seq 22): its delta is written before session/cancel, and the bridge writes the committed cell's notifications", async () => {
    let steered: Promise<WireMessage> | undefined;
    const { bridge, written } = startBridge((b) => (message, write) => {
      if (agentSetup(message, write)) return;
      if (message.method === "session/prompt" && message.id === 3) {
        write(at(agentLines, 20));
        steered = b.request("turn/steer", at(runtimeLines, 22).params);
      } else if (message.method === "session/cancel") write({ ...at(agentLines, 25), id: 3 });
      else if (message.method === "session/prompt") {
        for (const seq of [28, 30, 32, 34, 35, 36, 37, 38, 39, 40, 42, 45, 47, 48, 56, 58]) write(at(agentLines, seq));
        write({ ...at(agentLines, 59), id: message.id });
      }
    });
    await bridge.request("thread/start", { ...at(runtimeLines, 3).params, cwd: bridge.dir });
    await bridge.request("turn/start", at(runtimeLines, 15).params);
    await bridge.waitFor(isBoundary);
    expect((await steered!).result).toEqual(at(lane("steer", "bridge→runtime.ndjson"), 24).result);
    expect(bridge.out.filter(isNotification)).toEqual(recordedOut.filter(isNotification));
    // The chunk's delta went to the runtime before session/cancel went to the agent.
    const delta = firstTextDelta(bridge.out);
    expect(delta).toBeGreaterThanOrEqual(0);
    expect(cancelAfter(written)).toBeGreaterThan(delta);
  });

  it("omp's answer to the prompt (its end_turn, seq 59) read just before the steer: the turn ends as answered and the steer is refused as stale, with no session/cancel and no second prompt", async () => {
    let steered: Promise<WireMessage> | undefined;
    const { bridge, written } = startBridge((b) => (message, write) => {
      if (agentSetup(message, write)) return;
      if (message.method === "session/prompt" && message.id === 3) {
        write(at(agentLines, 20));
        write({ ...at(agentLines, 59), id: message.id });
        steered = b.request("turn/steer", at(runtimeLines, 22).params);
      } else if (message.method === "session/prompt") write({ ...at(agentLines, 59), id: message.id });
      else if (message.method === "session/cancel") write({ ...at(agentLines, 25), id: 3 });
    });
    await bridge.request("thread/start", { ...at(runtimeLines, 3).params, cwd: bridge.dir });
    await bridge.request("turn/start", at(runtimeLines, 15).params);
    const boundary = await bridge.waitFor(isBoundary);
    const steer = await steered!;
    expect(steer.error?.code).toBe(-32001);
    expect(boundary.params.deltas.find((delta: any) => delta.kind === "turn.boundary").status).toBe("completed");
    expect(written.map((entry) => entry.message.method)).toEqual(["initialize", "session/new", "session/prompt"]);
    expect(bridge.deltas(at(runtimeLines, 22).params.threadId).filter((delta: any) => delta.kind === "input.accepted")).toHaveLength(1);
  });
});

describe("acp-omp approval-deny: the runtime's deny and the request after it, read in one chunk, reach omp in that order", () => {
  const agentLines = lane("approval-deny", "provider→bridge.ndjson");
  const runtimeLines = lane("approval-deny", "runtime→bridge.ndjson");
  const bridgeToAgent = lane("approval-deny", "bridge→provider.ndjson");
  const steerLines = lane("steer", "runtime→bridge.ndjson");
  const steerAgentLines = lane("steer", "provider→bridge.ndjson");
  const threadId = at(runtimeLines, 15).params.threadId;

  /**
   * One run of the cell up to omp's permission request (seq 20); the runtime then writes the
   * deny (seq 24) and `next` in one chunk: both read synchronously, the deny first. Returns what
   * the bridge wrote to omp, in order, and `next`'s response.
   */
  async function denyThen(next: { method: string; params: unknown }): Promise<{ toAgent: WireMessage[]; response: WireMessage }> {
    const { bridge, written } = startBridge(() => (message, write) => {
      if (message.method === "initialize") write({ ...at(agentLines, 5), id: message.id });
      else if (message.method === "session/new") write({ ...at(agentLines, 7), id: message.id });
      else if (message.method === "session/prompt" && message.id === 3) write(at(agentLines, 20));
      // The prompt ends as omp ends a cancelled one (recordings/acp-omp/steer seq 25); a steer's second prompt as it ends one (seq 59).
      else if (message.method === "session/cancel") write({ ...at(steerAgentLines, 25), id: 3 });
      else if (message.method === "session/prompt") write({ ...at(steerAgentLines, 59), id: message.id });
    });
    let response: Promise<WireMessage> | undefined;
    bridge.onRuntimeRequest((method) => {
      expect(method).toBe("interaction/request");
      const asked = bridge.out.filter((message) => message.method === "interaction/request").at(-1)!;
      void bridge.sendLine(JSON.stringify({ ...at(runtimeLines, 24), id: asked.id }));
      response = bridge.request(next.method, next.params);
      // The harness's own answer never comes.
      return new Promise(() => undefined);
    });
    await bridge.request("thread/start", { ...at(runtimeLines, 3).params, cwd: bridge.dir });
    await bridge.request("turn/start", at(runtimeLines, 15).params);
    await bridge.waitFor(isBoundary);
    return { toAgent: written.map((entry) => entry.message), response: await response! };
  }

  /** The methods of the bridge's lines to omp, an answer named by the id it answers. */
  const wire = (toAgent: WireMessage[]): string[] => toAgent.map((message) => message.method ?? `answer ${String(message.id)}`);

  it("deny + thread/stop: omp gets the deny (the committed answer, seq 25), not `cancelled`, and before session/cancel", async () => {
    const { toAgent, response } = await denyThen({ method: "thread/stop", params: { threadId, intent: "interrupt" } });
    expect(response.result).toEqual({ ok: true });
    expect(toAgent.filter((message) => message.id === 0 && message.method === undefined)).toEqual([at(bridgeToAgent, 25)]);
    // Once wrote session/cancel first: the deny's answer reached the pipe some microtasks after it acted (issue: answer + request in one chunk).
    expect(wire(toAgent)).toEqual(["initialize", "session/new", "session/prompt", "answer 0", "session/cancel"]);
  });

  it("deny + turn/steer (the steer cell's seq 22): the deny reaches omp before the steer's session/cancel and its second prompt", async () => {
    const { toAgent, response } = await denyThen({ method: "turn/steer", params: { ...at(steerLines, 22).params, threadId } });
    expect(response.result).toEqual({ threadId });
    expect(toAgent.filter((message) => message.id === 0 && message.method === undefined)).toEqual([at(bridgeToAgent, 25)]);
    expect(wire(toAgent)).toEqual(["initialize", "session/new", "session/prompt", "answer 0", "session/cancel", "session/prompt"]);
  });
});
