/**
 * A scripted stand-in for `pi --mode rpc` (pi 0.73.1 `docs/rpc.md`, spec 60 "pi"): it answers
 * `get_state`, `prompt`, `steer`, `follow_up`, `abort` and `extension_ui_response` the way pi
 * does — events in pi's order (`agent_start`, per model call `turn_start` … `turn_end`,
 * `agent_end`), deltas whose `partial` is the message so far, the gate's `confirm` after
 * `tool_execution_start`, the abort answered only after `agent_end`.
 * Timestamps are a counter and UI request ids `ui-<n>`: two runs write the same bytes.
 */
import { randomUUID } from "node:crypto";
import { DENIED_REASON, GATE_TITLE_PREFIX } from "../extension.js";
import type { FixtureCall, FixtureScript, FixtureTool } from "./script.js";

/** Where the agent writes its lines (its stdout). */
export interface FixtureAgentIo {
  write(line: string): void;
}

/** The agent: feed it each stdin line. */
export interface PiFixtureAgent {
  onLine(line: string): void;
}

type Json = Record<string, unknown>;

/** The session id a `--session <file or id>` argument names (a file `<iso>_<id>.jsonl`, or the id itself). */
export function sessionIdOfRef(ref: string): string {
  const base = ref.split("/").pop()!.replace(/\.jsonl$/, "");
  return base.includes("_") ? base.slice(base.lastIndexOf("_") + 1) : base;
}

const words = (text: string): string[] => text.match(/^\s+|\S+\s*/g) ?? [];

