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
 */
import type { AcpAgentMethod, AcpAgentMethodParams, AcpAgentNotificationParams } from "./acp-client.js";
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { BRIDGE_JSON_RPC_ERRORS } from "../../protocol/errors.js";
import { createRealScheduler, type ScheduledHandle, type Scheduler } from "../../bridge-kit/scheduler.js";
import { createLineSplitter, DEFAULT_MAX_AGENT_LINE_BYTES } from "./line-splitter.js";

/** Lines of agent stderr kept for error messages (spec 20 §2.2). */
export const AGENT_STDERR_TAIL_LINES = 40;
/** Grace between SIGTERM and SIGKILL when stopping an agent, in ms (spec 30 §5 step 5). */
export const AGENT_KILL_GRACE_MS = 1_000;

/** Agents get their own process group (POSIX); Windows has none to give. */
const OWN_PROCESS_GROUP = process.platform !== "win32";

/**
 * Sends `signal` to the agent's whole process group (the agent and everything it spawned that
 * did not leave the group), falling back to the agent alone where there are no groups or the
 * group is already gone.
 */
export function signalAgentGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (OWN_PROCESS_GROUP && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // The group is gone (every member exited); the agent itself may still need reaping.
    }
  }
  try {
    child.kill(signal);
  } catch {
    // Already exited.
  }
}

/** A resolved agent launch: exactly what is passed to `spawn` (no shell). */
export interface AgentLaunch {
  command: string;
  args: string[];
  /** The complete child environment (already sanitized). */
  env: Record<string, string>;
  cwd: string;
}

/** Why the connection ended. */
export type AgentExitReason = "exit" | "spawn-error" | "stdin-error" | "oversized-line" | "killed";

/** Facts about the end of an agent connection. */
export interface AgentExitInfo {
  reason: AgentExitReason;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** One sentence naming the agent and the cause, with the stderr tail when there is one. */
  message: string;
  stderrTail: string;
}

/** An agent replied to one of our requests with a JSON-RPC error. `message` includes `: <details>` from `error.data`. */
export class AcpAgentRequestError extends Error {
  readonly code: number;
  readonly data: unknown;
  readonly method: string;
  /** The agent's own `error.message`, without details. */
  readonly agentMessage: string;
  constructor(method: string, code: number, agentMessage: string, data: unknown) {
    super(agentMessage + describeErrorData(data));
    this.name = "AcpAgentRequestError";
    this.code = code;
    this.data = data;
    this.method = method;
    this.agentMessage = agentMessage;
  }
}

/** The agent ended (or never started) while a request was pending, or a request was made after it ended. */
export class AcpAgentExitedError extends Error {
  readonly exit: AgentExitInfo;
  constructor(exit: AgentExitInfo) {
    super(exit.message);
    this.name = "AcpAgentExitedError";
    this.exit = exit;
  }
}

/** A request to the agent timed out; the message says which and after how long. */
export class AcpAgentTimeoutError extends Error {
  readonly method: string;
  readonly timeoutMs: number;
  constructor(label: string, method: string, timeoutMs: number) {
    super(`ACP agent "${label}" did not answer ${method} within ${timeoutMs}ms`);
    this.name = "AcpAgentTimeoutError";
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** Thrown by an agent→client request handler to reply with a JSON-RPC error instead of a result. */
export class AcpClientReplyError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "AcpClientReplyError";
    this.code = code;
    this.data = data;
  }
}

/**
 * The request id a response names. The bridge's ids are whole numbers; an agent that echoes one
 * as a string (`"3"` for `3`, seen in public ACP threads) still answers that request, so a string
 * holding exactly a whole number's decimal form matches it. Anything else matches nothing.
 */
export function responseId(id: unknown): number | undefined {
  if (typeof id === "number") return id;
  if (typeof id === "string" && /^(0|[1-9][0-9]{0,15})$/.test(id)) return Number(id);
  return undefined;
}

function describeErrorData(data: unknown): string {
  if (data === undefined || data === null) return "";
  if (typeof data === "string") return data ? `: ${data}` : "";
  if (typeof data === "object" && typeof (data as { details?: unknown }).details === "string") {
    // The other keys (claude's `transcriptPath`) say where to look next: kept beside the details.
    const { details, ...rest } = data as { details: string };
    return Object.keys(rest).length > 0 ? `: ${details} ${JSON.stringify(rest)}` : `: ${details}`;
  }
  return `: ${JSON.stringify(data)}`;
}

