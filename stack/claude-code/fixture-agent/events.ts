/**
 * The stream-json lines the fixture CLI writes, shaped as Claude Code 2.1.332 writes them
 * (spec 60; the fields a bridge reads, without the CLI's bookkeeping). Pure builders.
 */

/** The fixed session fields every message line carries. */
export interface LineContext {
  sessionId: string;
}

/** `system/init`, sent at the start of every turn. */
export function initLine(ctx: LineContext, cwd: string, mode: string): object {
  return { type: "system", subtype: "init", cwd, session_id: ctx.sessionId, tools: ["Bash", "Edit", "Read", "Write"], model: "fixture-model", permissionMode: mode };
}

/** A `stream_event` around one raw Anthropic SSE event. */
export function streamEvent(ctx: LineContext, event: object): object {
  return { type: "stream_event", event, session_id: ctx.sessionId, parent_tool_use_id: null };
}

/** An `assistant` line with one content block. */
export function assistantLine(ctx: LineContext, messageId: string, block: object, extra: object = {}): object {
  return { type: "assistant", message: { id: messageId, type: "message", role: "assistant", model: "fixture-model", content: [block] }, parent_tool_use_id: null, session_id: ctx.sessionId, ...extra };
}

/** A `user` line carrying one tool result. */
export function toolResultLine(ctx: LineContext, toolUseId: string, content: string, isError: boolean, structured: unknown): object {
  return {
    type: "user",
    message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content, is_error: isError }] },
    parent_tool_use_id: null,
    session_id: ctx.sessionId,
    tool_use_result: structured ?? (isError ? `Error: ${content}` : content),
  };
}

/** The `result` that ends a turn. */
export function resultLine(ctx: LineContext, fields: { isError: boolean; subtype: string; result?: string; terminalReason: string; apiErrorStatus?: number }): object {
  return {
    type: "result",
    subtype: fields.subtype,
    is_error: fields.isError,
    result: fields.result ?? null,
    session_id: ctx.sessionId,
    usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
    modelUsage: { "fixture-model": { inputTokens: 10, outputTokens: 5, contextWindow: 200000 } },
    total_cost_usd: 0.0001,
    permission_denials: [],
    terminal_reason: fields.terminalReason,
    api_error_status: fields.apiErrorStatus ?? null,
  };
}
