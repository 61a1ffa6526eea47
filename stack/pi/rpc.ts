/**
 * The wire to one `pi --mode rpc` process (spec 60 "pi"; pi 0.73.1 `docs/rpc.md`): JSON lines
 * both ways, split on LF only (U+2028/2029 may occur inside a line, so no `readline`).
 * Commands carry an `id` (`pi-<n>`, counted per process so a replay sees the same bytes) and
 * are answered by `{type:"response", command, id, success, data|error}`; events carry no id;
 * `extension_ui_request`s are pi's questions to the client.
 */
import type { ChildProcess } from "node:child_process";
import { createBoundedLineSplitter } from "../bridge-kit/line-splitter.js";
import type { PiEvent } from "./translate.js";

/** pi's answer to one command. */
export interface PiResponse {
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
}

/** What the connection hands its owner. */
export interface PiRpcHandlers {
  /** Every event line (`agent_start`, `message_update`, …, and `extension_ui_request`), in wire order. */
  onEvent(event: PiEvent): void;
  /** The process ended (code or signal); every pending command has been rejected before. */
  onExit(code: number | null, signal: string | null, stderrTail: string): void;
  /** A line that is not a JSON object (logged, never fatal). */
  onNoise?(line: string): void;
}

/** One pi process's command side. */
export interface PiRpc {
  /**
   * Sends `{id, type, ...fields}` and resolves with pi's response. `onResponse` runs
   * synchronously when the response line is read, before any later line is handled (so a
   * `prompt`'s acceptance is on the thread before the events it starts).
   * @throws Error (rejection) when the process exits first.
   */
  command(type: string, fields?: Record<string, unknown>, onResponse?: (response: PiResponse) => void): Promise<PiResponse>;
  /** Writes a line that gets no response (`extension_ui_response`). */
  send(message: Record<string, unknown>): void;
  /** Closes pi's stdin (pi exits when it ends); resolves when the process has exited. */
  close(): Promise<void>;
  /** True once the process has exited. */
  readonly exited: boolean;
  readonly child: ChildProcess;
}

interface Pending {
  resolve(response: PiResponse): void;
  reject(error: Error): void;
  onResponse?: (response: PiResponse) => void;
}

const STDERR_TAIL_CHARS = 2000;

/** Wraps a spawned pi process (stdio piped) as a {@link PiRpc}. */
export function connectPiRpc(child: ChildProcess, handlers: PiRpcHandlers): PiRpc {
  const pending = new Map<string, Pending>();
  let counter = 0;
  let exited = false;
  let stderrTail = "";
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      for (const p of pending.values()) p.reject(new Error(`pi exited (code ${String(code)}) before answering`));
      pending.clear();
      handlers.onExit(code, signal, stderrTail);
      resolve();
    });
  });
  const exitSeen: Promise<void> | undefined = exitPromise;

  const onLine = (line: string) => {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      handlers.onNoise?.(line);
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      handlers.onNoise?.(line);
      return;
    }
    const m = message as Record<string, unknown>;
    if (m.type === "response" && typeof m.id === "string" && pending.has(m.id)) {
      const waiter = pending.get(m.id)!;
      pending.delete(m.id);
      const response: PiResponse = { command: String(m.command), success: m.success === true, data: m.data, ...(typeof m.error === "string" ? { error: m.error } : {}) };
      waiter.onResponse?.(response);
      waiter.resolve(response);
      return;
    }
    if (typeof m.type === "string") handlers.onEvent(m as PiEvent);
    else handlers.onNoise?.(line);
  };
  const splitter = createBoundedLineSplitter({ onLine });
  child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
  child.stdout?.on("end", () => splitter.end());
  child.stderr?.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
  });
  child.stdin?.on("error", () => undefined);

  const write = (message: Record<string, unknown>) => {
    if (exited || !child.stdin || child.stdin.destroyed) throw new Error("pi is not running");
    child.stdin.write(`${JSON.stringify(message)}\n`);
  };

  return {
    child,
    get exited() {
      return exited;
    },
    command(type, fields = {}, onResponse) {
      counter += 1;
      const id = `pi-${counter}`;
      return new Promise<PiResponse>((resolve, reject) => {
        pending.set(id, { resolve, reject, ...(onResponse ? { onResponse } : {}) });
        try {
          write({ id, type, ...fields });
        } catch (error) {
          pending.delete(id);
          reject(error as Error);
        }
      });
    },
    send: (message) => write(message),
    close() {
      if (!exited && child.stdin && !child.stdin.destroyed) child.stdin.end();
      return exitSeen ?? Promise.resolve();
    },
  };
}
