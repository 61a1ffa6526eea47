/**
 * Test helper: drives the ACP bridge in-process, as a runtime would, against the fixture agent.
 *
 * Every bridge output line is parsed and kept in order; waits are event-driven (they resolve when
 * the awaited line arrives) with a generous guard timeout that only reports a hang.
 */
import { spawn, type SpawnOptions } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBridgeIo } from "../../stack/bridge-kit/io.js";
import type { BridgeContext } from "../../stack/bridge-kit/define.js";
import { createAcpProviderBridge } from "../../stack/acp/bridge.js";
import type { AcpBridgeOptions } from "../../stack/acp/bridge-runtime.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { fixtureAgentMain } from "./fixture-agent-build.js";
import type { FakeScheduler } from "../helpers/fake-scheduler.js";

/** One parsed bridge→runtime message. */
export type WireMessage = { jsonrpc?: string; id?: string | number; method?: string; params?: any; result?: any; error?: any };

/** True for a `thread/delta` notification carrying a `turn.boundary` delta (a turn settling). */
export const isBoundary = (m: WireMessage): boolean => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary");

/**
 * Guard timeout for waits, in ms: only detects a hang (and names what the bridge wrote), never
 * paces a test; below vitest's 180 s test timeout, far above a healthy wait at load 15+.
 */
export const WAIT_GUARD_MS = 120_000;

/** Loose record type for parsed wire messages and deltas in assertions. */
export type AnyRecord = Record<string, any>;

/** A fixture-agent step that streams one `agent_message_chunk` of `text`. */
export const chunk = (text: string) => ({ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });

/** A launch spec pointing at the fixture agent with `script`; the agent logs what it receives to `log`. */
export function fixtureLaunchSpec(dir: string, script: FixtureScriptInput, name = "agent"): { spec: Record<string, unknown>; log: string } {
  const scriptFile = join(dir, `${name}.script.json`);
  const log = join(dir, `${name}.received.ndjson`);
  writeFileSync(scriptFile, JSON.stringify(script));
  return {
    spec: { displayName: "Fixture", command: process.execPath, args: [fixtureAgentMain(), "--script", scriptFile], env: { ACP_FIXTURE_LOG: log } },
    log,
  };
}

/**
 * A bridge `spawn` option that records every argv the bridge launches into `launches`, then starts
 * the fixture agent without any argv prefix in front of its main script (a `--model` pin or a
 * reasoning flag that node itself would refuse).
 */
export function recordingSpawn(launches: string[][]) {
  return (command: string, args: string[], options: SpawnOptions) => {
    launches.push([...args]);
    const at = args.indexOf(fixtureAgentMain());
    return spawn(command, at > 0 ? args.slice(at) : args, options);
  };
}

/** A fixture script whose `session/new` advertises two models (`m-a` current, `m-b`) for `model/list` tests. */
export const advertisingModels: FixtureScriptInput = {
  sessionResult: {
    models: {
      currentModelId: "m-a",
      availableModels: [
        { modelId: "m-a", name: "Model A" },
        { modelId: "m-b", name: "Model B" },
      ],
    },
  },
};

/** Sends `model/list {providerOptions.acpLaunchSpec: spec, cwd}` to the bridge. */
export const listModelsOf = (b: InProcessBridge, spec: Record<string, unknown>) => b.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: b.dir });

/** Lines the fixture agent received (parsed), in order. */
export function agentReceived(log: string): WireMessage[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as WireMessage);
}

/** Answers a bridge→runtime request (`interaction/request`, `item/tool/call`). */
export type RuntimeRequestHandler = (method: string, params: any) => unknown | Promise<unknown>;

/** An in-process bridge plus a runtime-side client. */
export interface InProcessBridge {
  readonly dir: string;
  readonly out: WireMessage[];
  readonly logs: string[];
  /** Sends a request and resolves with the full response message. */
  request(method: string, params: unknown): Promise<WireMessage>;
  /** Sends a raw line (for hygiene tests). */
  sendLine(line: string): Promise<void>;
  /** Resolves with the first output message (from index `from`) matching `predicate`. */
  waitFor(predicate: (m: WireMessage) => boolean, from?: number): Promise<WireMessage>;
  /** Sets how bridge→runtime requests are answered (default: `{decision:"deny"}`). */
  onRuntimeRequest(handler: RuntimeRequestHandler): void;
  /** Deltas of `thread/delta` notifications for `threadId`, flattened, in order. */
  deltas(threadId: string): any[];
  /** Stops every session (as the bootstrap does at stdin end) and removes `dir`. */
  close(): Promise<void>;
}

