/**
 * The fixture ACP agent's behaviour: one instance per process, driven by a {@link FixtureScript}.
 *
 * I/O is injected (`write` one stdout line, `writeStderr`, `exit`), so the same logic runs as a
 * child process (main.ts) or in a test. Outbound request ids start at 0, as Cursor's do, so the
 * bridge's handling of a falsy id is exercised on every permission request.
 */
import { randomUUID } from "node:crypto";
import type { FixtureScript, FixtureStep } from "./script.js";

/**
 * The JSON-RPC error codes this agent answers with. The fixture agent is a program of its own,
 * compiled alone (it stands in for a real agent and imports nothing of the bridge), so it names
 * the codes it sends here rather than importing the bridge's table.
 */
const AGENT_ERRORS = { methodNotFound: -32601, serverError: -32000 } as const;

/** Injected I/O of the fixture agent. */
export interface FixtureAgentIo {
  /** Writes one line (no newline) to stdout. */
  write(line: string): void;
  writeStderr(text: string): void;
  exit(code: number): void;
  /** The agent's environment (for `echoEnv` steps). */
  env: Readonly<Record<string, string | undefined>>;
  /** Calls `tool` on a stdio MCP server from `mcpServers` (for `mcpCall` steps); resolves with the MCP result. */
  callMcpTool?(server: FixtureMcpServer, tool: string, args: Record<string, unknown>): Promise<unknown>;
}

/** An ACP stdio MCP server entry as a client sends it in `session/new|load`. */
export interface FixtureMcpServer {
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
}

/** The fixture agent: feed it every stdin line. */
export interface FixtureAgent {
  handleLine(line: string): void;
}

interface ActivePrompt {
  requestId: string | number;
  sessionId: string;
  done: boolean;
  cancelled: boolean;
  onCancel: Array<() => void>;
}

