/**
 * Claude Code's tools as grammar-v3 items (spec 60 "Tools each CLI offers", "Mapping onto a
 * thread"): `Bash` → `command`, `Edit`/`MultiEdit`/`Write`/`NotebookEdit` → `fileChange` with a
 * unified diff built from `structuredPatch`, `Read` → `fileRead`, `Grep`/`Glob` → `search`,
 * `WebSearch` → `webSearch`, `WebFetch` → `webFetch`, a foreground `Task`/`Agent` →
 * `delegation`, every other tool (a background Task, AskUserQuestion, Skill, MCP tools, …) → a
 * generic `tool` item with its input and result. Pure.
 */
import type { ApprovalStatus } from "../bridge-kit/approval-ledger.js";
import type { FileChangeEntry, ItemShape, JsonValue } from "../protocol/thread-delta.js";
import { isJsonValue } from "../protocol/thread-delta.js";
import { isRecord } from "../protocol/json-value.js";
import { creationDiff, readStructuredPatch, unifiedDiff } from "../bridge-kit/structured-patch.js";
import { stringField, type ContentBlock } from "./wire.js";

/** A `tool_use` block: `{id, name, input}`. */
export interface ToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What the CLI reported for one tool call: the `tool_result` block and the line's structured `tool_use_result`. */
export interface ToolOutcome {
  /** `tool_result.content`: a string or content blocks. */
  content: unknown;
  /** `tool_result.is_error`; absent counts as false. */
  isError: boolean;
  /** The line's `tool_use_result` (structured for success, usually the error text for a failure). */
  structured: unknown;
  /** The runtime's answer when the CLI asked about this call through `can_use_tool`; absent when it never asked. */
  approvalStatus?: ApprovalStatus | undefined;
}

/** The item-close fields of a settled tool call (an `item.close` without `kind` and `key`). */
export interface ToolClose {
  status: "completed" | "failed" | "interrupted";
  item: ItemShape;
  resultText?: string;
  exitCode?: number;
  aggregatedOutput?: string;
  approvalStatus?: ApprovalStatus;
}

const FILE_EDIT_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
/** The subagent tool: `Task` in 2.1.332's `system` `init` tool list, `Agent` in its own description. */
const SUBAGENT_TOOLS = new Set(["Task", "Agent"]);
/** The label of a delegation whose call gives neither a description nor a prompt. */
const DEFAULT_DELEGATION_LABEL = "Subagent";

/**
 * The report inside a foreground subagent's tool result (measured on 2.1.332): a
 * `[Subagent hand-back]` frame ending `The report follows:`, the report with every line indented
 * by two spaces, then the CLI's own `agentId: …` line and a `<usage>` block.
 */
const HAND_BACK = /The report follows:\n((?: {2}.*(?:\n|$))+)/;

/** Reads a `tool_use` content block, or undefined when it is not one. */
export function readToolUse(block: ContentBlock): ToolUse | undefined {
  if (block.type !== "tool_use" || typeof block.id !== "string" || typeof block.name !== "string") return undefined;
  return { id: block.id, name: block.name, input: isRecord(block.input) ? block.input : {} };
}

/** The JSON value of `value`, or its string form when it is not JSON. */
function json(value: unknown): JsonValue {
  return isJsonValue(value) ? value : String(value);
}

/** The path a file tool names (`file_path`, or `notebook_path` for notebooks). */
function filePathOf(input: Record<string, unknown>): string {
  return stringField(input, "file_path") ?? stringField(input, "notebook_path") ?? "";
}

/**
 * The item a tool call opens with (before it ran): its shape from the tool's name and input.
 * `cwd` is the session's working directory (a Bash command runs there).
 */
export function openItemOf(tool: ToolUse, cwd: string): ItemShape {
  const { name, input } = tool;
  if (name === "Bash") return { type: "command", command: stringField(input, "command") ?? "", cwd };
  if (FILE_EDIT_TOOLS.has(name)) return { type: "fileChange", changes: [{ path: filePathOf(input), kind: "update" }] };
  if (name === "Read") return { type: "fileRead", path: filePathOf(input) };
  if (name === "Grep") {
    const path = stringField(input, "path");
    return { type: "search", mode: "content", query: stringField(input, "pattern") ?? "", ...(path !== undefined ? { path } : {}) };
  }
  if (name === "Glob") {
    const path = stringField(input, "path");
    return { type: "search", mode: "path", query: stringField(input, "pattern") ?? "", ...(path !== undefined ? { path } : {}) };
  }
  // A foreground subagent runs within this call and hands its report back as the result; a
  // background one (the CLI's default) only starts here, so it stays a generic tool call whose
  // result says it was launched.
  if (SUBAGENT_TOOLS.has(name) && input.run_in_background === false) {
    const label = stringField(input, "description") || stringField(input, "prompt") || DEFAULT_DELEGATION_LABEL;
    return { type: "delegation", childRef: tool.id, label, background: false };
  }
  const query = stringField(input, "query");
  if (name === "WebSearch" && query) return { type: "webSearch", queries: [query] };
  const url = stringField(input, "url");
  if (name === "WebFetch" && url !== undefined) return { type: "webFetch", url, prompt: stringField(input, "prompt") ?? null, pattern: null };
  return { type: "tool", tool: name, args: json(input) };
}

/** The text of a `tool_result.content`: the string itself, or its text blocks joined by newlines. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => stringField(block, "text"))
    .filter((text): text is string => text !== undefined)
    .join("\n");
}

/**
 * The subagent's report in a foreground Task's result text: the indented lines after the CLI's
 * `The report follows:`, unindented, without the trailing newline; the whole text when the frame is
 * not there (another CLI version).
 */
