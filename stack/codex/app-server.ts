/**
 * One `codex app-server` process and its JSON-RPC wire (spec 60 "Codex": JSON-RPC 2.0 lines
 * without the `"jsonrpc"` field; server→client requests number their own ids from 0). Spawned
 * without a shell, its stdio tee'd into the recorder when the bridge records
 * (`recordProviderChildIo`), its environment the sanitized inherited one (spec 30 §6.5) under
 * the launch's own. Requests wait on the injected scheduler; an exit settles every pending
 * request with {@link CodexExitedError}.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { sanitizeInheritedChildProcessEnv } from "../bridge-kit/child-env.js";
import { PendingRequests } from "../bridge-kit/json-rpc-endpoint.js";
import { createBoundedLineSplitter } from "../bridge-kit/line-splitter.js";
import { recordProviderChildIo } from "../bridge-kit/record-process.js";
import { killAfter, type Scheduler } from "../bridge-kit/scheduler.js";
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

/** What the owner of a connection is told. */
export interface AppServerHandlers {
  /** A notification `{method, params}`. */
  onNotification(method: string, params: unknown): void;
  /** A server→client request; its resolved value is the result sent back (a throw answers −32603). */
  onRequest(method: string, params: unknown): Promise<unknown>;
  /** The process ended: exit code or signal, and the tail of its stderr. */
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
  /** Grace between closing stdin and SIGKILL (ms). */
  killGraceMs: number;
  /** Diagnostic lines (stderr of the bridge). */
  log(text: string): void;
}

/** A running app-server. */
export interface AppServer {
  /**
   * Sends a request and resolves with its `result`. `onResult`, when given, is called with the
   * result synchronously as the answer's line is read, before any later line of the app-server
   * is handled (a promise continuation runs only after the rest of that read): what the bridge
   * emits for the answer then keeps its place among Codex's notifications however the pipe split
   * the bytes. @throws CodexRequestError, CodexExitedError
   */
  request<T = unknown>(method: string, params: unknown, onResult?: (result: T) => void): Promise<T>;
  /** Sends a notification. */
  notify(method: string, params?: unknown): void;
  /** True once the process has exited. */
  readonly exited: boolean;
  /** Ends stdin and resolves when the process exited (SIGKILL after the grace). */
  close(): Promise<void>;
}

type Answer = { result?: unknown; error?: { code?: number; message?: string } };

const STDERR_TAIL_CHARS = 2000;

/** Starts `codex app-server` as `options.launch` says (see the module doc). */
export function startAppServer(options: AppServerOptions): AppServer {
  const { launch, handlers, scheduler } = options;
  const env = { ...sanitizeInheritedChildProcessEnv(options.inheritedEnv), ...(launch.env ?? {}) };
  const child: ChildProcess = spawn(launch.command, [...launch.args], { cwd: launch.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  recordProviderChildIo(child, { threadId: options.threadId });
  const pending = new PendingRequests<Answer, Error>({ firstId: 0, scheduler });
  let exited = false;
  let stderrTail = "";
  let exitedResolve: () => void = () => undefined;
  const exitedPromise = new Promise<void>((resolve) => (exitedResolve = resolve));

  const write = (message: object) => {
    if (exited || !child.stdin?.writable) return;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  };
  const onLine = (line: string) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      options.log(`codex: not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (typeof message !== "object" || message === null) return;
    const { id, method } = message;
    const hasId = typeof id === "number" || typeof id === "string";
    if (typeof method === "string" && hasId) {
      handlers.onRequest(method, message.params).then(
        (result) => write({ id, result }),
        (error: unknown) => write({ id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }),
      );
    } else if (typeof method === "string") handlers.onNotification(method, message.params);
    else if (hasId && !pending.answer(id, message as Answer)) options.log(`codex: answer to no pending request ${String(id)}`);
  };
  const splitter = createBoundedLineSplitter({ onLine });
  child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
  child.stdout?.on("end", () => splitter.end());
  child.stderr?.on("data", (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS)));
  child.stdin?.on("error", () => undefined);
  const finish = (description: string) => {
    if (exited) return;
    exited = true;
    pending.closeAll(new CodexExitedError(description));
    handlers.onExit(description);
    exitedResolve();
  };
  child.on("error", (error) => finish(`codex app-server could not run: ${error.message}`));
  child.on("exit", (code, signal) => {
    const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
    finish(`codex app-server exited (${signal ?? `code ${String(code)}`})${tail ? `: ${tail}` : ""}`);
  });

  return {
    request<T>(method: string, params: unknown, onResult?: (result: T) => void): Promise<T> {
      if (exited) return Promise.reject(new CodexExitedError("codex app-server is not running"));
      const id = pending.nextId();
      return new Promise<T>((resolve, reject) => {
        pending.wait(
          id,
          {
            answered: (answer) => {
              if (answer.error) return reject(new CodexRequestError(method, answer.error.code ?? 0, answer.error.message ?? ""));
              onResult?.(answer.result as T);
              resolve(answer.result as T);
            },
            closed: reject,
            timedOut: () => reject(new CodexExitedError(`codex ${method} got no answer within ${options.requestTimeoutMs} ms`)),
          },
          options.requestTimeoutMs,
        );
        write({ method, id, params });
      });
    },
    notify(method, params) {
      write(params === undefined ? { method } : { method, params });
    },
    get exited() {
      return exited;
    },
    close() {
      if (!exited) {
        child.stdin?.end();
        const cancel = killAfter(scheduler, child, options.killGraceMs, "SIGKILL");
        void exitedPromise.then(cancel);
      }
      return exitedPromise;
    },
  };
}
