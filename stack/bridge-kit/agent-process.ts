/**
 * One agent process of a native bridge (spec 60: one CLI or app-server per session), and
 * everything about it that does not depend on the agent's wire: spawned without a shell under
 * the sanitized inherited environment (spec 30 §6.5) with the launch's own env laid over it,
 * its stdio tee'd into record mode right after the spawn (spec 10 §4), stdout split into lines
 * by the one bounded splitter, the bridge's requests waiting for their answers (rejected when
 * the process exits), a tail of its stderr, its exit, and stdin closed then SIGKILL after a
 * grace. The bridge gives only its framing ({@link AgentFraming}): how a request is written and
 * how an answer is recognised; every other line reaches the bridge in arrival order.
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { JsonRpcId } from "../protocol/json-rpc.js";
import { sanitizeInheritedChildProcessEnv } from "./child-env.js";
import { PendingRequests } from "./json-rpc-endpoint.js";
import { createBoundedLineSplitter } from "./line-splitter.js";
import { recordProviderChildIo } from "./record-process.js";
import { killAfter, type Scheduler } from "./scheduler.js";

/** How to start an agent: the executable, its arguments, env laid over the sanitized one, directory. */
export interface AgentLaunch {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

/** How an agent process ended. */
export interface AgentExit {
  /** Exit code; null after a signal or when the process never ran. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started (the child's `error` event). */
  error?: Error;
  /** The last {@link STDERR_TAIL_CHARS} characters the process wrote to stderr. */
  stderrTail: string;
}

/** The answer to one request, as the framing reads it: the request's value, or its refusal. */
export type AgentAnswer = { value: unknown } | { error: Error };

/**
 * What a bridge says about its agent's wire. `Message` is one parsed stdout line.
 * Every text method returns one line without its terminator.
 */
export interface AgentFraming<Message> {
  /** The id of the bridge's first request (each next one counts up by one). */
  readonly firstId: number;
  /** The wire id of the request numbered `n` (e.g. `n`, `req_<n>`, `pi-<n>`). */
  requestId(n: number): JsonRpcId;
  /** The line that sends request `method` with `params` under `id`. */
  requestLine(id: JsonRpcId, method: string, params: unknown): string;
  /** One non-blank stdout line as a message, or undefined when it is not one of the wire's (noise). */
  parse(line: string): Message | undefined;
  /** The request id `message` answers, when it is an answer; undefined for every other message. */
  answerId(message: Message): JsonRpcId | undefined;
  /** The answer to request `method` as its value or its refusal. */
  settle(answer: Message, method: string): AgentAnswer;
  /** The rejection of request `method` when the process ended before answering it. */
  exitedError(method: string, exit: AgentExit): Error;
  /** The rejection of request `method` sent when the process is not running. */
  notRunningError(method: string): Error;
  /** The rejection of request `method` that got no answer within `ms` (only with a request timeout). */
  timedOutError?(method: string, ms: number): Error;
}

/** Options of {@link startAgentProcess}. */
export interface AgentProcessOptions<Message> {
  launch: AgentLaunch;
  /** Arguments after the launch's own. */
  extraArgs?: readonly string[];
  /** The working directory when the launch names none. */
  cwd?: string;
  /** The bridge's environment; sanitized before the child inherits it. */
  inheritedEnv: Readonly<Record<string, string | undefined>>;
  /** The bb thread the process serves (the recorder's scope), or null for `_process`. */
  threadId: string | null;
  framing: AgentFraming<Message>;
  /** Every message that answers none of the pending requests, in arrival order. */
  onMessage(message: Message): void;
  /** A stdout line the framing does not parse (never fatal). */
  onNoise?(line: string): void;
  /** Each chunk the process writes to stderr, decoded (the tail is kept either way). */
  onStderr?(text: string): void;
  /** The process ended; every pending request was rejected just before. Called once. */
  onExit?(exit: AgentExit): void;
  /** Timers of the request timeouts and the kill grace. */
  scheduler: Scheduler;
  /** Longest wait for one answer (ms); none when absent. */
  requestTimeoutMs?: number;
  /** Diagnostics (stdin errors). */
  log(text: string): void;
  /** Injected for tests; default `child_process.spawn`. */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  /** Injected for tests; default the record tee {@link recordProviderChildIo}. */
  recordChild?: (child: ChildProcess, threadId: string | null) => void;
}

/** A running agent process. */
export interface AgentProcess {
  /**
   * Sends a request and resolves with its answer's value. `onAnswer`, when given, is called with
   * the value synchronously as the answer's line is read, before any later line of the process
   * is handled (a promise continuation runs only after the rest of that read): what the bridge
   * emits for the answer keeps its place among the agent's messages however the pipe split the
   * bytes. Rejects with the framing's refusal, exit, not-running or timeout error.
   */
  request<T = unknown>(method: string, params?: unknown, onAnswer?: (value: T) => void): Promise<T>;
  /** Writes one line that gets no answer; dropped once the process exited or its stdin closed. */
  send(line: string): void;
  /** True once the process has exited (or could not start). */
  readonly exited: boolean;
  /** Resolves once, with how the process ended. */
  readonly exit: Promise<AgentExit>;
  /** Closes stdin (the agent exits when it ends); nothing more is written. */
  end(): void;
  /** Closes stdin and resolves (as {@link AgentProcess.exit}) once the process exited, SIGKILL after `graceMs` on the scheduler. */
  close(graceMs: number): Promise<AgentExit>;
  /** SIGKILL once `ms` pass (a start-up deadline); returns the cancel. */
  killAfter(ms: number): () => void;
}

/** How much of an agent's stderr is kept for its exit (characters). */
export const STDERR_TAIL_CHARS = 2000;

/** The last `lines` lines of an exit's stderr tail, joined by ` | ` (empty when it wrote none). */
export function stderrTailLines(exit: AgentExit, lines = 3): string {
  const tail = exit.stderrTail.trim();
  return tail ? tail.split("\n").slice(-lines).join(" | ") : "";
}

/**
 * Parses a line as a JSON object; undefined when it is not JSON or not a plain object
 * (what every native wire starts from).
 */
export function parseJsonObjectLine(line: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** An agent spawned by {@link spawnAgentInGroup} gets its own process group (POSIX); Windows has none to give. */
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

/**
 * Whether any process of the agent's group still runs (POSIX: signal 0 to the group; on Linux a
 * member that has exited but is not yet reaped does not count: an orphan's zombie waits for a
 * reaper this bridge does not control, which may take a second or more). `false` where there are no
 * groups, for an agent that never got a pid, and once every member has exited.
 */
export function agentGroupAlive(child: ChildProcess): boolean {
  if (!OWN_PROCESS_GROUP || child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
  } catch (error) {
    // EPERM: a member we may not signal is still a member.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return process.platform === "linux" ? groupHasRunningMember(child.pid) : true;
}

/** Linux: whether `/proc` lists a process of group `pgid` in any state but zombie (proc(5) `stat`). */
function groupHasRunningMember(pgid: number): boolean {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone since the listing
    }
    // After the command's closing parenthesis: state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") return true;
  }
  return false;
}

/** An agent launch resolved to exactly what is passed to `spawn` (no shell): the complete, already sanitized env and a directory. */
export interface ResolvedAgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * Spawns an agent (the ACP bridge's, stack/acp/connection/connection.ts) with pipes, no shell and
 * in its own process group, so ending it with {@link signalAgentGroup} ends what it spawned too (an
 * npm wrapper's native binary, a relaunched copy of itself) and no orphan keeps the pipes open.
 * A synchronous spawn failure is returned as its message.
 */
export function spawnAgentInGroup(launch: ResolvedAgentLaunch, spawn: (command: string, args: string[], options: SpawnOptions) => ChildProcess = nodeSpawn): ChildProcess | { failed: string } {
  try {
    return spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
      detached: OWN_PROCESS_GROUP,
    });
  } catch (error) {
    return { failed: (error as Error).message };
  }
}

/**
 * Spawns the agent as `options.launch` says and wires its stdio (see the module doc).
 * @throws what `spawn` throws synchronously (a launch Node refuses); a command that cannot run is an exit with `error`.
 */
export function startAgentProcess<Message>(options: AgentProcessOptions<Message>): AgentProcess {
  const { launch, framing, scheduler } = options;
  const env = { ...sanitizeInheritedChildProcessEnv(options.inheritedEnv), ...(launch.env ?? {}) };
  const args = [...launch.args, ...(options.extraArgs ?? [])];
  const child = (options.spawn ?? nodeSpawn)(launch.command, args, { cwd: launch.cwd ?? options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  (options.recordChild ?? ((c, threadId) => recordProviderChildIo(c, { threadId })))(child, options.threadId);
  const pending = new PendingRequests<Message, AgentExit>({ firstId: framing.firstId, scheduler });
  let exited = false;
  let stderrTail = "";
  let resolveExit: (exit: AgentExit) => void = () => undefined;
  const exit = new Promise<AgentExit>((resolve) => (resolveExit = resolve));

  const finish = (ended: Omit<AgentExit, "stderrTail">) => {
    if (exited) return;
    exited = true;
    const result: AgentExit = { ...ended, stderrTail };
    pending.closeAll(result);
    options.onExit?.(result);
    resolveExit(result);
  };
  const splitter = createBoundedLineSplitter({
    onLine: (line) => {
      if (line.trim() === "") return;
      const message = framing.parse(line);
      if (message === undefined) return options.onNoise?.(line);
      const id = framing.answerId(message);
      if (id !== undefined && pending.answer(id, message)) return;
      options.onMessage(message);
    },
  });
  child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
  child.stdout?.on("end", () => splitter.end());
  child.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
    options.onStderr?.(text);
  });
  child.stdin?.on("error", (error) => options.log(`${launch.command} stdin: ${error.message}`));
  child.on("error", (error) => finish({ code: null, signal: null, error }));
  child.on("exit", (code, signal) => finish({ code, signal }));

  const writable = () => !exited && child.stdin?.writable === true;
  const send = (line: string) => {
    if (writable()) child.stdin!.write(`${line}\n`);
  };
  return {
    request<T>(method: string, params?: unknown, onAnswer?: (value: T) => void): Promise<T> {
      if (!writable()) return Promise.reject(framing.notRunningError(method));
      const id = framing.requestId(pending.nextId());
      const timeoutMs = options.requestTimeoutMs;
      return new Promise<T>((resolve, reject) => {
        pending.wait(
          id,
          {
            answered: (message) => {
              const answer = framing.settle(message, method);
              if ("error" in answer) return reject(answer.error);
              onAnswer?.(answer.value as T);
              resolve(answer.value as T);
            },
            closed: (ended) => reject(framing.exitedError(method, ended)),
            timedOut: () => reject(framing.timedOutError?.(method, timeoutMs ?? 0) ?? framing.notRunningError(method)),
          },
          timeoutMs,
        );
        send(framing.requestLine(id, method, params));
      });
    },
    send,
    get exited() {
      return exited;
    },
    exit,
    end() {
      if (!exited) child.stdin?.end();
    },
    close(graceMs) {
      if (!exited) {
        child.stdin?.end();
        const cancel = killAfter(scheduler, child, graceMs, "SIGKILL");
        void exit.then(cancel);
      }
      return exit;
    },
    killAfter: (ms) => killAfter(scheduler, child, ms, "SIGKILL"),
  };
}
