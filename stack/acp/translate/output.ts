/**
 * Tool output, command results and bounded payloads (spec 20 §3.4; spec 30 §1.1 exit-code rule,
 * shared result reader and payload caps).
 */
import type { JsonValue } from "../../protocol/thread-delta.js";
import type { AcpCommandResult, AcpToolCallEvent } from "../dialects/types.js";
import { isRecord } from "../../protocol/json-value.js";
import { isNoOutputPlaceholder, structuredExitCode, unwrapCommandText } from "./command-text.js";

/** Largest serialized `args`/`result` payload, in bytes of UTF-8 JSON (spec 30 §1.1). */
export const TOOL_PAYLOAD_MAX_BYTES = 64 * 1024;

/** Characters of the text preview that replaces an over-cap payload. */
export const TOOL_PAYLOAD_PREVIEW_CHARS = 4096;

const DATA_IMAGE_URL = /data:image\/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=]+/g;

/** Replaces inline `data:image/…;base64,…` URLs with `[image]` (spec 20 §3.4). */
export function scrubDataImages(text: string): string {
  return text.replace(DATA_IMAGE_URL, "[image]");
}

function textBlocks(blocks: unknown[]): string[] {
  const texts: string[] = [];
  for (const block of blocks) {
    if (isRecord(block) && typeof block.text === "string") texts.push(block.text);
  }
  return texts;
}

