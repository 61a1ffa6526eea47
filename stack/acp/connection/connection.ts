/**
 * One ACP agent process and its JSON-RPC connection, bridge as client (spec 20 §2.1–2.2, spec 30 §6.3).
 *
 * - Spawned from a resolved launch (command, args, env, cwd) with pipes and no shell.
 * - Its own request id space from 1; agent responses are matched by id; an id nobody waits for
 *   (an agent answering twice) is reported and ignored.
 * - Agent→client requests are answered exactly once, even if the handler throws.
 * - Every raw stdout line passes through this module (the bridge sees all of them), one line per
 *   macrotask, in order.
 * - A bounded stderr tail (40 lines) is kept for error messages.
 * - Exit, spawn failure, a broken stdin pipe (EPIPE) and an oversized stdout line all end the
 *   connection the same way: pending requests reject with {@link AcpAgentExitedError} and `onExit`
 *   fires once.
 *
 * The parts live beside it: the exit facts and stderr tail (agent-exit.ts), the line queue
 * (line-queue.ts), what one agent line means (agent-messages.ts), the errors (errors.ts); the
 * pending-request table is the shared JSON-RPC core (bridge-kit/json-rpc-endpoint.ts).
 */
import type { AcpAgentMethod, AcpAgentMethodParams, AcpAgentNotificationParams } from "./acp-client.js";
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { agentGroupAlive, signalAgentGroup, spawnAgentInGroup, type ResolvedAgentLaunch } from "../../bridge-kit/agent-process.js";
import { PendingRequests } from "../../bridge-kit/json-rpc-endpoint.js";
import { createBoundedLineSplitter } from "../../bridge-kit/line-splitter.js";
import { createRealScheduler, delay, type Scheduler } from "../../bridge-kit/scheduler.js";
import { BRIDGE_JSON_RPC_ERRORS } from "../../protocol/errors.js";
import { jsonRpcNotification, jsonRpcRequest } from "../../protocol/json-rpc.js";
import { agentExitInfo, StderrTail, type AgentExitInfo, type AgentExitReason } from "./agent-exit.js";
import { handleAgentLine, type AgentResponse } from "./agent-messages.js";
import { AcpAgentExitedError, AcpAgentRequestError, AcpAgentTimeoutError } from "./errors.js";
import { createLineQueue } from "./line-queue.js";

export { AGENT_STDERR_TAIL_LINES, type AgentExitInfo, type AgentExitReason } from "./agent-exit.js";
export { responseId } from "./agent-messages.js";
export * from "./errors.js";

/** Default cap on one agent stdout line, in bytes (16 MiB). Named so tests and docs agree. */
export const DEFAULT_MAX_AGENT_LINE_BYTES = 16 * 1024 * 1024;
/** Grace between SIGTERM and SIGKILL when stopping an agent, in ms (spec 30 §5 step 5). */
export const AGENT_KILL_GRACE_MS = 1_000;
/**
 * How often a stop looks whether the agent's process group has emptied after the agent itself
 * exited, in ms. It decides nothing: the group's exit ends the wait, the kill grace bounds it.
 */
export const AGENT_GROUP_EXIT_POLL_MS = 10;

/** A resolved agent launch: exactly what is passed to `spawn` (no shell), the env complete and already sanitized (the kit's `ResolvedAgentLaunch`). */
export type AgentLaunch = ResolvedAgentLaunch;

/** Hooks and limits of {@link connectAcpAgent}. */
export interface AcpAgentConnectionOptions {
  launch: AgentLaunch;
  /** Agent label for messages (`cursor-agent acp`). */
  label: string;
  /** An agent notification (`session/update`, vendor notifications). */
  onNotification(method: string, params: unknown): void;
  /**
   * An agent→client request; resolve with the result or throw {@link AcpClientReplyError}.
   * `answerWritten` settles (never rejects) once the connection wrote the answer to the agent's
   * stdin, or dropped it because the connection had ended.
   */
  onRequest(method: string, params: unknown, answerWritten: Promise<void>): Promise<unknown>;
  /** Fires once when the connection ends, whatever the cause. */
  onExit(exit: AgentExitInfo): void;
  /** Diagnostics for the bridge's stderr: ignored non-JSON lines, duplicate answers. */
  onNote?(text: string): void;
  /** Called right after spawn, before any I/O (record mode tees the child here). */
  onSpawned?(child: ChildProcess): void;
  /** Cap on one stdout line in bytes (default 16 MiB); a longer line ends the connection. */
  maxLineBytes?: number;
  /** Injected for tests; defaults to `child_process.spawn`. */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  /** Request timeouts and the kill grace run on it; default the real scheduler. */
  scheduler?: Scheduler;
}

