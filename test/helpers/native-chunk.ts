/**
 * Test helper: a native bridge (claude-code, codex, pi) hosted in process through the bootstrap's
 * own host (`createBridgeHost`), with its agent played by the test, so a test can hand the bridge
 * several runtime lines in ONE read (`chunk`: each line to `acceptLine`, synchronously, as the
 * bootstrap's stdin splitter does for one `data` chunk) and see the lines the bridge wrote to the
 * agent in the order they reached its stdin.
 *
 * The agent's lines are delivered one macrotask after the bridge's line that prompted them
 * (`setImmediate`, as a pipe would), never on a timer; a runtime request's answer from `answer`
 * likewise. Nothing here waits for time: every wait ends on a line.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { ChildProcess } from "node:child_process";
import type { ProviderBridge } from "../../stack/bridge-kit/define.js";
import { createBridgeHost, type BridgeHost } from "../../stack/bridge-kit/host.js";
import { lineReadingStdin, pipedChild } from "./piped-child.js";

/** One parsed JSON line of either pipe. */
export type Line = Record<string, any>;

/**
 * What the played agent does with one line the bridge wrote to it: `write` queues one agent line
 * (delivered on the next macrotask, in call order).
 */
export type AgentScript = (message: Line, write: (line: Line) => void) => void;

/** A bridge in process whose agent is played by a script. */
export interface NativeChunkBridge {
  /** Every line the bridge wrote to its agent, parsed, in the order its stdin took them. */
  readonly toAgent: Line[];
  /** Every line the bridge wrote to the runtime, parsed, in order. */
  readonly out: Line[];
  /** Sends one runtime request (its own line, its own read) and resolves with the response. */
  request(method: string, params: unknown): Promise<Line>;
  /** Hands `lines` to the bridge as one read: each to `acceptLine`, synchronously, in order. */
  chunk(lines: Line[]): void;
  /** Resolves with the response to the runtime request of `id` (sent by `chunk`). */
  response(id: number): Promise<Line>;
  /** Resolves with the first bridge→runtime line `predicate` holds for. */
  waitFor(predicate: (line: Line) => boolean): Promise<Line>;
  /** Ends the host (stdin closed) and removes its directories. */
  close(): Promise<void>;
}

/** The committed lines of one lane of `recordings/<provider>/<cell>`, parsed, by seq. */
export function recordedLane(repoRoot: string, provider: string, cell: string, lane: string): Map<number, Line> {
  const entries = readFileSync(path.join(repoRoot, "recordings", provider, cell, lane), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { seq: number; line: string });
  return new Map(entries.map((entry) => [entry.seq, JSON.parse(entry.line) as Line]));
}

/** One line of a lane by seq; throws when the lane has none. */
export function seqOf(lane: Map<number, Line>, seq: number): Line {
  const line = lane.get(seq);
  if (line === undefined) throw new Error(`no line ${seq}`);
  return line;
}

/**
 * An agent child whose stdin lines go to `script` (and `toAgent`), and whose stdout `script` writes;
 * it exits when its stdin is closed, as the agents do (so a bridge's close needs no kill grace).
 */
function playedChild(script: AgentScript, toAgent: Line[]): ChildProcess {
  const stdout = new PassThrough();
  const write = (line: Line): void => void setImmediate(() => stdout.emit("data", Buffer.from(`${JSON.stringify(line)}\n`)));
  const stdin = lineReadingStdin<Line>(
    (message) => {
      toAgent.push(message);
      script(message, write);
    },
    () =>
      setImmediate(() => {
        child.emit("exit", 0, null);
        child.emit("close", 0, null);
      }),
  );
  const child = pipedChild({ stdin, stdout, stderr: new PassThrough() });
  return child;
}

/**
 * Hosts `makeBridge(spawn)` with its agent played by `script`; `answer` answers the bridge's
 * runtime requests (`interaction/request`): its value is sent as the result on the next
 * macrotask, or nothing is sent when it returns undefined (the test answers with `chunk`).
 */
export function startNativeChunkBridge(makeBridge: (spawn: () => ChildProcess) => ProviderBridge, providerId: string, script: AgentScript, answer: (request: Line) => unknown): NativeChunkBridge {
  const dir = mkdtempSync(path.join(tmpdir(), "native-chunk-"));
  const toAgent: Line[] = [];
  const out: Line[] = [];
  const waiters: Array<{ predicate: (line: Line) => boolean; resolve: (line: Line) => void }> = [];
  let nextId = 1000;
  // eslint-disable-next-line prefer-const
  let host: BridgeHost;
  const writeLine = (text: string): void => {
    const line = JSON.parse(text) as Line;
    out.push(line);
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(line)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
    if (typeof line.method === "string" && line.id !== undefined) {
      const result = answer(line);
      if (result !== undefined) setImmediate(() => host.acceptLine(JSON.stringify({ jsonrpc: "2.0", id: line.id, result })));
    }
  };
  host = createBridgeHost({
    bridge: makeBridge(() => playedChild(script, toAgent)),
    providerId,
    dataDir: dir,
    tempDir: dir,
    env: { PATH: process.env.PATH },
    writeLine,
    log: () => undefined,
  });
  const started = host.start();
  const waitFor = (predicate: (line: Line) => boolean): Promise<Line> => {
    const found = out.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => waiters.push({ predicate, resolve }));
  };
  const response = (id: number): Promise<Line> => waitFor((line) => line.id === id && line.method === undefined);
  return {
    toAgent,
    out,
    async request(method, params) {
      await started;
      const id = nextId++;
      const answered = response(id);
      host.acceptLine(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return answered;
    },
    chunk(lines) {
      for (const line of lines) host.acceptLine(JSON.stringify(line));
    },
    response,
    waitFor,
    async close() {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where a native approval-deny recording's runtime lines are: the thread/start, the turn/start and the deny. */
export interface DenySeqs {
  start: number;
  turn: number;
  deny: number;
}

/**
 * Starts `bridge` on an approval-deny recording's runtime lines (`runtime`, by seq) up to the
 * runtime's question, then hands it the recorded deny (answering the question's id) and `next` (as
 * request id 2000) in ONE read. Resolves with the response to `next`. Waits for lines, never time.
 */
export async function denyThen(bridge: NativeChunkBridge, runtime: Map<number, Line>, seqs: DenySeqs, next: { method: string; params: unknown }): Promise<Line> {
  await bridge.request("thread/start", seqOf(runtime, seqs.start).params);
  await bridge.request("turn/start", seqOf(runtime, seqs.turn).params);
  const asked = await bridge.waitFor((line) => line.method === "interaction/request");
  await new Promise<void>((resolve) => setImmediate(resolve));
  bridge.chunk([
    { ...seqOf(runtime, seqs.deny), id: asked.id },
    { jsonrpc: "2.0", id: 2000, ...next },
  ]);
  return bridge.response(2000);
}
