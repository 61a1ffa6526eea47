/**
 * Claude Code's stream-json wire (spec 60 "Claude Code: stream-json"): NDJSON both ways, the
 * Agent SDK's wire. What the bridge reads is typed loosely (the CLI adds fields every release;
 * unknown keys pass through untouched), what it writes is built here so every outgoing line has
 * one fixed key order (a replay matches these lines byte for byte).
 */
import { parseJsonObjectLine } from "../bridge-kit/agent-process.js";
import { isRecord } from "../protocol/json-value.js";

/** One parsed line from the CLI: a JSON object with a string `type`. */
export interface StreamJsonMessage {
  readonly type: string;
  readonly subtype?: string;
  readonly [key: string]: unknown;
}

/** A content block of an `assistant` or `user` message (`text`, `thinking`, `tool_use`, `tool_result`, …). */
export interface ContentBlock {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** Parses one stdout line; `undefined` for anything that is not a JSON object with a string `type`. */
export function parseStreamJsonLine(line: string): StreamJsonMessage | undefined {
  const value = parseJsonObjectLine(line);
  return value !== undefined && typeof value.type === "string" ? (value as StreamJsonMessage) : undefined;
}

/** The content blocks of a message line (`message.content`), or none. */
export function contentBlocksOf(message: StreamJsonMessage): ContentBlock[] {
  const inner = message.message;
  if (!isRecord(inner) || !Array.isArray(inner.content)) return [];
  return inner.content.filter((block): block is ContentBlock => isRecord(block) && typeof block.type === "string");
}

/** A string field of a record, or undefined. */
export function stringField(value: unknown, key: string): string | undefined {
  return isRecord(value) && typeof value[key] === "string" ? value[key] : undefined;
}

/** A prompt as a user line: `{type:"user", message:{role:"user", content:[{type:"text", text}]}, parent_tool_use_id:null, session_id:""}`. */
export function userLine(text: string): string {
  return JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: "" });
}

/** A control request of the bridge: `{type:"control_request", request_id, request:{subtype, …fields}}`. */
export function controlRequestLine(requestId: string, subtype: string, fields: Readonly<Record<string, unknown>> = {}): string {
  return JSON.stringify({ type: "control_request", request_id: requestId, request: { subtype, ...fields } });
}

/** A successful answer to one of the CLI's control requests. */
export function controlSuccessLine(requestId: string, response: unknown): string {
  return JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: requestId, response } });
}

/** A failed answer to one of the CLI's control requests (a subtype the bridge does not serve). */
export function controlErrorLine(requestId: string, error: string): string {
  return JSON.stringify({ type: "control_response", response: { subtype: "error", request_id: requestId, error } });
}

/** The arguments every session's CLI runs with (spec 60 launch table), before `--resume`/`--session-id`. */
export const STREAM_JSON_ARGS: readonly string[] = [
  "-p",
  "--input-format",
  "stream-json",
  "--output-format",
  "stream-json",
  "--verbose",
  "--include-partial-messages",
  "--permission-prompt-tool",
  "stdio",
  // Lets `set_permission_mode bypassPermissions` be used for the runtime's `full` mode; without
  // it the CLI refuses that mode (`bypass_not_launched`, measured on 2.1.332).
  "--allow-dangerously-skip-permissions",
];
