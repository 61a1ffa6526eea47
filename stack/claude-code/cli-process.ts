/**
 * One Claude Code CLI process per session (spec 60 launch table): spawned with the stream-json
 * flags, its stdio teed into record mode, stdout split into messages, and the bridge's control
 * requests (`initialize`, `set_permission_mode`, `interrupt`) matched to their `control_response`
 * by request id. The CLI's own control requests (`can_use_tool`) and every other message go to
 * `onMessage` in arrival order.
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { createBoundedLineSplitter } from "../bridge-kit/line-splitter.js";
import { isRecord } from "../protocol/json-value.js";
import { controlRequestLine, parseStreamJsonLine, type StreamJsonMessage } from "./wire.js";

/** How to start the CLI: the executable and its own leading arguments, env and directory (the launch spec). */
export interface ClaudeCodeLaunch {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

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
   * Ends stdin: the CLI exits once its turn is over. Not awaited by the bridge: a replay child
   * standing in for the CLI lives until its replay ends, and the next process of the session
   * (`--resume`) does not need this one gone (the session file is written at each turn's end).
   */
  close(): void;
  /** Sends SIGTERM (a CLI that does not exit after its stdin closed). */
  kill(): void;
  /** Resolves with the exit code (null after a signal) once the process has exited. */
  readonly exited: Promise<number | null>;
}

/** What {@link startCliProcess} needs. */
export interface CliProcessOptions {
  launch: ClaudeCodeLaunch;
  /** Arguments after the launch's own (the stream-json flags, `--session-id`/`--resume`, `--model`). */
  extraArgs: readonly string[];
  /** The session's working directory (used when the launch names none). */
  cwd: string;
  /** The environment (already sanitized) the launch's own env is laid over. */
  env: Readonly<Record<string, string>>;
  /** Every message that is not the answer to one of the bridge's control requests. */
  onMessage(message: StreamJsonMessage): void;
  /** Tees the child into record mode right after spawn (bridge-kit `recordProviderChildIo`). */
  recordChild(child: ChildProcess): void;
  /** Diagnostics (stderr lines of the CLI, unparseable stdout). */
  log(text: string): void;
  /** Injected for tests; default `child_process.spawn`. */
  spawn?: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
}

interface Pending {
  subtype: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Settles the pending control request a `control_response` answers; false when it answers none. */
function settleControlResponse(pending: Map<string, Pending>, message: StreamJsonMessage): boolean {
  const response = isRecord(message.response) ? message.response : undefined;
  const id = typeof response?.request_id === "string" ? response.request_id : undefined;
  const waiting = id !== undefined ? pending.get(id) : undefined;
  if (!response || id === undefined || !waiting) return false;
  pending.delete(id);
  if (response.subtype === "success") waiting.resolve(response.response);
  else waiting.reject(new ControlRequestError(waiting.subtype, String(response.error ?? "error"), typeof response.error_code === "string" ? response.error_code : undefined));
  return true;
}

/**
 * Spawns the CLI and wires its stdio (see the module doc). Request ids are `req_<n>`, counted
 * per process as the Agent SDK does.
 */
export function startCliProcess(options: CliProcessOptions): CliProcess {
  const { launch } = options;
  const child = (options.spawn ?? nodeSpawn)(launch.command, [...launch.args, ...options.extraArgs], {
    cwd: launch.cwd ?? options.cwd,
    env: { ...options.env, ...(launch.env ?? {}) },
    stdio: ["pipe", "pipe", "pipe"],
  });
  options.recordChild(child);
  const pending = new Map<string, Pending>();
  let nextId = 0;
  let exitedWith: { code: number | null } | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      exitedWith = { code };
      for (const waiting of pending.values()) waiting.reject(new Error(`Claude Code exited (code ${String(code)}) before it answered ${waiting.subtype}`));
      pending.clear();
      resolve(code);
    });
    child.once("error", (error) => {
      options.log(`Claude Code could not start: ${error.message}`);
      if (!exitedWith) child.emit("exit", null);
    });
  });
  const splitter = createBoundedLineSplitter({
    onLine: (line) => {
      if (line.trim() === "") return;
      const message = parseStreamJsonLine(line);
      if (!message) return options.log(`Claude Code wrote a line that is not stream-json: ${line.slice(0, 200)}`);
      if (message.type === "control_response" && settleControlResponse(pending, message)) return;
      options.onMessage(message);
    },
  });
  child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
  child.stdout?.on("end", () => splitter.end());
  child.stderr?.on("data", (chunk: Buffer) => options.log(`claude: ${chunk.toString("utf8").trimEnd()}`));
  child.stdin?.on("error", (error) => options.log(`Claude Code stdin: ${error.message}`));

  const send = (line: string) => {
    if (!exitedWith && child.stdin?.writable) child.stdin.write(`${line}\n`);
  };
  return {
    send,
    controlRequest(subtype, fields = {}) {
      if (exitedWith) return Promise.reject(new Error(`Claude Code has exited; cannot send ${subtype}`));
      nextId += 1;
      const id = `req_${nextId}`;
      return new Promise((resolve, reject) => {
        pending.set(id, { subtype, resolve, reject });
        send(controlRequestLine(id, subtype, fields));
      });
    },
    close() {
      if (!exitedWith) child.stdin?.end();
    },
    kill() {
      if (!exitedWith) child.kill("SIGTERM");
    },
    exited,
  };
}