/** Creates the fixture agent for one process (stack/acp/README.md, "The fixture agent"). */
export function createFixtureAgent(script: FixtureScript, io: FixtureAgentIo): FixtureAgent {
  let sessionCount = 0;
  let nextOutboundId = 0;
  const outbound = new Map<string | number, (message: { result?: unknown; error?: unknown }) => void>();
  const usedPrompts = new Set<number>();
  let active: ActivePrompt | null = null;

  const send = (message: object): void => io.write(JSON.stringify(message));
  const answerId = (id: string | number): string | number => (script.stringResponseIds ? String(id) : id);
  const result = (id: string | number, value: unknown): void => send({ jsonrpc: "2.0", id: answerId(id), result: value });
  const error = (id: string | number, code: number, message: string, data?: unknown): void =>
    send({ jsonrpc: "2.0", id: answerId(id), error: { code, message, ...(data !== undefined ? { data } : {}) } });
  const update = (sessionId: string, value: Record<string, unknown>): void =>
    send({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: value } });
  const request = (method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> => {
    const id = nextOutboundId++;
    return new Promise((resolve) => {
      outbound.set(id, resolve);
      send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    });
  };

  // A stand-in for a real agent, which mints its own ids: entropy here is the agent's, not the bridge's.
  const mcpServers = new Map<string, FixtureMcpServer[]>();
  const rememberServers = (sessionId: string, params: Record<string, unknown>): void => {
    if (Array.isArray(params.mcpServers)) mcpServers.set(sessionId, params.mcpServers as FixtureMcpServer[]);
  };
  const newSession = (): string => `${script.sessionIdPrefix}${script.sessionIds === "uuid" ? randomUUID() : ++sessionCount}`;

  const finishPrompt = (prompt: ActivePrompt, stopReason: string, answerTwice = false, meta?: Record<string, unknown>): void => {
    if (prompt.done) return;
    prompt.done = true;
    const body = { stopReason, ...(meta ? { _meta: meta } : {}) };
    result(prompt.requestId, body);
    if (answerTwice) result(prompt.requestId, body);
    if (active === prompt) active = null;
  };

  const runSteps = async (prompt: ActivePrompt, steps: FixtureStep[]): Promise<"ended" | "continue"> => {
    for (const step of steps) {
      if (prompt.done) return "ended";
      if ("update" in step) update(prompt.sessionId, step.update);
      else if ("notify" in step) send({ jsonrpc: "2.0", method: step.notify.method, ...(step.notify.params !== undefined ? { params: step.notify.params } : {}) });
      else if ("permission" in step) {
        const reply = await request("session/request_permission", {
          sessionId: prompt.sessionId,
          ...(step.permission.toolCall ? { toolCall: step.permission.toolCall } : {}),
          options: step.permission.options,
        });
        if (prompt.done) return "ended";
        const outcome = (reply.result as { outcome?: { outcome?: string; optionId?: string } } | undefined)?.outcome;
        const key = outcome?.outcome === "selected" ? (outcome.optionId ?? "cancelled") : "cancelled";
        const branch = step.outcomes?.[key];
        if (branch && (await runSteps(prompt, branch)) === "ended") return "ended";
      } else if ("request" in step) {
        await request(step.request.method, step.request.params);
      } else if ("waitForCancel" in step) {
        await new Promise<void>((resolve) => prompt.onCancel.push(resolve));
        return "ended";
      } else if ("raw" in step) io.write(step.raw);
      else if ("bigLine" in step) {
        update(prompt.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x".repeat(step.bigLine) } });
      } else if ("stderr" in step) io.writeStderr(`${step.stderr}\n`);
      else if ("mcpCall" in step) {
        const name = step.mcpCall.server ?? "bb-bridge";
        const server = (mcpServers.get(prompt.sessionId) ?? []).find((s) => s.name === name);
        let text: string;
        if (!server) text = JSON.stringify({ error: `no MCP server named ${name}` });
        else if (!io.callMcpTool) text = JSON.stringify({ error: "this fixture agent cannot call MCP tools" });
        else {
          try {
            text = JSON.stringify(await io.callMcpTool(server, step.mcpCall.tool, step.mcpCall.arguments ?? {}));
          } catch (error) {
            text = JSON.stringify({ error: (error as Error).message });
          }
        }
        if (prompt.done) return "ended";
        update(prompt.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
      } else if ("echoEnv" in step) {
        const values = Object.fromEntries(step.echoEnv.map((name) => [name, io.env[name] ?? null]));
        update(prompt.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(values) } });
      }
      else if ("exit" in step) {
        io.exit(step.exit);
        return "ended";
      } else if ("end" in step) {
        finishPrompt(prompt, step.end, step.answerTwice, step.meta);
        for (const value of step.after ?? []) update(prompt.sessionId, value);
        return "ended";
      } else if ("fail" in step) {
        if (!prompt.done) {
          prompt.done = true;
          error(prompt.requestId, step.fail.code, step.fail.message, step.fail.data);
          if (active === prompt) active = null;
        }
        return "ended";
      }
    }
    return "continue";
  };

  const promptText = (params: { prompt?: Array<{ type?: string; text?: string }> }): string =>
    (params.prompt ?? []).map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("\n");

  const startPrompt = (id: string | number, params: { sessionId?: string; prompt?: Array<{ type?: string; text?: string }> }): void => {
    if (active && !active.done) {
      error(id, AGENT_ERRORS.serverError, "A prompt is already running in this session");
      return;
    }
    const prompt: ActivePrompt = { requestId: id, sessionId: params.sessionId ?? "", done: false, cancelled: false, onCancel: [] };
    active = prompt;
    const text = promptText(params);
    const index = script.prompts.findIndex((entry, i) => !usedPrompts.has(i) && (entry.when === undefined || text.includes(entry.when)));
    const steps = index === -1 ? [] : script.prompts[index]!.steps;
    if (index !== -1 && !script.prompts[index]!.reuse) usedPrompts.add(index);
    void runSteps(prompt, steps).then((outcome) => {
      if (outcome === "continue") finishPrompt(prompt, script.defaultStopReason);
    });
  };

  const cancel = (): void => {
    const prompt = active;
    if (!prompt || prompt.done) return;
    if (script.cancel === "ignore") {
      io.writeStderr("fixture agent: ignoring session/cancel\n");
      return;
    }
    prompt.cancelled = true;
    for (const value of script.onCancel) update(prompt.sessionId, value);
    finishPrompt(prompt, script.cancelStopReason);
    for (const wake of prompt.onCancel) wake();
  };

  const sessionResult = (sessionId?: string): Record<string, unknown> => ({ ...(sessionId ? { sessionId } : {}), ...script.sessionResult });

  const envModels = (): Record<string, unknown> => ({
    models: { currentModelId: null, availableModels: script.echoEnvAsModels.map((name) => ({ modelId: name, name: io.env[name] ?? "(unset)" })) },
  });

  // Requests sent before the answer run strictly in order; without any, the answer is synchronous as before.
  const answerNewSession = async (id: string | number, params: Record<string, unknown>): Promise<void> => {
    for (const ask of script.beforeNewAnswer) await request(ask.method, ask.params);
    const sessionId = newSession();
    rememberServers(sessionId, params);
    result(id, { ...sessionResult(sessionId), ...(script.echoEnvAsModels.length ? envModels() : {}) });
    for (const value of script.afterNew) update(sessionId, value);
  };

  const handleRequest = (id: string | number, method: string, params: Record<string, unknown>): void => {
    switch (method) {
      case "initialize":
        if (script.initialize === "never") return;
        if (script.initialize === "exit") return io.exit(3);
        if (script.initialize === "error") return error(id, AGENT_ERRORS.serverError, "fixture agent refuses to initialize");
        return result(id, {
          protocolVersion: script.protocolVersion,
          agentCapabilities: {
            loadSession: script.loadSession,
            promptCapabilities: { image: script.promptImage, audio: false, embeddedContext: false },
            sessionCapabilities: { ...(script.fork ? { fork: {} } : {}), ...(script.resumeSession ? { resume: {} } : {}) },
          },
          authMethods: script.authMethods,
        });
      case "authenticate":
        return result(id, {});
      case "session/new": {
        if (script.newSessionError !== undefined) return error(id, AGENT_ERRORS.serverError, script.newSessionError);
        void answerNewSession(id, params);
        return;
      }
      case "session/load":
      case "session/resume": {
        const supported = method === "session/load" ? script.loadSession : script.resumeSession;
        if (!supported) return error(id, AGENT_ERRORS.methodNotFound, `Method not found: ${method}`);
        if (script.load.error !== undefined) return error(id, AGENT_ERRORS.serverError, script.load.error);
        const sessionId = typeof params.sessionId === "string" ? params.sessionId : "";
        rememberServers(sessionId, params);
        for (const value of script.load.replay) update(sessionId, value);
        return result(id, sessionResult());
      }
      case "session/fork": {
        if (!script.fork) return error(id, AGENT_ERRORS.methodNotFound, "Method not found: session/fork");
        // A fork is a new session: real agents (opencode) announce its commands right after it too.
        const sessionId = newSession();
        rememberServers(sessionId, params);
        result(id, sessionResult(sessionId));
        for (const value of script.afterNew) update(sessionId, value);
        return;
      }
      case "session/prompt":
        return startPrompt(id, params as Parameters<typeof startPrompt>[1]);
      case "session/set_config_option":
        if (script.refuseOptions.includes(String(params.configId))) return error(id, AGENT_ERRORS.serverError, `option ${String(params.configId)} cannot change now`);
        return result(id, { configOptions: (script.sessionResult.configOptions as unknown) ?? [] });
      case "session/set_mode":
        if (script.refuseOptions.includes(String(params.modeId))) return error(id, AGENT_ERRORS.serverError, `mode ${String(params.modeId)} cannot change now`);
        return result(id, {});
      case "session/set_model":
        if (script.refuseModels.includes(String(params.modelId))) return error(id, AGENT_ERRORS.serverError, `model ${String(params.modelId)} cannot be selected now`);
        return result(id, {});
      default:
        return error(id, AGENT_ERRORS.methodNotFound, `Method not found: ${method}`);
    }
  };

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
        if (message.id !== undefined) handleRequest(message.id, message.method, params);
        else if (message.method === "session/cancel") cancel();
        return;
      }
      if (message.id !== undefined) {
        const resolve = outbound.get(message.id);
        outbound.delete(message.id);
        resolve?.({ result: message.result, error: message.error });
      }
    },
  };
}
