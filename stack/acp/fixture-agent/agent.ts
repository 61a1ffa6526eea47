/**
 * The fixture ACP agent's behaviour: one instance per process, driven by a {@link FixtureScript}.
 *
 * I/O is injected (`write` one stdout line, `writeStderr`, `exit`), so the same logic runs as a
 * child process (main.ts) or in a test. Outbound request ids start at 0, as Cursor's do, so the
 * bridge's handling of a falsy id is exercised on every permission request.
 */
import { randomUUID } from "node:crypto";
import type { FixtureAgentIo, FixtureMcpServer } from "./agent-io.js";
import { FixtureWire } from "./agent-wire.js";
import { fillSessionPlaceholders, type FixtureScript } from "./script.js";
import { runSteps, type ActivePrompt, type StepContext } from "./steps.js";

/**
 * The JSON-RPC error codes this agent answers with. The fixture agent stands in for a real agent
 * and imports nothing of the bridge's behaviour, so it names the codes it sends here rather than
 * importing the bridge's table.
 */
const AGENT_ERRORS = { methodNotFound: -32601, serverError: -32000 } as const;

export type { FixtureAgentIo, FixtureMcpServer } from "./agent-io.js";

/** The fixture agent: feed it every stdin line. */
export interface FixtureAgent {
  handleLine(line: string): void;
}

type PromptParams = { sessionId?: string; prompt?: Array<{ type?: string; text?: string }> };

const promptText = (params: PromptParams): string => (params.prompt ?? []).map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("\n");

/** The state of one fixture agent process: its sessions, the prompt it is answering, the script entries used. */
class FixtureAgentState implements StepContext {
  readonly wire: FixtureWire;
  readonly mcpServers = new Map<string, FixtureMcpServer[]>();
  /** Each session's working directory, as its `session/new|load|resume|fork` named it (steps' `{{cwd}}`). */
  private readonly cwds = new Map<string, string>();
  private sessionCount = 0;
  private readonly usedPrompts = new Set<number>();
  private active: ActivePrompt | null = null;

  constructor(
    private readonly script: FixtureScript,
    readonly io: FixtureAgentIo,
  ) {
    this.wire = new FixtureWire(script, (line) => io.write(line));
  }

  private rememberSession(sessionId: string, params: Record<string, unknown>): void {
    if (Array.isArray(params.mcpServers)) this.mcpServers.set(sessionId, params.mcpServers as FixtureMcpServer[]);
    if (typeof params.cwd === "string") this.cwds.set(sessionId, params.cwd);
  }

  // A stand-in for a real agent, which mints its own ids: entropy here is the agent's, not the bridge's.
  private newSession(): string {
    return `${this.script.sessionIdPrefix}${this.script.sessionIds === "uuid" ? randomUUID() : ++this.sessionCount}`;
  }

  finishPrompt(prompt: ActivePrompt, stopReason: string, answerTwice = false, meta?: Record<string, unknown>, usage?: Record<string, unknown>): void {
    if (prompt.done) return;
    prompt.done = true;
    const body = { stopReason, ...(usage ? { usage } : {}), ...(meta ? { _meta: meta } : {}) };
    this.wire.result(prompt.requestId, body);
    if (answerTwice) this.wire.result(prompt.requestId, body);
    if (this.active === prompt) this.active = null;
  }

  failPrompt(prompt: ActivePrompt, code: number, message: string, data?: unknown): void {
    if (prompt.done) return;
    prompt.done = true;
    this.wire.error(prompt.requestId, code, message, data);
    if (this.active === prompt) this.active = null;
  }

  private startPrompt(id: string | number, params: PromptParams): void {
    const { script } = this;
    if (this.active && !this.active.done) {
      this.wire.error(id, AGENT_ERRORS.serverError, "A prompt is already running in this session");
      return;
    }
    const prompt: ActivePrompt = { requestId: id, sessionId: params.sessionId ?? "", done: false, cancelled: false, onCancel: [] };
    this.active = prompt;
    const text = promptText(params);
    const index = script.prompts.findIndex((entry, i) => !this.usedPrompts.has(i) && (entry.when === undefined || text.includes(entry.when)));
    const steps = index === -1 ? [] : fillSessionPlaceholders(script.prompts[index]!.steps, { sessionId: prompt.sessionId, cwd: this.cwds.get(prompt.sessionId) });
    if (index !== -1 && !script.prompts[index]!.reuse) this.usedPrompts.add(index);
    void runSteps(this, prompt, steps).then((outcome) => {
      if (outcome === "continue") this.finishPrompt(prompt, script.defaultStopReason);
    });
  }

  cancel(): void {
    const prompt = this.active;
    if (!prompt || prompt.done) return;
    if (this.script.cancel === "ignore") {
      this.io.writeStderr("fixture agent: ignoring session/cancel\n");
      return;
    }
    prompt.cancelled = true;
    for (const value of this.script.onCancel) this.wire.update(prompt.sessionId, value);
    this.finishPrompt(prompt, this.script.cancelStopReason);
    for (const wake of prompt.onCancel) wake();
  }

  private sessionResult(sessionId?: string): Record<string, unknown> {
    return { ...(sessionId ? { sessionId } : {}), ...this.script.sessionResult };
  }

  private envModels(): Record<string, unknown> {
    const models = this.script.echoEnvAsModels.map((name) => ({ modelId: name, name: this.io.env[name] ?? "(unset)" }));
    return { models: { currentModelId: null, availableModels: models } };
  }

