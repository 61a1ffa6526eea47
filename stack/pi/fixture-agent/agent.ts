/**
 * A scripted stand-in for `pi --mode rpc` (pi 0.73.1 `docs/rpc.md`, spec 60 "pi"): it answers
 * `get_state`, `get_available_models`, `set_model`, `prompt`, `steer`, `follow_up`, `abort` and
 * `extension_ui_response` the way pi does — events in pi's order (`agent_start`, per model call `turn_start` … `turn_end`,
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
  const base = ref
    .split("/")
    .pop()!
    .replace(/\.jsonl$/, "");
  return base.includes("_") ? base.slice(base.lastIndexOf("_") + 1) : base;
}

const words = (text: string): string[] => text.match(/^\s+|\S+\s*/g) ?? [];

/** The agent's mutable run state (one per agent, never module-level). */
interface AgentState {
  clock: number;
  uiCounter: number;
  streaming: boolean;
  aborted: boolean;
  messageCount: number;
  readonly uiWaiters: Map<string, (answer: Json) => void>;
  readonly steers: string[];
  holdWaiter: (() => void) | undefined;
  running: Promise<void> | undefined;
  /** Index into the script's models: the one `set_model` chose (the first at start). */
  model: number;
}

/** How the agent writes pi's lines: events, responses, UI requests, messages in pi's shapes. */
interface Wire {
  state: AgentState;
  emit(message: Json): void;
  respond(id: unknown, command: string, extra?: Json): void;
  tick(): number;
  ask(request: Json): Promise<Json>;
  userMessage(text: string): void;
  assistant(content: Json[], extra?: Json): Json;
  /** Streams one block (`text` or `thinking`) into `content`, a delta per word. */
  streamBlock(content: Json[], kind: "text" | "thinking", text: string): void;
}

/** The agent's writer over `io`, sharing `state` (its clock stamps every message). */
function createWire(io: FixtureAgentIo, state: AgentState): Wire {
  const emit = (message: Json) => io.write(JSON.stringify(message));
  const assistant = (content: Json[], extra: Json = {}): Json => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "fixture",
    model: "scripted",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: state.clock,
    ...extra,
  });
  const tick = () => ++state.clock;
  return {
    state,
    emit,
    assistant,
    tick,
    respond: (id, command, extra = {}) => emit({ ...(id === undefined ? {} : { id }), type: "response", command, success: true, ...extra }),
    ask: (request) => {
      const id = `ui-${++state.uiCounter}`;
      return new Promise((resolve) => {
        state.uiWaiters.set(id, resolve);
        emit({ type: "extension_ui_request", id, ...request });
      });
    },
    userMessage: (text) => {
      const message = { role: "user", content: [{ type: "text", text }], timestamp: tick() };
      emit({ type: "message_start", message });
      emit({ type: "message_end", message });
      state.messageCount++;
    },
    streamBlock: (content, kind, text) => {
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
    },
  };
}

