/**
 * The exact bytes a read tool call returned, where the agent-side traffic carries them beside
 * the text the agent displays (issue 37: a `fileRead` item's `resultText` is "the bytes the read
 * returned", stack/protocol/README.md). Agents display a read dressed up: in a code fence, with
 * line numbers, its last newline cut. Two places hold the bytes themselves, taken in this order:
 * 1. the agent's structured result for the call: a `_meta.<agent>.toolResponse.file` naming the
 *    call's file with a string `content` (Claude Code's adapter sends
 *    `_meta.claudeCode.toolResponse.file {filePath, content, numLines, startLine, totalLines}`);
 * 2. the bridge's own answers to the agent's `fs/read_text_file` for the call's file, made while
 *    the call was in flight (the tracker's rule, tool-calls.ts `readClaimant`): when every such
 *    answer is the same text, that text.
 * Neither → `undefined`, and the caller falls back to the agent's displayed text (output.ts
 * `readOutputText`). Pure.
 */
import { isRecord } from "../../protocol/json-value.js";
import type { AcpToolCallEvent } from "../dialects/types.js";

/**
 * Whether `reported` (a path as the agent named it on the call, maybe relative) names the file
 * `absolute` (a path the bridge resolved): the same path, or a relative one `absolute` ends with
 * (qwen and grok name `notes.txt` on the call and `/…/notes.txt` in their client requests).
 */
export function namesSameFile(reported: string, absolute: string): boolean {
  if (reported === absolute) return true;
  return !reported.startsWith("/") && reported.length > 0 && absolute.endsWith(`/${reported.replace(/^\.\//, "")}`);
}

/** The `content` of a `_meta.<agent>.toolResponse.file` naming `path`; `undefined` when none does. */
function structuredReadBytes(event: AcpToolCallEvent, path: string): string | undefined {
  for (const side of Object.values(event._meta ?? {})) {
    const response = isRecord(side) ? side.toolResponse : undefined;
    const file = isRecord(response) ? response.file : undefined;
    if (!isRecord(file) || typeof file.content !== "string" || typeof file.filePath !== "string") continue;
    if (file.filePath === path || namesSameFile(path, file.filePath) || namesSameFile(file.filePath, path)) return file.content;
  }
  return undefined;
}

/**
 * The bytes the read call `event` of file `path` returned (module doc): the agent's structured
 * result, else the one text the bridge answered to the call's `fs/read_text_file` requests
 * (`fsAnswers`, in order); `undefined` when neither holds them, or when the answers differ.
 */
export function exactReadBytes(event: AcpToolCallEvent, path: string, fsAnswers: readonly string[]): string | undefined {
  const structured = structuredReadBytes(event, path);
  if (structured !== undefined) return structured;
  const distinct = new Set(fsAnswers);
  return distinct.size === 1 ? fsAnswers[0] : undefined;
}
