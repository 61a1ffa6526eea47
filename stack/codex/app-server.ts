/**
 * One `codex app-server` process: its framing on the bridge-kit agent process (spec 60
 * "Codex": JSON-RPC 2.0 lines without the `"jsonrpc"` field; the bridge's requests and the
 * server's own requests number their ids from 0) and the routing of what it says. Spawning,
 * the record tee, the sanitized environment, pending requests, the stderr tail and the kill
 * grace are the agent process's (`stack/bridge-kit/agent-process.ts`).
 */
import { parseJsonObjectLine, startAgentProcess, stderrTailLines, type AgentExit, type AgentFraming, type AgentProcess } from "../bridge-kit/agent-process.js";
import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { Scheduler } from "../bridge-kit/scheduler.js";
import type { CodexLaunch } from "./launch.js";

/** The app-server exited (or could not start) while a request waited. */
export class CodexExitedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** An error response of the app-server to one of the bridge's requests. */
export class CodexRequestError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`codex ${method} failed (${code}): ${message}`);
    this.name = new.target.name;
  }
}

/** One line of the app-server, parsed. */
export type CodexMessage = Record<string, unknown>;

const isId = (id: unknown): id is number | string => typeof id === "number" || typeof id === "string";

/** What an ended app-server is described as: how it ended and the last three lines of its stderr. */
export function describeCodexExit(exit: AgentExit): string {
  if (exit.error) return `codex app-server could not run: ${exit.error.message}`;
  const tail = stderrTailLines(exit);
  return `codex app-server exited (${exit.signal ?? `code ${String(exit.code)}`})${tail ? `: ${tail}` : ""}`;
}

/** The app-server's framing: `{method, id, params}` requests, answers `{id, result | error}` without a method. */
export const CODEX_FRAMING: AgentFraming<CodexMessage> = {
  firstId: 0,
  requestId: (n) => n,
  requestLine: (id, method, params) => JSON.stringify({ method, id, params }),
  parse: parseJsonObjectLine,
  answerId: (message) => (typeof message.method !== "string" && isId(message.id) ? message.id : undefined),
  settle(answer, method) {
    const error = answer.error as { code?: number; message?: string } | undefined;
    return error ? { error: new CodexRequestError(method, error.code ?? 0, error.message ?? "") } : { value: answer.result };
  },
  exitedError: (_method, exit) => new CodexExitedError(describeCodexExit(exit)),
  notRunningError: () => new CodexExitedError("codex app-server is not running"),
  timedOutError: (method, ms) => new CodexExitedError(`codex ${method} got no answer within ${ms} ms`),
};

/** The bridge's answer to one server→client request: its result, or an error (sent as −32603 with its message). */
export type ServerRequestAnswer = { result: unknown } | { error: unknown };

/** What the owner of an app-server is told. */
export interface AppServerHandlers {
  /** A notification `{method, params}`. */
  onNotification(method: string, params: unknown): void;
  /**
   * A server→client request. `respond` writes the answer at once, the first call only (later
   * ones are ignored); a synchronous throw answers −32603 with its message. Answering in the
   * callback that decides (not a promise continuation) keeps the answer ahead of anything the
   * bridge writes for a runtime line read after the decision (an approval, then `turn/interrupt`).
   */
  onRequest(method: string, params: unknown, respond: (answer: ServerRequestAnswer) => void): void;
  /** The process ended: {@link describeCodexExit}. */
  onExit(description: string): void;
}

/** Options of {@link startAppServer}. */
export interface AppServerOptions {
  launch: CodexLaunch;
  /** The bb thread it serves (the recorder's scope). */
  threadId: string;
  /** The bridge's environment; sanitized before the child inherits it. */
  inheritedEnv: Readonly<Record<string, string | undefined>>;
  scheduler: Scheduler;
  handlers: AppServerHandlers;
  /** Longest wait for one answer (ms). */
  requestTimeoutMs: number;
  /** Diagnostic lines (stderr of the bridge). */
  log(text: string): void;
  /** Injected for tests; default `child_process.spawn`. */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
}

/** Sends a notification to the app-server. */
export function notifyAppServer(server: AgentProcess, method: string, params?: unknown): void {
  server.send(JSON.stringify(params === undefined ? { method } : { method, params }));
}

/** Starts `codex app-server` as `options.launch` says (see the module doc). */
export function startAppServer(options: AppServerOptions): AgentProcess {
  const { handlers } = options;
  const server: AgentProcess = startAgentProcess({
    launch: options.launch,
    inheritedEnv: options.inheritedEnv,
    threadId: options.threadId,
    framing: CODEX_FRAMING,
    scheduler: options.scheduler,
    requestTimeoutMs: options.requestTimeoutMs,
    log: options.log,
    ...(options.spawn ? { spawn: options.spawn } : {}),
    onNoise: (line) => options.log(`codex: not JSON: ${line.slice(0, 200)}`),
    onExit: (exit) => handlers.onExit(describeCodexExit(exit)),
    onMessage: (message) => {
      const { id, method } = message;
      if (typeof method === "string" && isId(id)) {
        let answered = false;
        const respond = (answer: ServerRequestAnswer): void => {
          if (answered) return;
          answered = true;
          if ("result" in answer) return server.send(JSON.stringify({ id, result: answer.result }));
          const { error } = answer;
          server.send(JSON.stringify({ id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }));
        };
        try {
          handlers.onRequest(method, message.params, respond);
        } catch (error) {
          respond({ error });
        }
      } else if (typeof method === "string") handlers.onNotification(method, message.params);
      else if (isId(id)) options.log(`codex: answer to no pending request ${String(id)}`);
    },
  });
  return server;
}
