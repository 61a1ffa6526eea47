/**
 * One Claude Code CLI process per session (spec 60 launch table): the stream-json framing on
 * bridge-kit's agent process, which spawns it, tees it into record mode and splits its stdout.
 * The bridge's control requests (`initialize`, `set_permission_mode`, `interrupt`) are matched
 * to their `control_response` by request id (`req_<n>`, counted per process as the Agent SDK
 * does); the CLI's own control requests (`can_use_tool`) and every other message go to
 * `onMessage` in arrival order.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { startAgentProcess, type AgentExit, type AgentFraming, type AgentLaunch } from "../bridge-kit/agent-process.js";
import type { Scheduler } from "../bridge-kit/scheduler.js";
import { isRecord } from "../protocol/json-value.js";
import { controlRequestLine, parseStreamJsonLine, type StreamJsonMessage } from "./wire.js";

/** How to start the CLI: the executable and its own leading arguments, env and directory (the launch spec). */
export type ClaudeCodeLaunch = AgentLaunch;

/** A control request the CLI refused (`control_response` subtype `error`). */
export class ControlRequestError extends Error {
  constructor(
    readonly subtype: string,
    message: string,
    readonly errorCode: string | undefined,
  ) {
    super(`Claude Code refused ${subtype}: ${message}`);
    this.name = new.target.name;
  }
}

/** A running CLI. */
export interface CliProcess {
  /** Writes one line to the CLI's stdin. */
  send(line: string): void;
  /** Sends a control request and resolves with its `response` (rejects with {@link ControlRequestError}, or when the CLI exits first). */
  controlRequest(subtype: string, fields?: Readonly<Record<string, unknown>>): Promise<unknown>;
  /**
   * Ends stdin: the CLI exits once its turn is over. Not awaited and never followed by a kill:
   * a replay child standing in for the CLI lives until its replay ends, and the next process of
   * the session (`--resume`) does not need this one gone (the session file is written at each
   * turn's end).
   */
  close(): void;
  /** Resolves once the process has exited (or could not start). */
  readonly exit: Promise<AgentExit>;
}

/** What {@link startCliProcess} needs. */
export interface CliProcessOptions {
  launch: ClaudeCodeLaunch;
  /** Arguments after the launch's own (the stream-json flags, `--session-id`/`--resume`, `--model`). */
  extraArgs: readonly string[];
  /** The session's working directory (used when the launch names none). */
  cwd: string;
  /** The bridge's environment; sanitized before the CLI inherits it, the launch's own env laid over. */
  inheritedEnv: Readonly<Record<string, string | undefined>>;
  /** The bb thread the CLI serves (the recorder's scope). */
  threadId: string;
  /** The bridge's timers (the agent process asks for one; the CLI has no request timeout and no kill grace). */
  scheduler: Scheduler;
  /** Every message that is not the answer to one of the bridge's control requests. */
  onMessage(message: StreamJsonMessage): void;
  /** Diagnostics (stderr of the CLI, unparseable stdout). */
  log(text: string): void;
  /** Injected for tests; default `child_process.spawn`. */
  spawn?: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
  /** Injected for tests; default the bridge-kit record tee. */
  recordChild?: (child: ChildProcess, threadId: string | null) => void;
}

/** The `control_response` a message is, when it is one: its `response` object. */
function controlResponseOf(message: StreamJsonMessage): Record<string, unknown> | undefined {
  return message.type === "control_response" && isRecord(message.response) ? message.response : undefined;
}

/** The stream-json framing of the bridge's control requests. */
export const CLAUDE_CODE_FRAMING: AgentFraming<StreamJsonMessage> = {
  firstId: 1,
  requestId: (n) => `req_${n}`,
  requestLine: (id, subtype, fields) => controlRequestLine(String(id), subtype, (fields ?? {}) as Readonly<Record<string, unknown>>),
  parse: parseStreamJsonLine,
  answerId(message) {
    const id = controlResponseOf(message)?.request_id;
    return typeof id === "string" ? id : undefined;
  },
  settle(message, subtype) {
    const response = controlResponseOf(message)!;
    if (response.subtype === "success") return { value: response.response };
    return { error: new ControlRequestError(subtype, String(response.error ?? "error"), typeof response.error_code === "string" ? response.error_code : undefined) };
  },
  exitedError: (subtype, exit) => new Error(`Claude Code exited (code ${String(exit.code)}) before it answered ${subtype}`),
  notRunningError: (subtype) => new Error(`Claude Code has exited; cannot send ${subtype}`),
};

/** Spawns the CLI and wires its stdio (see the module doc). */
export function startCliProcess(options: CliProcessOptions): CliProcess {
  const agent = startAgentProcess<StreamJsonMessage>({
    launch: options.launch,
    extraArgs: options.extraArgs,
    cwd: options.cwd,
    inheritedEnv: options.inheritedEnv,
    threadId: options.threadId,
    framing: CLAUDE_CODE_FRAMING,
    scheduler: options.scheduler,
    log: options.log,
    onMessage: options.onMessage,
    onNoise: (line) => options.log(`Claude Code wrote a line that is not stream-json: ${line.slice(0, 200)}`),
    onStderr: (text) => options.log(`claude: ${text.trimEnd()}`),
    onExit: (exit) => {
      if (exit.error) options.log(`Claude Code could not start: ${exit.error.message}`);
    },
    ...(options.spawn ? { spawn: options.spawn } : {}),
    ...(options.recordChild ? { recordChild: options.recordChild } : {}),
  });
  return {
    send: (line) => agent.send(line),
    controlRequest: (subtype, fields = {}) => agent.request(subtype, fields),
    close: () => agent.end(),
    exit: agent.exit,
  };
}
