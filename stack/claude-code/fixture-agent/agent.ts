/**
 * The fixture CLI's behaviour for one process: Claude Code's stream-json and control protocol
 * (spec 60) played from a script. Handles `initialize`, `set_permission_mode` and `interrupt`;
 * answers each user line with the first matching prompt's steps; asks `can_use_tool` for tool
 * steps marked `ask` unless the mode is `bypassPermissions`; a user line that arrives during a
 * turn is taken in at the next tool result, as the real CLI does. I/O is injected.
 */
import { initLine, resultLine } from "./events.js";
import type { FixtureScript } from "./script.js";
import { runFixtureStep, type FixtureState } from "./steps.js";

/** Where the fixture writes and how it ends. */
export interface FixtureIo {
  write(line: string): void;
  exit(code: number): void;
}

/** What one process was started with. */
export interface FixtureLaunch {
  sessionId: string;
  cwd: string;
}

/** The fixture of one process. */
export interface FixtureClaude {
  onLine(line: string): void;
  /** Stdin closed: exits once the running turn ends (code 1 when the last turn failed, as the CLI does). */
  onEnd(): void;
}

type Json = Record<string, unknown>;

/** Creates the fixture of one process. */
export function createFixtureClaude(script: FixtureScript, launch: FixtureLaunch, io: FixtureIo): FixtureClaude {
  const send = (value: object) => io.write(JSON.stringify(value));
  const state: FixtureState = { ctx: { sessionId: launch.sessionId }, send, mode: "default", messages: 0, permissions: 0, interrupted: undefined, absorbed: [], answers: new Map() };
  const { ctx } = state;
  let running: Promise<void> | undefined;
  let lastFailed = false;
  let stdinClosed = false;
  const queue: string[] = [];

  const controlSuccess = (requestId: unknown, response: object = {}) => send({ type: "control_response", response: { subtype: "success", request_id: requestId, response } });

  const runTurn = async (text: string) => {
    send(initLine(ctx, launch.cwd, state.mode));
    const prompt = script.prompts.find((candidate) => candidate.when === undefined || text.includes(candidate.when));
    let end: "interrupted" | "apiError" | undefined;
    for (const step of prompt?.steps ?? []) {
      end = await runFixtureStep(state, step);
      if (end) break;
    }
    state.interrupted = undefined;
    lastFailed = end !== undefined;
    if (end === "interrupted") send(resultLine(ctx, { isError: true, subtype: "error_during_execution", terminalReason: "aborted_streaming" }));
    if (end === undefined) send(resultLine(ctx, { isError: false, subtype: "success", result: "", terminalReason: "completed" }));
  };

  const drain = () => {
    if (running) return;
    const next = queue.shift();
    if (next === undefined) {
      if (stdinClosed) io.exit(lastFailed ? 1 : 0);
      return;
    }
    running = runTurn(next).finally(() => {
      running = undefined;
      drain();
    });
  };

  const onControlRequest = (message: Json) => {
    const request = (message.request ?? {}) as Json;
    if (request.subtype === "initialize") return controlSuccess(message.request_id, { commands: [], models: [], pid: 0, claude_code_version: "fixture" });
    if (request.subtype === "set_permission_mode") {
      state.mode = String(request.mode);
      return controlSuccess(message.request_id, { mode: state.mode });
    }
    if (request.subtype === "interrupt") {
      controlSuccess(message.request_id, { still_queued: [] });
      state.interrupted?.();
      return;
    }
    send({ type: "control_response", response: { subtype: "error", request_id: message.request_id, error: `unsupported ${String(request.subtype)}` } });
  };

  return {
    onLine(line) {
      let message: Json;
      try {
        message = JSON.parse(line) as Json;
      } catch {
        return;
      }
      if (message.type === "control_request") return onControlRequest(message);
      if (message.type === "control_response") {
        const response = (message.response ?? {}) as Json;
        const resolve = state.answers.get(String(response.request_id));
        state.answers.delete(String(response.request_id));
        resolve?.((response.response ?? {}) as Json);
        return;
      }
      if (message.type !== "user") return;
      const content = ((message.message as Json | undefined)?.content ?? []) as Json[];
      const text = content.map((block) => (typeof block.text === "string" ? block.text : "")).join("\n");
      if (running) state.absorbed.push(text);
      else queue.push(text);
      drain();
    },
    onEnd() {
      stdinClosed = true;
      drain();
    },
  };
}
