/**
 * Test helper: the pi bridge in-process, driven as a runtime would, against the pi fixture agent
 * (stack/pi/fixture-agent, bundled from source). Waits resolve when the awaited line arrives; the
 * guard timeout only reports a hang.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BridgeContext } from "../../stack/bridge-kit/define.js";
import { createBridgeIo } from "../../stack/bridge-kit/io.js";
import { createPiBridge, type PiBridgeOptions } from "../../stack/pi/bridge.js";
import type { FixtureScriptInput } from "../../stack/pi/fixture-agent/script.js";
import { bundled } from "../acp/fixture-agent-build.js";

/** One parsed bridge→runtime message. */
export type Wire = { id?: number; method?: string; params?: any; result?: any; error?: any };

// Guard for waits, in ms: only reports a hang (with what the bridge wrote), below vitest's 180 s
// test timeout; at load 15+ a fixture agent's start alone has taken seconds.
const GUARD_MS = 120_000;

/** The bundled pi fixture agent's entry. */
export function piFixtureMain(): string {
  return bundled("pi-fixture");
}

/** An in-process pi bridge and its runtime side. */
export interface PiTestBridge {
  readonly dir: string;
  readonly out: Wire[];
  /** Every argv the bridge started pi with. */
  readonly launches: string[][];
  request(method: string, params: unknown): Promise<Wire>;
  waitFor(predicate: (m: Wire) => boolean): Promise<Wire>;
  /** How `interaction/request`s are answered (default: deny). */
  onInteraction(answer: (params: any) => unknown): void;
  deltas(threadId?: string): any[];
  /** `thread/start` params running the fixture with `script` under `permissionMode`. */
  startParams(threadId: string, script: FixtureScriptInput, permissionMode?: string): Record<string, unknown>;
  close(): Promise<void>;
}

/** Starts the bridge (its `spawn` records each argv, then starts the process as asked). */
export function startPiTestBridge(options: PiBridgeOptions = {}): PiTestBridge {
  const dir = mkdtempSync(join(tmpdir(), "pi-bridge-test-"));
  const launches: string[][] = [];
  const bridge = createPiBridge({
    ...options,
    recordChild: () => undefined,
    spawn: (command, args, spawnOptions) => {
      launches.push([...args]);
      return spawn(command, args, spawnOptions);
    },
  });
  const out: Wire[] = [];
  const waiters: Array<{ predicate: (m: Wire) => boolean; resolve(m: Wire): void }> = [];
  let answer: (params: any) => unknown = () => ({ decision: "deny" });
  let nextId = 100;
  // eslint-disable-next-line prefer-const
  let ctx: BridgeContext;
  // As the bootstrap does: an answer to one of the bridge's own requests goes to its io first.
  const deliver = (line: string) => {
    const parsed = JSON.parse(line) as unknown;
    if (!ctx.io.acceptResponse(parsed)) void bridge.handleLine(line, ctx, parsed);
  };
  const io = createBridgeIo((line) => {
    const message = JSON.parse(line) as Wire;
    out.push(message);
    for (const w of [...waiters]) {
      if (!w.predicate(message)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(message);
    }
    if (message.method && message.id !== undefined) {
      const id = message.id;
      void Promise.resolve(answer(message.params)).then((result) => deliver(JSON.stringify({ jsonrpc: "2.0", id, result })));
    }
  });
  ctx = { providerId: "pi", dataDir: dir, tempDir: dir, io, env: process.env, log: () => undefined };
  const waitFor = (predicate: (m: Wire) => boolean): Promise<Wire> => {
    const found = out.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; bridge wrote: ${JSON.stringify(out.map((m) => [m.id, m.method, m.params?.deltas?.map((d: any) => d.kind).join(",")]))}`)), GUARD_MS);
      waiters.push({ predicate, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  };
  let scripts = 0;
  return {
    dir,
    out,
    launches,
    request(method, params) {
      const id = nextId++;
      const response = waitFor((m) => m.id === id && m.method === undefined);
      deliver(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return response;
    },
    waitFor,
    onInteraction: (next) => void (answer = next),
    deltas: (threadId) => out.filter((m) => m.method === "thread/delta" && (threadId === undefined || m.params.threadId === threadId)).flatMap((m) => m.params.deltas),
    startParams(threadId, script, permissionMode = "full") {
      const file = join(dir, `script-${++scripts}.json`);
      writeFileSync(file, JSON.stringify(script));
      return { threadId, cwd: dir, options: { permissionMode, providerOptions: { piLaunchSpec: { command: process.execPath, args: [piFixtureMain(), "--script", file] } } } };
    },
    async close() {
      await bridge.onClose?.(ctx);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `turn/start` params of a text prompt. */
export const turnParams = (threadId: string, text: string, clientRequestId: string) => ({ threadId, input: [{ type: "text", text }], clientRequestId });

/** True for a thread/delta carrying a turn.boundary. */
export const isBoundary = (m: Wire) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary");