/** A live (or ended) agent connection. */
export interface AcpAgentConnection {
  /**
   * Sends a request with the next id; rejects on error reply, exit or timeout. Params are typed by
   * the official ACP SDK per method (acp-client.ts); the result is left `unknown` for the caller to
   * read leniently, as agents differ.
   */
  request<M extends AcpAgentMethod>(method: M, params: AcpAgentMethodParams[M], options?: { timeoutMs?: number }): Promise<unknown>;
  /** Sends a notification; dropped after the connection ended. */
  notify<M extends keyof AcpAgentNotificationParams>(method: M, params: AcpAgentNotificationParams[M]): void;
  /**
   * SIGTERM to the agent's process group, then SIGKILL to what is left after
   * {@link AGENT_KILL_GRACE_MS}; resolves once the agent and everything of its group are gone (an
   * agent's own child may still be persisting the session when the agent has exited).
   */
  kill(): Promise<void>;
  /** Resolves with the exit facts once the connection has ended. */
  readonly exited: Promise<AgentExitInfo>;
  /** The exit facts, or `null` while alive. */
  exitInfo(): AgentExitInfo | null;
  /** The last {@link AGENT_STDERR_TAIL_LINES} stderr lines, newline-joined. */
  stderrTail(): string;
  /**
   * Resolves once every stdout line read so far has been handled (lines are handled one per
   * macrotask). A caller about to write something that changes how later lines are read (a
   * `session/prompt`) awaits it first, so lines the agent wrote earlier are read as earlier
   * (spec 30 §6.2: output before the first prompt; spec 40 "pace by causal order").
   */
  handledReceived(): Promise<void>;
  readonly pid: number | undefined;
}

/** The outcome of one request as the caller sees it: the result (undefined as null), or the agent's error. */
function settleRequest(method: string, response: AgentResponse, resolve: (value: unknown) => void, reject: (error: Error) => void): void {
  if (response.error && typeof response.error === "object") {
    const e = response.error as { code?: unknown; message?: unknown; data?: unknown };
    const code = typeof e.code === "number" ? e.code : BRIDGE_JSON_RPC_ERRORS.internalError;
    reject(new AcpAgentRequestError(method, code, typeof e.message === "string" ? e.message : "ACP agent error", e.data));
  } else {
    resolve(response.result === undefined ? null : response.result);
  }
}

/**
 * Spawns the agent and opens the connection (spec 20 §2.1–2.2). Never throws: a spawn failure
 * (`Failed to launch ACP agent "<cmd>": …`) ends the connection and rejects every request.
 */
export function connectAcpAgent(options: AcpAgentConnectionOptions): AcpAgentConnection {
  const spawned = spawnAgentInGroup(options.launch, options.spawn);
  if ("failed" in spawned) {
    // Synchronous spawn failures (bad cwd type, EACCES on some platforms) end the connection at once.
    const info = agentExitInfo({ label: options.label, command: options.launch.command }, { reason: "spawn-error", code: null, signal: null, cause: spawned.failed }, "");
    let resolveExited!: (info: AgentExitInfo) => void;
    const exited = new Promise<AgentExitInfo>((resolve) => (resolveExited = resolve));
    queueMicrotask(() => {
      resolveExited(info);
      options.onExit(info);
    });
    return endedConnection(info, exited);
  }
  return new AgentConnection(spawned, options).connection();
}

/** The state of one live agent connection. */
class AgentConnection {
  private readonly scheduler: Scheduler;
  private readonly pending: PendingRequests<AgentResponse, AgentExitInfo>;
  private readonly stderr = new StderrTail();
  private ended: AgentExitInfo | null = null;
  private killRequested = false;
  private killing: Promise<void> | null = null;
  private resolveExited!: (info: AgentExitInfo) => void;
  readonly exited = new Promise<AgentExitInfo>((resolve) => (this.resolveExited = resolve));
  private readonly lines = createLineQueue((line) => {
    if (!this.ended) handleAgentLine(this.target, line);
  });
  private readonly target;

  constructor(
    private readonly child: ChildProcess,
    private readonly options: AcpAgentConnectionOptions,
  ) {
    this.scheduler = options.scheduler ?? createRealScheduler();
    this.pending = new PendingRequests({ scheduler: this.scheduler });
    this.target = {
      label: options.label,
      pending: this.pending,
      onNotification: options.onNotification,
      onRequest: options.onRequest,
      note: options.onNote ?? (() => {}),
      write: (message: object) => this.write(message),
    };
    options.onSpawned?.(child);
    this.listen();
  }

  private write(message: object): void {
    const { stdin } = this.child;
    if (this.ended || !stdin || stdin.destroyed) return;
    stdin.write(`${JSON.stringify(message)}\n`);
  }

