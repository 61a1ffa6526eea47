/**
 * The wire to one `pi --mode rpc` process (spec 60 "pi"; pi 0.73.1 `docs/rpc.md`): JSON lines
 * both ways, split on LF only (U+2028/2029 may occur inside a line, so no `readline`).
 * Commands carry an `id` (`pi-<n>`, counted per process so a replay sees the same bytes) and
 * are answered by `{type:"response", command, id, success, data|error}`; events carry no id;
 * `extension_ui_request`s are pi's questions to the client. This module is pi's framing on
 * bridge-kit's agent process, which spawns, tees, splits, matches answers and ends the process.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { parseJsonObjectLine, startAgentProcess, type AgentExit, type AgentFraming, type AgentLaunch } from "../bridge-kit/agent-process.js";
import type { BridgeContext } from "../bridge-kit/define.js";
import type { Scheduler } from "../bridge-kit/scheduler.js";
import type { PiEvent } from "./translate.js";

/** pi's answer to one command. */
export interface PiResponse {
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
}

/** What a pi process needs from its bridge process. */
export interface PiProcessDeps {
  ctx: BridgeContext;
  scheduler: Scheduler;
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  /** Tees a pi process into the recording: a thread's, or `null` for the `_process` scope (model/list). */
  recordChild?: (child: ChildProcess, threadId: string | null) => void;
  /** How long pi may take to answer `get_state` at start-up (ms; spec 60 measured 7–14 s on busy cores). */
  startTimeoutMs: number;
  /** How long pi may take to exit after its stdin closed before it is killed (ms). */
  exitGraceMs: number;
}

/** What the connection hands its owner. */
export interface PiRpcHandlers {
  /** Every event line (`agent_start`, `message_update`, …, and `extension_ui_request`), in wire order. */
  onEvent(event: PiEvent): void;
  /** The process ended; every pending command has been rejected before. */
  onExit(exit: AgentExit): void;
  /** A line that is not a JSON object with a `type` (logged, never fatal). */
  onNoise(line: string): void;
}

/** One pi process's command side. */
export interface PiRpc {
  /**
   * Sends `{id, type, ...fields}` and resolves with pi's response. `onResponse` runs
   * synchronously when the response line is read, before any later line is handled (so a
   * `prompt`'s acceptance is on the thread before the events it starts).
   * @throws Error (rejection) when the process is not running or exits first.
   */
  command(type: string, fields?: Record<string, unknown>, onResponse?: (response: PiResponse) => void): Promise<PiResponse>;
  /** Writes a line that gets no response (`extension_ui_response`). */
  send(message: Record<string, unknown>): void;
  /** Closes pi's stdin (pi exits when it ends); resolves when the process has exited, SIGKILL after the exit grace. */
  close(): Promise<void>;
  /** SIGKILL once `ms` pass (the start-up deadline); returns the cancel. */
  killAfter(ms: number): () => void;
  /** True once the process has exited. */
  readonly exited: boolean;
}

/** pi's framing: commands `{id:"pi-<n>", type, …fields}`, responses `{type:"response", id, …}`, events with a string `type`. */
export const PI_FRAMING: AgentFraming<PiEvent> = {
  firstId: 1,
  requestId: (n) => `pi-${n}`,
  requestLine: (id, type, fields) => JSON.stringify({ id, type, ...(fields as Record<string, unknown> | undefined) }),
  parse(line) {
    const message = parseJsonObjectLine(line);
    return message && typeof message.type === "string" ? (message as PiEvent) : undefined;
  },
  answerId: (message) => (message.type === "response" && typeof message.id === "string" ? message.id : undefined),
  settle: (m) => ({ value: { command: String(m.command), success: m.success === true, data: m.data, ...(typeof m.error === "string" ? { error: m.error } : {}) } satisfies PiResponse }),
  exitedError: (_type, exit) => new Error(`pi exited (code ${String(exit.code)}) before answering`),
  notRunningError: () => new Error("pi is not running"),
};

/**
 * Starts pi as `launch` says in `cwd` and wraps it as a {@link PiRpc}; its lines are recorded in
 * the scope of `threadId` (`null`: `_process`).
 * @throws what spawn throws synchronously (a launch Node refuses)
 */
export function startPiRpc(deps: PiProcessDeps, launch: AgentLaunch, cwd: string, threadId: string | null, handlers: PiRpcHandlers): PiRpc {
  const agent = startAgentProcess<PiEvent>({
    launch,
    cwd,
    inheritedEnv: deps.ctx.env,
    threadId,
    framing: PI_FRAMING,
    scheduler: deps.scheduler,
    log: (text) => deps.ctx.log(text),
    onMessage: handlers.onEvent,
    onNoise: handlers.onNoise,
    onExit: handlers.onExit,
    ...(deps.spawn ? { spawn: deps.spawn } : {}),
    ...(deps.recordChild ? { recordChild: deps.recordChild } : {}),
  });
  return {
    command: (type, fields = {}, onResponse) => agent.request<PiResponse>(type, fields, onResponse),
    send: (message) => agent.send(JSON.stringify(message)),
    close: async () => {
      await agent.close(deps.exitGraceMs);
    },
    killAfter: (ms) => agent.killAfter(ms),
    get exited() {
      return agent.exited;
    },
  };
}