/** Creates the agent over `script`, started with `argv` (only `--session` is read); `mintId` makes a fresh session's id (default a random UUID). */
// eslint-disable-next-line max-lines-per-function
export function createPiFixtureAgent(script: FixtureScript, argv: readonly string[], io: FixtureAgentIo, mintId: () => string = randomUUID): PiFixtureAgent {
  const at = argv.indexOf("--session");
  const sessionId = at >= 0 && argv[at + 1] ? sessionIdOfRef(argv[at + 1]!) : (script.sessionId ?? mintId());
  const sessionFile = `/fixture/sessions/1970-01-01T00-00-00-000Z_${sessionId}.jsonl`;
  let clock = 0;
  let uiCounter = 0;
  let streaming = false;
  let aborted = false;
  let messageCount = 0;
  const uiWaiters = new Map<string, (answer: Json) => void>();
  const steers: string[] = [];
  let holdWaiter: (() => void) | undefined;
  let running: Promise<void> | undefined;

  const emit = (message: Json) => io.write(JSON.stringify(message));
  const respond = (id: unknown, command: string, extra: Json = {}) => emit({ ...(id === undefined ? {} : { id }), type: "response", command, success: true, ...extra });
  const tick = () => ++clock;

  const ask = (request: Json): Promise<Json> => {
    const id = `ui-${++uiCounter}`;
    return new Promise((resolve) => {
      uiWaiters.set(id, resolve);
      emit({ type: "extension_ui_request", id, ...request });
    });
  };

  const userMessage = (text: string) => {
    const message = { role: "user", content: [{ type: "text", text }], timestamp: tick() };
    emit({ type: "message_start", message });
    emit({ type: "message_end", message });
    messageCount++;
  };

  const assistant = (content: Json[], extra: Json = {}): Json => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "fixture",
    model: "scripted",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: clock,
    ...extra,
  });

  /** Streams one block (`text` or `thinking`) into `content`, a delta per word. */
  const streamBlock = (content: Json[], kind: "text" | "thinking", text: string) => {
    const index = content.length;
    const block: Json = { type: kind, [kind]: "" };
    content.push(block);
    const update = (event: Json) => emit({ type: "message_update", assistantMessageEvent: { ...event, contentIndex: index, partial: assistant(content) } });
    update({ type: `${kind}_start` });
    for (const w of words(text)) {
      block[kind] = String(block[kind]) + w;
      update({ type: `${kind}_delta`, delta: w });
    }
    update({ type: `${kind}_end`, content: text });
  };

  const runTool = async (tool: FixtureTool, id: string) => {
    emit({ type: "tool_execution_start", toolCallId: id, toolName: tool.name, args: tool.args });
    if (tool.gate) {
      const answer = await ask({ method: "confirm", title: `${GATE_TITLE_PREFIX}${tool.name}`, message: JSON.stringify({ toolCallId: id, toolName: tool.name, input: tool.args }) });
      if (answer.confirmed !== true) {
        emit({ type: "tool_execution_end", toolCallId: id, toolName: tool.name, result: { content: [{ type: "text", text: DENIED_REASON }], details: {} }, isError: true });
        return;
      }
    }
    for (const partial of tool.updates) {
      emit({ type: "tool_execution_update", toolCallId: id, toolName: tool.name, args: tool.args, partialResult: { content: [{ type: "text", text: partial }], details: {} } });
    }
    const result = { content: [{ type: "text", text: tool.result }], ...(tool.details ? { details: tool.details } : {}) };
    emit({ type: "tool_execution_end", toolCallId: id, toolName: tool.name, result, isError: tool.isError });
  };

  /** One model call; returns how it ended. */
  const runCall = async (call: FixtureCall, n: number): Promise<"next" | "end"> => {
    for (const dialog of call.dialogs) {
      if (dialog.method === "notify") emit({ type: "extension_ui_request", id: `ui-${++uiCounter}`, method: "notify", message: dialog.title });
      else await ask({ ...dialog });
    }
    for (let attempt = 1; attempt <= call.retries; attempt++) {
      emit({ type: "auto_retry_start", attempt, maxAttempts: call.retries, delayMs: 0, errorMessage: call.error ?? "429 rate limited" });
    }
    if (call.retries > 0) emit({ type: "auto_retry_end", success: call.error === undefined, attempt: call.retries, ...(call.error ? { finalError: call.error } : {}) });
    tick();
    const content: Json[] = [];
    emit({ type: "message_start", message: assistant([]) });
    if (call.error !== undefined) {
      const message = assistant([], { stopReason: "error", errorMessage: call.error });
      emit({ type: "message_end", message });
      emit({ type: "turn_end", message, toolResults: [] });
      return "end";
    }
    if (call.thinking) streamBlock(content, "thinking", call.thinking);
    if (call.text) streamBlock(content, "text", call.text);
    if (call.hold) {
      await new Promise<void>((resolve) => (holdWaiter = resolve));
      holdWaiter = undefined;
    }
    if (aborted) {
      const message = assistant(content, { stopReason: "aborted", errorMessage: "Request was aborted" });
      emit({ type: "message_end", message });
      emit({ type: "turn_end", message, toolResults: [] });
      return "end";
    }
    const ids = call.tools.map((_t, i) => `call_fixture_${n}_${i + 1}`);
    call.tools.forEach((t, i) => content.push({ type: "toolCall", id: ids[i], name: t.name, arguments: t.args }));
    const message = assistant(content, { stopReason: call.tools.length ? "toolUse" : "stop", usage: { input: call.usage.input, output: call.usage.output, cacheRead: 0, cacheWrite: 0, totalTokens: call.usage.input + call.usage.output } });
    emit({ type: "message_end", message });
    messageCount++;
    for (const [i, tool] of call.tools.entries()) await runTool(tool, ids[i]!);
    emit({ type: "turn_end", message, toolResults: [] });
    return "next";
  };

  const runPrompt = async (text: string) => {
    const calls = script.prompts.find((p) => p.when === undefined || text.startsWith(p.when))?.calls ?? [];
    emit({ type: "agent_start" });
    let input: string | undefined = text;
    for (const [n, call] of calls.entries()) {
      emit({ type: "turn_start" });
      if (input !== undefined) userMessage(input);
      input = undefined;
      if ((await runCall(call, n + 1)) === "end" || aborted) break;
      input = steers.shift();
    }
    emit({ type: "agent_end", messages: [] });
  };

  const commands: Record<string, (m: Json) => void> = {
    get_state: (m) =>
      respond(m.id, "get_state", {
        data: { model: { id: "scripted", provider: "fixture", contextWindow: script.contextWindow }, thinkingLevel: "off", isStreaming: streaming, sessionFile, sessionId, messageCount, pendingMessageCount: steers.length },
      }),
    prompt: (m) => {
      if (script.refusePrompts || streaming) return emit({ id: m.id, type: "response", command: "prompt", success: false, error: streaming ? "Agent is already processing." : "refused by the fixture script" });
      respond(m.id, "prompt");
      streaming = true;
      aborted = false;
      running = runPrompt(String(m.message)).finally(() => {
        streaming = false;
      });
    },
    steer: (m) => {
      respond(m.id, "steer");
      steers.push(String(m.message));
      emit({ type: "queue_update", steering: [...steers], followUp: [] });
      holdWaiter?.();
    },
    follow_up: (m) => respond(m.id, "follow_up"),
    abort: (m) => {
      aborted = true;
      holdWaiter?.();
      for (const [id, resolve] of uiWaiters) {
        uiWaiters.delete(id);
        resolve({ cancelled: true });
      }
      void (running ?? Promise.resolve()).then(() => respond(m.id, "abort"));
    },
    extension_ui_response: (m) => {
      const waiter = uiWaiters.get(String(m.id));
      uiWaiters.delete(String(m.id));
      waiter?.(m);
    },
  };

  return {
    onLine(line) {
      let m: Json;
      try {
        m = JSON.parse(line) as Json;
      } catch {
        return;
      }
      const handle = commands[String(m.type)];
      if (handle) handle(m);
      else emit({ ...(m.id === undefined ? {} : { id: m.id }), type: "response", command: String(m.type), success: false, error: `Unknown command: ${String(m.type)}` });
    },
  };
}