  private signalGroup(signal: NodeJS.Signals): void {
    signalAgentGroup(this.child, signal);
  }

  /** Ends the connection once: every pending request rejects, `onExit` fires. */
  private finish(reason: AgentExitReason, code: number | null, signal: NodeJS.Signals | null, cause?: string): void {
    if (this.ended) return;
    const { label, launch } = this.options;
    const info = agentExitInfo({ label, command: launch.command }, { reason, code, signal, cause }, this.stderr.text());
    this.ended = info;
    this.pending.closeAll(info);
    this.resolveExited(info);
    this.options.onExit(info);
  }

  private listen(): void {
    const { child } = this;
    const maxLineBytes = this.options.maxLineBytes ?? DEFAULT_MAX_AGENT_LINE_BYTES;
    const splitter = createBoundedLineSplitter({
      maxLineBytes,
      onLine: (line) => this.lines.push(line),
      onOverflow: () => {
        this.finish("oversized-line", null, null, String(maxLineBytes));
        this.signalGroup("SIGKILL");
      },
    });
    child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
    child.stdout?.on("end", () => splitter.end());
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => this.stderr.push(text));
    child.stdin?.on("error", (error: NodeJS.ErrnoException) => {
      this.finish("stdin-error", null, null, error.code ?? error.message);
      this.signalGroup("SIGKILL");
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      // `error` after a successful spawn means a failed kill; only a failed spawn ends the connection here.
      if (child.pid === undefined) this.finish("spawn-error", null, null, error.message);
    });
    // An agent that exited by itself: whatever of its group is left (a grandchild holding stdout)
    // goes too, or `close` would wait for it forever. After a requested stop the group already has
    // its SIGTERM and the kill's grace decides when it is stuck: an agent's own child shutting
    // down on that SIGTERM (Claude Code's CLI under claude-code-acp, writing the session's
    // transcript) must not be cut short by its parent's quicker exit (harness/record/README.md).
    child.on("exit", () => {
      if (!this.killRequested) this.signalGroup("SIGKILL");
    });
    child.on("close", (code, signal) => {
      // Lines still queued were written before the exit: handle them first.
      this.lines.whenDrained(() => this.finish(this.killRequested ? "killed" : "exit", code, signal));
    });
  }

  private request(method: string, params: unknown, timeoutMs: number | undefined): Promise<unknown> {
    if (this.ended) return Promise.reject(new AcpAgentExitedError(this.ended));
    const id = this.pending.nextId();
    return new Promise<unknown>((resolve, reject) => {
      this.pending.wait(
        id,
        {
          answered: (response) => settleRequest(method, response, resolve, reject),
          closed: (info) => reject(new AcpAgentExitedError(info)),
          timedOut: () => reject(new AcpAgentTimeoutError(this.options.label, method, timeoutMs!)),
        },
        timeoutMs,
      );
      this.write(jsonRpcRequest(id, method, params));
    });
  }

  private kill(): Promise<void> {
    if (this.killing) return this.killing;
    if (this.ended) return Promise.resolve();
    this.killRequested = true;
    this.signalGroup("SIGTERM");
    this.killing = this.untilGroupGone();
    return this.killing;
  }

  /** Waits for the agent's exit, then for its group to empty; SIGKILL to the group once the grace is over. */
  private async untilGroupGone(): Promise<void> {
    let stuck = false;
    const grace = this.scheduler.schedule(AGENT_KILL_GRACE_MS, () => {
      stuck = true;
      this.signalGroup("SIGKILL");
    });
    await this.exited;
    while (!stuck && agentGroupAlive(this.child)) await delay(this.scheduler, AGENT_GROUP_EXIT_POLL_MS);
    this.scheduler.cancel(grace);
  }

  /** The connection's public face. */
  connection(): AcpAgentConnection {
    return {
      pid: this.child.pid,
      exited: this.exited,
      exitInfo: () => this.ended,
      stderrTail: () => this.stderr.text(),
      handledReceived: () => this.lines.handledReceived(),
      request: (method, params, requestOptions) => this.request(method, params, requestOptions?.timeoutMs),
      notify: (method, params) => this.write(jsonRpcNotification(method, params)),
      kill: () => this.kill(),
    };
  }
}

function endedConnection(info: AgentExitInfo, exited: Promise<AgentExitInfo>): AcpAgentConnection {
  return {
    pid: undefined,
    exited,
    exitInfo: () => info,
    stderrTail: () => "",
    handledReceived: () => Promise.resolve(),
    request: () => Promise.reject(new AcpAgentExitedError(info)),
    notify: () => {},
    kill: () => Promise.resolve(),
  };
}