  // Requests sent before the answer run strictly in order; without any, the answer is synchronous as before.
  private async answerNewSession(id: string | number, params: Record<string, unknown>): Promise<void> {
    for (const ask of this.script.beforeNewAnswer) await this.wire.request(ask.method, ask.params);
    const sessionId = this.newSession();
    this.rememberSession(sessionId, params);
    this.wire.result(id, { ...this.sessionResult(sessionId), ...(this.script.echoEnvAsModels.length ? this.envModels() : {}) });
    for (const value of this.script.afterNew) this.wire.update(sessionId, value);
  }

  private answerInitialize(id: string | number): void {
    const { script } = this;
    if (script.initialize === "never") return;
    if (script.initialize === "exit") return this.io.exit(3);
    if (script.initialize === "error") return this.wire.error(id, AGENT_ERRORS.serverError, "fixture agent refuses to initialize");
    this.wire.result(id, {
      protocolVersion: script.protocolVersion,
      agentCapabilities: {
        loadSession: script.loadSession,
        promptCapabilities: { image: script.promptImage, audio: false, embeddedContext: false },
        sessionCapabilities: { ...(script.fork ? { fork: {} } : {}), ...(script.resumeSession ? { resume: {} } : {}) },
      },
      authMethods: script.authMethods,
    });
  }

  /** `session/load` and `session/resume`: the scripted replay, then the answer. */
  private answerRestore(id: string | number, method: string, params: Record<string, unknown>): void {
    const { script } = this;
    const supported = method === "session/load" ? script.loadSession : script.resumeSession;
    if (!supported) return this.wire.error(id, AGENT_ERRORS.methodNotFound, `Method not found: ${method}`);
    if (script.load.error !== undefined) return this.wire.error(id, AGENT_ERRORS.serverError, script.load.error);
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : "";
    this.rememberSession(sessionId, params);
    for (const value of script.load.replay) this.wire.update(sessionId, value);
    this.wire.result(id, this.sessionResult());
    for (const value of script.load.after) this.wire.update(sessionId, value);
  }

  private answerFork(id: string | number, params: Record<string, unknown>): void {
    if (!this.script.fork) return this.wire.error(id, AGENT_ERRORS.methodNotFound, "Method not found: session/fork");
    // A fork is a new session: real agents (opencode) announce its commands right after it too.
    const sessionId = this.newSession();
    this.rememberSession(sessionId, params);
    this.wire.result(id, this.sessionResult(sessionId));
    for (const value of this.script.afterNew) this.wire.update(sessionId, value);
  }

  /** `session/set_*`: refused when the script says the value cannot change now. */
  private answerSetting(id: string | number, method: string, params: Record<string, unknown>): void {
    const { script, wire } = this;
    if (method === "session/set_config_option") {
      if (script.refuseOptions.includes(String(params.configId))) return wire.error(id, AGENT_ERRORS.serverError, `option ${String(params.configId)} cannot change now`);
      return wire.result(id, { configOptions: (script.sessionResult.configOptions as unknown) ?? [] });
    }
    if (method === "session/set_mode") {
      if (script.refuseOptions.includes(String(params.modeId))) return wire.error(id, AGENT_ERRORS.serverError, `mode ${String(params.modeId)} cannot change now`);
      return wire.result(id, {});
    }
    if (script.refuseModels.includes(String(params.modelId))) return wire.error(id, AGENT_ERRORS.serverError, `model ${String(params.modelId)} cannot be selected now`);
    wire.result(id, {});
  }

  handleRequest(id: string | number, method: string, params: Record<string, unknown>): void {
    switch (method) {
      case "initialize":
        return this.answerInitialize(id);
      case "authenticate":
        return this.wire.result(id, {});
      case "session/new":
        if (this.script.newSessionError !== undefined) return this.wire.error(id, AGENT_ERRORS.serverError, this.script.newSessionError);
        void this.answerNewSession(id, params);
        return;
      case "session/load":
      case "session/resume":
        return this.answerRestore(id, method, params);
      case "session/fork":
        return this.answerFork(id, params);
      case "session/prompt":
        return this.startPrompt(id, params as PromptParams);
      case "session/set_config_option":
      case "session/set_mode":
      case "session/set_model":
        return this.answerSetting(id, method, params);
      default:
        return this.wire.error(id, AGENT_ERRORS.methodNotFound, `Method not found: ${method}`);
    }
  }
}

/** Creates the fixture agent for one process (stack/acp/README.md, "The fixture agent"). */
export function createFixtureAgent(script: FixtureScript, io: FixtureAgentIo): FixtureAgent {
  const agent = new FixtureAgentState(script, io);
  return {
    handleLine(line) {
      if (line.trim() === "") return;
      let message: { id?: string | number; method?: string; params?: unknown; result?: unknown; error?: unknown };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        io.writeStderr(`fixture agent: ignoring a non-JSON line\n`);
        return;
      }
      const params = (message.params && typeof message.params === "object" ? message.params : {}) as Record<string, unknown>;
      if (typeof message.method === "string") {
        if (message.id !== undefined) agent.handleRequest(message.id, message.method, params);
        else if (message.method === "session/cancel") agent.cancel();
        return;
      }
      if (message.id !== undefined) agent.wire.acceptAnswer(message.id, { result: message.result, error: message.error });
    },
  };
}
