/**
 * Running a scripted prompt's steps (see script.ts, `FixtureStep`): each step sends an update,
 * a notification or a request, asks for permission and follows the chosen branch, calls an MCP
 * tool, misbehaves on purpose, or ends the prompt.
 */
import type { FixtureAgentIo, FixtureMcpServer } from "./agent-io.js";
import type { FixtureWire } from "./agent-wire.js";
import type { FixtureStep } from "./script.js";

/** The prompt being answered. */
export interface ActivePrompt {
  requestId: string | number;
  sessionId: string;
  done: boolean;
  cancelled: boolean;
  onCancel: Array<() => void>;
}

/** What the steps act on. */
export interface StepContext {
  wire: FixtureWire;
  io: FixtureAgentIo;
  /** The MCP servers a session was given, by session id. */
  mcpServers: Map<string, FixtureMcpServer[]>;
  /** Answers the prompt once (see `end` steps). */
  finishPrompt(prompt: ActivePrompt, stopReason: string, answerTwice?: boolean, meta?: Record<string, unknown>, usage?: Record<string, unknown>): void;
  /** Answers the prompt with an error once (see `fail` steps). */
  failPrompt(prompt: ActivePrompt, code: number, message: string, data?: unknown): void;
}

type StepOutcome = "ended" | "continue";

const chunk = (text: string): Record<string, unknown> => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

async function askPermission(ctx: StepContext, prompt: ActivePrompt, step: Extract<FixtureStep, { permission: unknown }>): Promise<StepOutcome> {
  const reply = await ctx.wire.request("session/request_permission", {
    sessionId: prompt.sessionId,
    ...(step.permission.toolCall ? { toolCall: step.permission.toolCall } : {}),
    options: step.permission.options,
  });
  if (prompt.done) return "ended";
  const outcome = (reply.result as { outcome?: { outcome?: string; optionId?: string } } | undefined)?.outcome;
  const key = outcome?.outcome === "selected" ? (outcome.optionId ?? "cancelled") : "cancelled";
  const branch = step.outcomes?.[key];
  if (branch && (await runSteps(ctx, prompt, branch)) === "ended") return "ended";
  return "continue";
}

/** The JSON text an `mcpCall` step reports: the tool's result, or why there is none. */
async function mcpCallText(ctx: StepContext, prompt: ActivePrompt, call: Extract<FixtureStep, { mcpCall: unknown }>["mcpCall"]): Promise<string> {
  const name = call.server ?? "bb-bridge";
  const server = (ctx.mcpServers.get(prompt.sessionId) ?? []).find((s) => s.name === name);
  if (!server) return JSON.stringify({ error: `no MCP server named ${name}` });
  if (!ctx.io.callMcpTool) return JSON.stringify({ error: "this fixture agent cannot call MCP tools" });
  try {
    return JSON.stringify(await ctx.io.callMcpTool(server, call.tool, call.arguments ?? {}));
  } catch (error) {
    return JSON.stringify({ error: (error as Error).message });
  }
}

/** Steps that only write something and never end the prompt. */
function runWriteStep(ctx: StepContext, prompt: ActivePrompt, step: FixtureStep): void {
  const { wire, io } = ctx;
  if ("update" in step) wire.update(prompt.sessionId, step.update);
  else if ("notify" in step) wire.send({ jsonrpc: "2.0", method: step.notify.method, ...(step.notify.params !== undefined ? { params: step.notify.params } : {}) });
  else if ("raw" in step) io.write(step.raw);
  else if ("bigLine" in step) wire.update(prompt.sessionId, chunk("x".repeat(step.bigLine)));
  else if ("stderr" in step) io.writeStderr(`${step.stderr}\n`);
  else if ("echoEnv" in step) {
    const values = Object.fromEntries(step.echoEnv.map((name) => [name, io.env[name] ?? null]));
    wire.update(prompt.sessionId, chunk(JSON.stringify(values)));
  }
}

/**
 * Runs one step; `ended` when the prompt (or the agent) is over. A step that writes only is run
 * synchronously, so consecutive writes go out before any other line of the client is read.
 */
function runStep(ctx: StepContext, prompt: ActivePrompt, step: FixtureStep): StepOutcome | Promise<StepOutcome> {
  if ("permission" in step) return askPermission(ctx, prompt, step);
  if ("request" in step) return ctx.wire.request(step.request.method, step.request.params).then(() => "continue");
  if ("waitForCancel" in step) return new Promise<void>((resolve) => prompt.onCancel.push(resolve)).then(() => "ended");
  if ("mcpCall" in step) {
    return mcpCallText(ctx, prompt, step.mcpCall).then((text) => {
      if (prompt.done) return "ended";
      ctx.wire.update(prompt.sessionId, chunk(text));
      return "continue";
    });
  }
  if ("exit" in step) {
    ctx.io.exit(step.exit);
    return "ended";
  }
  if ("end" in step) {
    ctx.finishPrompt(prompt, step.end, step.answerTwice, step.meta, step.usage);
    for (const value of step.after ?? []) ctx.wire.update(prompt.sessionId, value);
    return "ended";
  }
  if ("fail" in step) {
    ctx.failPrompt(prompt, step.fail.code, step.fail.message, step.fail.data);
    return "ended";
  }
  runWriteStep(ctx, prompt, step);
  return "continue";
}

/** Runs `steps` in order until one ends the prompt; `continue` when they ran out first. */
export async function runSteps(ctx: StepContext, prompt: ActivePrompt, steps: FixtureStep[]): Promise<StepOutcome> {
  for (const step of steps) {
    if (prompt.done) return "ended";
    const ran = runStep(ctx, prompt, step);
    const outcome = typeof ran === "string" ? ran : await ran;
    if (outcome === "ended") return "ended";
  }
  return "continue";
}