/** Hooks and limits of {@link connectAcpAgent}. */
export interface AcpAgentConnectionOptions {
  launch: AgentLaunch;
  /** Agent label for messages (`cursor-agent acp`). */
  label: string;
  /** An agent notification (`session/update`, vendor notifications). */
  onNotification(method: string, params: unknown): void;
  /** An agent→client request; resolve with the result or throw {@link AcpClientReplyError}. */
  onRequest(method: string, params: unknown): Promise<unknown>;
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
  /** SIGTERM, then SIGKILL after {@link AGENT_KILL_GRACE_MS}; resolves once the process is gone. */
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

interface PendingRequest {
  method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ScheduledHandle | undefined;
}

/**
 * Spawns the agent and opens the connection (spec 20 §2.1–2.2). Never throws: a spawn failure
 * (`Failed to launch ACP agent "<cmd>": …`) ends the connection and rejects every request.
 */
export function connectAcpAgent(options: AcpAgentConnectionOptions): AcpAgentConnection {
  const { launch, label } = options;
  const note = options.onNote ?? (() => {});
  const scheduler = options.scheduler ?? createRealScheduler();
  const pending = new Map<number, PendingRequest>();
  const stderrLines: string[] = [];
  let stderrPartial = "";
  let nextId = 1;
  let ended: AgentExitInfo | null = null;
  let resolveExited!: (info: AgentExitInfo) => void;
  const exited = new Promise<AgentExitInfo>((resolve) => (resolveExited = resolve));
  let killRequested = false;

  const tail = (): string => [...stderrLines, ...(stderrPartial ? [stderrPartial] : [])].join("\n");

  const spawnFn = options.spawn ?? nodeSpawn;
  let child: ChildProcess;
  try {
    child = spawnFn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
      // Its own process group, so ending the agent ends what it spawned too (an npm wrapper's
      // native binary, a relaunched copy of itself) and no orphan keeps our pipes open.
      detached: OWN_PROCESS_GROUP,
    });
  } catch (error) {
    // Synchronous spawn failures (bad cwd type, EACCES on some platforms) end the connection at once.
    const info: AgentExitInfo = {
      reason: "spawn-error",
      code: null,
      signal: null,
      message: `Failed to launch ACP agent "${launch.command}": ${(error as Error).message}`,
      stderrTail: "",
    };
    ended = info;
    queueMicrotask(() => {
      resolveExited(info);
      options.onExit(info);
    });
    return endedConnection(info, exited);
  }

  const finish = (reason: AgentExitReason, code: number | null, signal: NodeJS.Signals | null, cause?: string): void => {
    if (ended) return;
    const stderrTail = tail();
    let message: string;
    if (reason === "spawn-error") message = `Failed to launch ACP agent "${launch.command}": ${cause ?? "unknown error"}`;
    else if (reason === "oversized-line") message = `ACP agent "${label}" wrote a stdout line over ${cause} bytes; the bridge stopped it`;
    else if (reason === "stdin-error") message = `ACP agent "${label}" closed its stdin (${cause ?? "EPIPE"})`;
    else if (reason === "killed") message = `ACP agent "${label}" was stopped`;
    else message = `ACP agent "${label}" exited unexpectedly (code ${code ?? signal ?? "unknown"})`;
    if (stderrTail && reason !== "killed") message += `: ${stderrTail}`;
    const info: AgentExitInfo = { reason, code, signal, message, stderrTail };
    ended = info;
    for (const [, request] of pending) {
      scheduler.cancel(request.timer);
      request.reject(new AcpAgentExitedError(info));
    }
    pending.clear();
    resolveExited(info);
    options.onExit(info);
  };

  options.onSpawned?.(child);
  const signalGroup = (signal: NodeJS.Signals): void => signalAgentGroup(child, signal);

  const writeLine = (message: object): void => {
    if (ended || !child.stdin || child.stdin.destroyed) return;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  };

  const reply = (id: string | number, body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }): void => {
    writeLine({ jsonrpc: "2.0", id, ...body });
  };

  const handleAgentRequest = (id: string | number, method: string, params: unknown): void => {
    let answered = false;
    const answerOnce = (body: Parameters<typeof reply>[1]): void => {
      if (answered) return;
      answered = true;
      reply(id, body);
    };
    Promise.resolve()
      .then(() => options.onRequest(method, params))
      .then(
        (result) => answerOnce({ result: result === undefined ? null : result }),
        (error: unknown) => {
          if (error instanceof AcpClientReplyError) {
            answerOnce({ error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } });
          } else {
            answerOnce({ error: { code: BRIDGE_JSON_RPC_ERRORS.internalError, message: error instanceof Error ? error.message : String(error) } });
          }
        },
      );
  };

  const handleLine = (line: string): void => {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      note(`ACP agent "${label}" wrote a non-JSON stdout line (ignored): ${line.slice(0, 200)}`);
      return;
    }
    if (!message || typeof message !== "object" || Array.isArray(message)) {
      note(`ACP agent "${label}" wrote a non-object JSON line (ignored)`);
      return;
    }
    const m = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
    const hasId = typeof m.id === "string" || typeof m.id === "number";
    if (typeof m.method === "string") {
      if (hasId) handleAgentRequest(m.id as string | number, m.method, m.params);
      else options.onNotification(m.method, m.params);
      return;
    }
    if (!hasId) {
      note(`ACP agent "${label}" wrote a message with neither method nor id (ignored)`);
      return;
    }
    const id = responseId(m.id);
    const request = id === undefined ? undefined : pending.get(id);
    if (!request || id === undefined) {
      note(`ACP agent "${label}" answered request ${JSON.stringify(m.id)}, which is not pending (answered twice or never sent); ignored`);
      return;
    }
    if (typeof m.id === "string") note(`ACP agent "${label}" answered request ${id} with the string id ${JSON.stringify(m.id)}; matched it to the request`);
    pending.delete(id);
    scheduler.cancel(request.timer);
    if (m.error && typeof m.error === "object") {
      const e = m.error as { code?: unknown; message?: unknown; data?: unknown };
      request.reject(
        new AcpAgentRequestError(request.method, typeof e.code === "number" ? e.code : BRIDGE_JSON_RPC_ERRORS.internalError, typeof e.message === "string" ? e.message : "ACP agent error", e.data),
      );
    } else {
      request.resolve(m.result === undefined ? null : m.result);
    }
  };

  // Lines are handled one per macrotask so the consequences of each (a prompt answer settling its
  // turn) land before the next line: an update written after a prompt answer belongs to no prompt.
  const queue: string[] = [];
  let draining = false;
  let pendingClose: (() => void) | null = null;
  // Lines read and lines handled, counted from spawn; waiters of handledReceived() by target count.
  let readCount = 0;
  let handledCount = 0;
  const handledWaiters: Array<{ target: number; resolve(): void }> = [];
  const wakeHandledWaiters = (): void => {
    for (let i = handledWaiters.length - 1; i >= 0; i -= 1) {
      if (handledWaiters[i]!.target <= handledCount) handledWaiters.splice(i, 1)[0]!.resolve();
    }
  };
  const drain = (): void => {
    const line = queue.shift();
    if (line === undefined) {
      draining = false;
      const close = pendingClose;
      pendingClose = null;
      close?.();
      return;
    }
    if (!ended) handleLine(line);
    handledCount += 1;
    wakeHandledWaiters();
    setImmediate(drain);
  };
  const enqueue = (line: string): void => {
    readCount += 1;
    queue.push(line);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  };

  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_AGENT_LINE_BYTES;
  const splitter = createLineSplitter(
    {
      onLine: enqueue,
      onOversized: () => {
        finish("oversized-line", null, null, String(maxLineBytes));
        signalGroup("SIGKILL");
      },
    },
    maxLineBytes,
  );
  child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
  child.stdout?.on("end", () => splitter.end());
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    const pieces = (stderrPartial + text).split("\n");
    stderrPartial = pieces.pop() ?? "";
    for (const piece of pieces) {
      stderrLines.push(piece.replace(/\r$/, ""));
      if (stderrLines.length > AGENT_STDERR_TAIL_LINES) stderrLines.shift();
    }
  });
  child.stdin?.on("error", (error: NodeJS.ErrnoException) => {
    finish("stdin-error", null, null, error.code ?? error.message);
    signalGroup("SIGKILL");
  });
  child.on("error", (error: NodeJS.ErrnoException) => {
    // `error` after a successful spawn means a failed kill; only a failed spawn ends the connection here.
    if (child.pid === undefined) finish("spawn-error", null, null, error.message);
  });
  // The agent itself is gone: whatever of its group is left (a grandchild holding stdout) goes
  // too, or `close` would wait for it forever.
  child.on("exit", () => signalGroup("SIGKILL"));
  child.on("close", (code, signal) => {
    const close = () => finish(killRequested ? "killed" : "exit", code, signal);
    // Lines still queued were written before the exit: handle them first.
    if (draining) pendingClose = close;
    else close();
  });

  return {
    pid: child.pid,
    exited,
    exitInfo: () => ended,
    stderrTail: tail,
    handledReceived() {
      if (handledCount >= readCount) return Promise.resolve();
      const target = readCount;
      return new Promise<void>((resolve) => handledWaiters.push({ target, resolve }));
    },
    request(method, params, requestOptions) {
      if (ended) return Promise.reject(new AcpAgentExitedError(ended));
      const id = nextId++;
      return new Promise<unknown>((resolve, reject) => {
        const timeoutMs = requestOptions?.timeoutMs;
        const timer =
          timeoutMs === undefined
            ? undefined
            : scheduler.schedule(timeoutMs, () => {
                pending.delete(id);
                reject(new AcpAgentTimeoutError(label, method, timeoutMs));
              });
        pending.set(id, { method, resolve, reject, timer });
        writeLine({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
      });
    },
    notify(method, params) {
      writeLine({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
    },
    kill() {
      if (ended) return Promise.resolve();
      killRequested = true;
      signalGroup("SIGTERM");
      const grace = scheduler.schedule(AGENT_KILL_GRACE_MS, () => {
        if (!ended) signalGroup("SIGKILL");
      });
      return exited.then(() => scheduler.cancel(grace));
    },
  };
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