function finish(text: string): string | undefined {
  const trimmed = scrubDataImages(text).trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/**
 * A command's output as it printed it: data images scrubbed, nothing trimmed (a trailing newline
 * or leading spaces are part of what the command printed; house rule "a bridge translates; it
 * never invents or drops"); only an empty text is no output.
 */
function exact(text: string): string | undefined {
  const scrubbed = scrubDataImages(text);
  return scrubbed.length > 0 ? scrubbed : undefined;
}

/** The texts of the `content` entries of type `content`, joined by `\n`, as sent; none → undefined. */
function joinedContentText(event: AcpToolCallEvent): string | undefined {
  const texts: string[] = [];
  for (const entry of event.content ?? []) {
    if (entry.type === "content" && entry.content && typeof entry.content.text === "string") texts.push(entry.content.text);
  }
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/** Text of the `content` entries of type `content` with text, joined by `\n`, trimmed; none → undefined. */
export function contentText(event: AcpToolCallEvent): string | undefined {
  const joined = joinedContentText(event);
  return joined !== undefined ? finish(joined) : undefined;
}

/**
 * A command call's content text as sent, unless it is only the call's own description
 * (`rawInput.description`): Claude Code's adapters put the description in `content` before the
 * command runs, and a call that closes with no content of its own would otherwise show it as
 * output (acp-claude-zed approval-allow: "Create approved.txt" for a `touch` that printed nothing).
 */
function commandContentText(event: AcpToolCallEvent): string | undefined {
  const joined = joinedContentText(event);
  const description = isRecord(event.rawInput) ? event.rawInput.description : undefined;
  if (joined !== undefined && typeof description === "string" && joined.trim() === description.trim()) return undefined;
  return joined;
}

/** `rawOutput` rendered as the shared reader does, without trimming (see {@link exact}). */
function renderRawOutputExact(rawOutput: unknown): string | undefined {
  if (rawOutput === undefined || rawOutput === null) return undefined;
  if (typeof rawOutput === "string") return exact(rawOutput);
  if (isRecord(rawOutput) && Array.isArray(rawOutput.content)) return exact(textBlocks(rawOutput.content).join("\n"));
  return exact(JSON.stringify(rawOutput) ?? "");
}

/**
 * `rawOutput` rendered (spec 20 §3.4): a string as is; an object with an **array** `content` →
 * its text blocks; any other value → JSON; data images scrubbed; trimmed; empty → undefined.
 */
export function renderRawOutput(rawOutput: unknown): string | undefined {
  if (rawOutput === undefined || rawOutput === null) return undefined;
  if (typeof rawOutput === "string") return finish(rawOutput);
  if (isRecord(rawOutput) && Array.isArray(rawOutput.content)) return finish(textBlocks(rawOutput.content).join("\n"));
  return finish(JSON.stringify(rawOutput) ?? "");
}

/** Output text of a tool call: content text, else rendered `rawOutput` (spec 20 §3.4). */
export function toolOutputText(event: AcpToolCallEvent): string | undefined {
  return contentText(event) ?? renderRawOutput(event.rawOutput);
}

/**
 * The bytes a read returned, exactly as the agent sent them (nothing trimmed): its content text, else a string
 * `rawOutput.content` (copilot's `{content, detailedContent}`), else the output of the command
 * the agent read with (codex-acp reads with `cat` and sends the command's record:
 * `stdout`/`aggregated_output`), else rendered `rawOutput`. Never the record's JSON when it holds
 * the bytes: a read's output is the file, not the agent's bookkeeping around it.
 */
export function readOutputText(event: AcpToolCallEvent): string | undefined {
  const joined = joinedContentText(event);
  const content = joined !== undefined ? exact(joined) : undefined;
  if (content !== undefined) return content;
  const raw = isRecord(event.rawOutput) ? event.rawOutput : undefined;
  if (typeof raw?.content === "string") return exact(raw.content);
  for (const key of ["stdout", "aggregated_output", "formatted_output"]) {
    if (typeof raw?.[key] === "string") return exact(raw[key]);
  }
  return renderRawOutput(event.rawOutput);
}

function joinOutput(first: string, second: string): string {
  if (first.length === 0) return second;
  if (second.length === 0) return first;
  return first.endsWith("\n") ? first + second : `${first}\n${second}`;
}

/**
 * The output so far a non-terminal update of a running command carries (the shared reader of
 * streamed output): the update's own content text with the agent's wrapping removed, exactly as
 * sent; `undefined` when the update carries no content text or only the call's description.
 * ACP content replaces the call's earlier content, so each one is a snapshot of the output so far.
 */
export function streamedCommandOutput(update: AcpToolCallEvent): string | undefined {
  const content = commandContentText(update);
  if (content === undefined) return undefined;
  return exact(unwrapCommandText(content).text);
}

/**
 * The streams of the agent's structured result for a command: a `_meta.<agent>.toolResponse`
 * whose `stdout` is a string (read by shape; claude-agent-acp and claude-code-acp relay Claude
 * Code's Bash result there, the record the native claude-code bridge reads from stream-json's
 * `tool_use_result`). It is what the command printed before the CLI reworded it for the model: an
 * output over Claude Code's limit reaches the call's content only as a `<persisted-output>` notice
 * (the saved file's path and a 2 KB preview) while `toolResponse.stdout` holds the output as Claude
 * Code kept it (recordings/acp-claude/long-output seq 27). `undefined` when no such record.
 */
export function structuredCommandStreams(event: AcpToolCallEvent): { stdout: string; stderr: string } | undefined {
  const meta = event._meta;
  if (!isRecord(meta)) return undefined;
  for (const side of Object.values(meta)) {
    const response = isRecord(side) ? side.toolResponse : undefined;
    if (isRecord(response) && typeof response.stdout === "string") return { stdout: response.stdout, stderr: typeof response.stderr === "string" ? response.stderr : "" };
  }
  return undefined;
}

/**
 * The shared command result reader (spec 30 §1.1): exit code from `rawOutput.exitCode` or
 * `exit_code`, else a structured `shell_exit` entry, else the one the agent's wrapping of the
 * content text names; output from the agent's structured result (`structuredCommandStreams`:
 * `stdout`+`stderr` joined, the content text then kept as `resultText`, what the model was shown),
 * else content text with the agent's wrapping removed (command-text.ts), else `stdout`+`stderr`
 * (newline-joined) or `output_for_prompt`, else rendered `rawOutput`; `[timed out]` and
 * `[signal X]` appended.
 */
export function readCommandResult(event: AcpToolCallEvent): AcpCommandResult {
  const raw = isRecord(event.rawOutput) ? event.rawOutput : undefined;
  const result: AcpCommandResult = {};
  const exitCode = raw?.exitCode ?? raw?.exit_code ?? structuredExitCode(raw);
  if (typeof exitCode === "number" && Number.isFinite(exitCode)) result.exitCode = exitCode;

  // The agent's wrapping comes off whichever text the output is read from (command-text.ts).
  const unwrap = (text: string | undefined): string | undefined => {
    if (text === undefined) return undefined;
    const unwrapped = unwrapCommandText(text);
    if (result.exitCode === undefined && unwrapped.exitCode !== undefined) result.exitCode = unwrapped.exitCode;
    return exact(unwrapped.text);
  };
  const content = commandContentText(event);
  let output = unwrap(content);
  const streams = structuredCommandStreams(event);
  if (streams !== undefined) {
    // The content text stays the call's result text; the output is what the command printed.
    if (output !== undefined) result.resultText = output;
    output = exact(joinOutput(streams.stdout, streams.stderr)) ?? "";
  }
  // Content that unwraps to nothing said the command printed nothing: rendering rawOutput then
  // would show the agent's own record (a placeholder, its JSON) as output; its streams are still read.
  const rendered = (value: unknown) => (content === undefined ? unwrap(renderRawOutputExact(value)) : undefined);
  if (output === undefined && raw !== undefined) {
    const stdout = typeof raw.stdout === "string" ? raw.stdout : undefined;
    const stderr = typeof raw.stderr === "string" ? raw.stderr : undefined;
    // Streams are what the command printed: only an agent's "(no output)" placeholder standing in for them is dropped.
    const printed = (text: string | undefined) => (text !== undefined && isNoOutputPlaceholder(text) ? "" : text);
    if (stdout !== undefined || stderr !== undefined) output = exact(joinOutput(printed(stdout) ?? "", printed(stderr) ?? ""));
    else if (typeof raw.output_for_prompt === "string") output = exact(raw.output_for_prompt);
    else output = rendered(raw);
  } else if (output === undefined) {
    output = rendered(event.rawOutput);
  }

  const markers: string[] = [];
  if (raw?.timed_out === true) markers.push("[timed out]");
  if (raw?.signal !== undefined && raw.signal !== null) markers.push(`[signal ${String(raw.signal)}]`);
  if (markers.length > 0) output = joinOutput(output ?? "", markers.join(" "));
  if (output !== undefined) result.output = output;
  return result;
}

function scrubJson(value: unknown): JsonValue {
  if (typeof value === "string") return scrubDataImages(value);
  if (Array.isArray(value)) return value.map(scrubJson);
  if (isRecord(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [key, inner] of Object.entries(value)) if (inner !== undefined) out[key] = scrubJson(inner);
    return out;
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  return null;
}

function preview(text: string): string {
  return text.length <= TOOL_PAYLOAD_PREVIEW_CHARS ? text : `${text.slice(0, TOOL_PAYLOAD_PREVIEW_CHARS)}…`;
}

/**
 * A bounded tool payload (spec 30 §1.1): data images scrubbed; over 64 KiB serialized it becomes
 * a text preview — under the key `truncated` when `asArgs` (tool `args`), else a bare string.
 */
export function boundToolPayload(value: unknown, asArgs: boolean): JsonValue {
  const scrubbed = scrubJson(value);
  const serialized = JSON.stringify(scrubbed);
  if (Buffer.byteLength(serialized, "utf8") <= TOOL_PAYLOAD_MAX_BYTES) return scrubbed;
  return asArgs ? { truncated: preview(serialized) } : preview(serialized);
}