/** One tool execution: start, the gate's confirm when scripted, updates, end. */
async function runTool(wire: Wire, tool: FixtureTool, id: string): Promise<void> {
  const { emit } = wire;
  emit({ type: "tool_execution_start", toolCallId: id, toolName: tool.name, args: tool.args });
  if (tool.gate) {
    const answer = await wire.ask({ method: "confirm", title: `${GATE_TITLE_PREFIX}${tool.name}`, message: JSON.stringify({ toolCallId: id, toolName: tool.name, input: tool.args }) });
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
}

/** The dialogs and retries a model call opens with. */
async function callPreamble(wire: Wire, call: FixtureCall): Promise<void> {
  const { emit, state } = wire;
  for (const dialog of call.dialogs) {
    if (dialog.method === "notify") emit({ type: "extension_ui_request", id: `ui-${++state.uiCounter}`, method: "notify", message: dialog.title });
    else await wire.ask({ ...dialog });
  }
  for (let attempt = 1; attempt <= call.retries; attempt++) {
    emit({ type: "auto_retry_start", attempt, maxAttempts: call.retries, delayMs: 0, errorMessage: call.error ?? "429 rate limited" });
  }
  if (call.retries > 0) emit({ type: "auto_retry_end", success: call.error === undefined, attempt: call.retries, ...(call.error ? { finalError: call.error } : {}) });
}

/** Ends the assistant message and the pi turn with `extra` (an error or an abort). */
function endCall(wire: Wire, content: Json[], extra: Json): "end" {
  const message = wire.assistant(content, extra);
  wire.emit({ type: "message_end", message });
  wire.emit({ type: "turn_end", message, toolResults: [] });
  return "end";
}

/** One model call; returns how it ended. */
async function runCall(wire: Wire, call: FixtureCall, n: number): Promise<"next" | "end"> {
  const { emit, state } = wire;
  await callPreamble(wire, call);
  wire.tick();
  const content: Json[] = [];
  emit({ type: "message_start", message: wire.assistant([]) });
  if (call.error !== undefined) return endCall(wire, [], { stopReason: "error", errorMessage: call.error });
  if (call.thinking) wire.streamBlock(content, "thinking", call.thinking);
  if (call.text) wire.streamBlock(content, "text", call.text);
  if (call.hold) {
    await new Promise<void>((resolve) => (state.holdWaiter = resolve));
    state.holdWaiter = undefined;
  }
  if (state.aborted) return endCall(wire, content, { stopReason: "aborted", errorMessage: "Request was aborted" });
  const ids = call.tools.map((_t, i) => `call_fixture_${n}_${i + 1}`);
  call.tools.forEach((t, i) => content.push({ type: "toolCall", id: ids[i], name: t.name, arguments: t.args }));
  const message = wire.assistant(content, {
    stopReason: call.tools.length ? "toolUse" : "stop",
    usage: { input: call.usage.input, output: call.usage.output, cacheRead: 0, cacheWrite: 0, totalTokens: call.usage.input + call.usage.output },
  });
  emit({ type: "message_end", message });
  state.messageCount++;
  for (const [i, tool] of call.tools.entries()) await runTool(wire, tool, ids[i]!);
  emit({ type: "turn_end", message, toolResults: [] });
  return "next";
}

/** One prompt: `agent_start`, the scripted model calls (a steer is the next call's input), `agent_end`. */
async function runPrompt(wire: Wire, script: FixtureScript, text: string): Promise<void> {
  const { emit, state } = wire;
  const calls = script.prompts.find((p) => p.when === undefined || text.startsWith(p.when))?.calls ?? [];
  emit({ type: "agent_start" });
  let input: string | undefined = text;
  for (const [n, call] of calls.entries()) {
    emit({ type: "turn_start" });
    if (input !== undefined) wire.userMessage(input);
    if ((await runCall(wire, call, n + 1)) === "end" || state.aborted) break;
    input = state.steers.shift();
  }
  emit({ type: "agent_end", messages: [] });
}

/** The model the session runs, as pi's `Model` (the script's context window unless the model names its own). */
function modelOf(script: FixtureScript, state: AgentState): Json {
  return { contextWindow: script.contextWindow, ...script.models[state.model]! };
}

/** The RPC commands the agent answers, by `type`. */
function commandsOf(wire: Wire, script: FixtureScript, session: { sessionId: string; sessionFile: string }): Record<string, (m: Json) => void> {
  const { emit, respond, state } = wire;
  return {
    get_state: (m) =>
      respond(m.id, "get_state", {
        data: { model: modelOf(script, state), thinkingLevel: "off", isStreaming: state.streaming, ...session, messageCount: state.messageCount, pendingMessageCount: state.steers.length },
      }),
    get_available_models: (m) => respond(m.id, "get_available_models", { data: { models: script.models.map((model) => ({ contextWindow: script.contextWindow, ...model })) } }),
    set_model: (m) => {
      const found = script.models.findIndex((model) => model.provider === m.provider && model.id === m.modelId);
      if (found < 0) return emit({ id: m.id, type: "response", command: "set_model", success: false, error: `Model not found: ${String(m.provider)}/${String(m.modelId)}` });
      state.model = found;
      respond(m.id, "set_model", { data: modelOf(script, state) });
    },
    prompt: (m) => {
      if (script.refusePrompts || state.streaming)
        return emit({ id: m.id, type: "response", command: "prompt", success: false, error: state.streaming ? "Agent is already processing." : "refused by the fixture script" });
      respond(m.id, "prompt");
      state.streaming = true;
      state.aborted = false;
      state.running = runPrompt(wire, script, String(m.message)).finally(() => {
        state.streaming = false;
      });
    },
    steer: (m) => {
      respond(m.id, "steer");
      state.steers.push(String(m.message));
      emit({ type: "queue_update", steering: [...state.steers], followUp: [] });
      state.holdWaiter?.();
    },
    follow_up: (m) => respond(m.id, "follow_up"),
    abort: (m) => {
      state.aborted = true;
      state.holdWaiter?.();
      for (const [id, resolve] of state.uiWaiters) {
        state.uiWaiters.delete(id);
        resolve({ cancelled: true });
      }
      void (state.running ?? Promise.resolve()).then(() => respond(m.id, "abort"));
    },
    extension_ui_response: (m) => {
      const waiter = state.uiWaiters.get(String(m.id));
      state.uiWaiters.delete(String(m.id));
      waiter?.(m);
    },
  };
}

/** Creates the agent over `script`, started with `argv` (only `--session` is read); `mintId` makes a fresh session's id (default a random UUID). */
export function createPiFixtureAgent(script: FixtureScript, argv: readonly string[], io: FixtureAgentIo, mintId: () => string = randomUUID): PiFixtureAgent {
  const at = argv.indexOf("--session");
  const sessionId = at >= 0 && argv[at + 1] ? sessionIdOfRef(argv[at + 1]!) : (script.sessionId ?? mintId());
  const sessionFile = `/fixture/sessions/1970-01-01T00-00-00-000Z_${sessionId}.jsonl`;
  const state: AgentState = { clock: 0, uiCounter: 0, streaming: false, aborted: false, messageCount: 0, uiWaiters: new Map(), steers: [], holdWaiter: undefined, running: undefined, model: 0 };
  const wire = createWire(io, state);
  const commands = commandsOf(wire, script, { sessionFile, sessionId });
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
      else wire.emit({ ...(m.id === undefined ? {} : { id: m.id }), type: "response", command: String(m.type), success: false, error: `Unknown command: ${String(m.type)}` });
    },
  };
}