/** Creates an in-process ACP bridge with `options` (short timeouts for fault tests). */
export function startInProcessBridge(options: AcpBridgeOptions = {}): InProcessBridge {
  const dir = mkdtempSync(join(tmpdir(), "acp-bridge-test-"));
  const bridge = createAcpProviderBridge({ now: () => 0, ...options });
  const out: WireMessage[] = [];
  const logs: string[] = [];
  const waiters: Array<{ predicate: (m: WireMessage) => boolean; from: number; resolve(m: WireMessage): void }> = [];
  let handler: RuntimeRequestHandler = () => ({ decision: "deny" });
  let nextId = 1000;
  // eslint-disable-next-line prefer-const
  let ctx: BridgeContext;

  const deliver = (line: string): void => {
    const parsed = JSON.parse(line) as unknown;
    void bridge.handleLine(line, ctx, parsed);
  };

  const io = createBridgeIo((line) => {
    const message = JSON.parse(line) as WireMessage;
    out.push(message);
    const index = out.length - 1;
    for (const waiter of [...waiters]) {
      if (index >= waiter.from && waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
    if (message.method && message.id !== undefined) {
      const id = message.id;
      Promise.resolve()
        .then(() => handler(message.method!, message.params))
        .then(
          (result) => deliver(JSON.stringify({ jsonrpc: "2.0", id, result })),
          (error: Error) => deliver(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32000, message: error.message } })),
        );
    }
  });
  ctx = { providerId: "acp-fixture", dataDir: dir, tempDir: dir, io, env: process.env, log: (text) => logs.push(text) };
  void bridge.start?.(ctx);

  const waitFor = (predicate: (m: WireMessage) => boolean, from = 0): Promise<WireMessage> => {
    const found = out.slice(from).find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out waiting for a bridge message (after index ${from}); all: ${JSON.stringify(out.map((m) => [m.id, m.method, m.params?.threadId, m.params?.deltas?.map((d: any) => d.kind).join(",")]))}`,
            ),
          ),
        WAIT_GUARD_MS,
      );
      waiters.push({ predicate, from, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  };

  return {
    dir,
    out,
    logs,
    request(method, params) {
      const id = nextId++;
      const response = waitFor((m) => m.id === id && m.method === undefined);
      deliver(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return response;
    },
    async sendLine(line) {
      await bridge.handleLine(
        line,
        ctx,
        (() => {
          try {
            return JSON.parse(line);
          } catch {
            return undefined;
          }
        })(),
      );
    },
    waitFor,
    onRuntimeRequest(next) {
      handler = next;
    },
    deltas(threadId) {
      return out.filter((m) => m.method === "thread/delta" && m.params?.threadId === threadId).flatMap((m) => m.params.deltas);
    },
    async close() {
      await bridge.onClose?.(ctx);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `act` (a `thread/stop` interrupt, or a close) on a bridge whose scheduler is `clock`: once the
 * bridge waits for the interrupted turn to settle (its `settleMs` timer armed), the wait passes.
 * When the turn settles before the timer is armed or while it is, nothing is advanced.
 */
export async function pastSettleWait<T>(clock: FakeScheduler, settleMs: number, act: () => Promise<T>): Promise<T> {
  const done = act();
  const armed = await Promise.race([clock.whenPending((t) => t.delayMs === settleMs), done.then(() => undefined)]);
  if (armed !== undefined) clock.advance(settleMs);
  return done;
}

/** `thread/start` params for the fixture launch spec. */
export function threadStartParams(threadId: string, spec: Record<string, unknown>, cwd: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    threadId,
    cwd,
    options: { permissionMode: "accept-edits", instructions: "Be brief.", providerOptions: { acpLaunchSpec: spec }, ...extra },
    instructionMode: "append",
  };
}

/** `turn/start` params. */
export function turnStartParams(threadId: string, text: string, clientRequestId: string, options: Record<string, unknown> = {}): Record<string, unknown> {
  return { threadId, input: [{ type: "text", text }], clientRequestId, options };
}