export function subagentReport(text: string): string {
  const match = HAND_BACK.exec(text);
  if (!match) return text;
  return match[1]!
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.slice(2))
    .join("\n");
}

/** The `Exit code <n>` line Claude Code puts before a failed command's output (measured on 2.1.332). */
const EXIT_CODE_LINE = /^Exit code (\d+)(?:\n|$)/;

/**
 * The exit code the CLI itself printed for a failed command: its error text starts with
 * `Exit code <n>` (measured on 2.1.332: `"Exit code 3\nout\nerr"`). A successful command carries
 * none, and none is invented: the item then has no `exitCode`.
 */
export function reportedExitCode(outcome: ToolOutcome): number | undefined {
  if (!outcome.isError) return undefined;
  const match = EXIT_CODE_LINE.exec(resultText(outcome.content));
  return match ? Number(match[1]) : undefined;
}

/**
 * What the command printed: `stdout` and `stderr` of a Bash result joined by a newline (either
 * may be empty); for a failed command the result text without the CLI's own `Exit code <n>` line
 * (recordings/claude-code/command-fails: `"Exit code 3\nfirst line\n…"`), which is the exit code's
 * source, not output.
 */
export function commandOutput(outcome: ToolOutcome): string {
  const structured = outcome.structured;
  if (!outcome.isError && isRecord(structured) && typeof structured.stdout === "string") {
    const stderr = typeof structured.stderr === "string" ? structured.stderr : "";
    return [structured.stdout, stderr].filter((part) => part !== "").join("\n");
  }
  const text = resultText(outcome.content);
  return outcome.isError ? text.replace(EXIT_CODE_LINE, "") : text;
}

/** The settled change of a file tool: its path, kind and unified diff (from `structuredPatch`, or the whole new content). */
function fileChangeEntry(tool: ToolUse, outcome: ToolOutcome): FileChangeEntry {
  const structured = isRecord(outcome.structured) ? outcome.structured : {};
  const path = stringField(structured, "filePath") ?? filePathOf(tool.input);
  const created = structured.type === "create";
  const hunks = readStructuredPatch(structured.structuredPatch);
  const content = stringField(structured, "content") ?? stringField(tool.input, "content");
  const diff = hunks.length > 0 ? unifiedDiff(path, hunks, created) : created && content !== undefined ? creationDiff(path, content) : undefined;
  return { path, kind: created ? "add" : "update", ...(diff !== undefined ? { diff } : {}) };
}

/** The status of a settled call: interrupted when the CLI says so, failed on `is_error`, else completed. */
function statusOf(outcome: ToolOutcome): ToolClose["status"] {
  if (isRecord(outcome.structured) && outcome.structured.interrupted === true) return "interrupted";
  return outcome.isError ? "failed" : "completed";
}

/**
 * What a Read returned: the file's bytes as the line's structured `tool_use_result` carries them
 * (`{type:"text", file:{filePath, content, numLines, startLine, totalLines}}`, measured on 2.1.332:
 * recordings/claude-code/turn-tools), not the numbered view the `tool_result` shows the model
 * (`"1\ttitle: parity notes\n2\t…"`); that displayed text when the structured result carries no
 * text content (an image, a notebook, a failed read, another CLI version).
 */
export function readResultText(outcome: ToolOutcome): string {
  const structured = outcome.structured;
  const file = isRecord(structured) && structured.type === "text" && isRecord(structured.file) ? structured.file : undefined;
  const content = file === undefined || outcome.isError ? undefined : stringField(file, "content");
  return content ?? resultText(outcome.content);
}

/**
 * The close of a tool call from what the CLI reported (spec 60 "Tool call"): a command keeps
 * its output (and the exit code only when the CLI printed one), a file change its diff (none
 * when the call failed: nothing changed), a read the bytes it returned, a generic tool its result
 * or error. A call the CLI asked about carries the runtime's answer as `approvalStatus`; a denied
 * one closes as it never ran.
 */
export function closeOf(tool: ToolUse, outcome: ToolOutcome, cwd: string): ToolClose {
  const status = statusOf(outcome);
  const text = resultText(outcome.content);
  const approval = outcome.approvalStatus !== undefined ? { approvalStatus: outcome.approvalStatus } : {};
  const opened = openItemOf(tool, cwd);
  // A denied call never ran: no output, no diff, no result; the CLI's refusal is its resultText.
  if (outcome.approvalStatus === "denied") return { status, item: opened, resultText: text, ...approval };
  if (opened.type === "command") {
    const output = commandOutput(outcome);
    const exitCode = reportedExitCode(outcome);
    const item = { ...opened, aggregatedOutput: output, ...(exitCode !== undefined ? { exitCode } : {}) };
    return { status, item, resultText: text, aggregatedOutput: output, ...(exitCode !== undefined ? { exitCode } : {}), ...approval };
  }
  if (opened.type === "fileChange") {
    const item: ItemShape = outcome.isError ? opened : { type: "fileChange", changes: [fileChangeEntry(tool, outcome)] };
    return { status, item, resultText: text, ...approval };
  }
  if (opened.type === "fileRead") return { status, item: opened, resultText: readResultText(outcome), ...approval };
  if (opened.type === "delegation") {
    if (outcome.isError) return { status, item: opened, resultText: text, ...approval };
    return { status, item: { ...opened, summary: subagentReport(text) }, resultText: text, ...approval };
  }
  if (opened.type === "tool") {
    const item: ItemShape = outcome.isError ? { ...opened, error: text } : { ...opened, result: json(outcome.content) };
    return { status, item, resultText: text, ...approval };
  }
  return { status, item: opened, resultText: text, ...approval };
}
