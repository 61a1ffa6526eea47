/**
 * pi's tool executions as thread items (spec 60 "pi", "Mapping onto a thread"): `bash` →
 * command, `edit`/`write` → fileChange, `read` → fileRead, any other tool → tool call. Pure:
 * no I/O, no clock.
 */
import path from "node:path";
import type { ApprovalStatus } from "../bridge-kit/approval-ledger.js";
import { textsUnifiedDiff } from "../bridge-kit/texts-diff.js";
import type { JsonValue } from "../protocol/thread-delta-blocks.js";
import type { ThreadDelta } from "../protocol/thread-delta.js";
import { unifiedDiffFromPi } from "../bridge-kit/pi-diff.js";

/** `tool_execution_start`/`_end` fields the bridge reads (pi 0.73.1 `docs/rpc.md`). */
export interface PiToolExecution {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}

/** A tool result: `{content:[{type:"text", text}], details?}` and `isError`. */
export interface PiToolResult {
  text: string;
  details: Record<string, unknown> | undefined;
  isError: boolean;
}

/**
 * pi's bash tool reports a non-zero exit only as this trailer of its result text
 * (`…\n\nCommand exited with code 3`, measured with pi 0.73.1: two newlines after the output);
 * a success carries no code.
 */
const EXIT_TRAILER = /\n\nCommand exited with code (\d+)$/;

const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** The text of a tool result's `content` (its text parts joined). */
export function resultText(result: unknown): string {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((c): c is { type: "text"; text: string } => typeof c === "object" && c !== null && (c as { type?: unknown }).type === "text" && typeof (c as { text?: unknown }).text === "string")
    .map((c) => c.text)
    .join("");
}

/** A path as the thread shows it in a diff header: relative to `cwd` when inside it. */
function displayPath(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(cwd, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

/** The item shape a tool execution opens with. */
export function openShape(tool: PiToolExecution, cwd: string): Extract<ThreadDelta, { kind: "item.open" }>["item"] {
  const a = tool.args;
  switch (tool.toolName) {
    case "bash":
      return { type: "command", command: str(a.command), cwd };
    case "read":
      return { type: "fileRead", path: str(a.path) };
    case "edit":
    case "write":
      return { type: "fileChange", changes: [] };
    default:
      return { type: "tool", tool: tool.toolName, args: a as JsonValue };
  }
}

/**
 * pi's placeholder for a command that printed nothing (pi 0.73.1 `core/tools/bash.js`
 * `formatOutput`: `snapshot.content || "(no output)"`, also before the exit trailer).
 */
const NO_OUTPUT = "(no output)";

/**
 * A bash result's output, exactly what the command printed (without pi's "(no output)"
 * placeholder, recordings/pi/approval-allow), and, when pi printed one, its exit code (never invented).
 */
export function bashOutcome(result: PiToolResult): { output: string; exitCode?: number } {
  const m = EXIT_TRAILER.exec(result.text);
  const printed = m ? result.text.slice(0, m.index) : result.text;
  const output = printed === NO_OUTPUT ? "" : printed;
  return m ? { output, exitCode: Number(m[1]) } : { output };
}

/**
 * The changes of a finished edit or write: an edit's diff converted from pi's format; a write's
 * content as the diff, with its hunk, from no file (recordings/pi/new-file-folder).
 */
function fileChanges(tool: PiToolExecution, result: PiToolResult, cwd: string) {
  const file = str(tool.args.path);
  if (tool.toolName === "write") {
    // pi's write creates or overwrites and reports neither the old content nor which it was: the
    // change is shown as the creation pi's call describes (the whole content written).
    const diff = textsUnifiedDiff(file, null, str(tool.args.content));
    return [{ path: file, kind: "add" as const, ...(diff !== undefined ? { diff } : {}) }];
  }
  const diff = typeof result.details?.diff === "string" ? unifiedDiffFromPi(result.details.diff, displayPath(file, cwd)) : undefined;
  return [{ path: file, kind: "update" as const, ...(diff ? { diff } : {}) }];
}

/**
 * What a read returned: the file's bytes pi kept when it cut the read (`details.truncation.content`,
 * before pi's `[Showing lines …]` notice; pi 0.73.1 `core/tools/read.js`), else the result's text —
 * the file's bytes for a whole text file (recordings/pi/turn-tools), pi's note for anything else.
 */
export function readResultText(result: PiToolResult): string {
  const truncation = result.details?.truncation as { content?: unknown; firstLineExceedsLimit?: unknown } | undefined;
  const kept = typeof truncation === "object" && truncation !== null && truncation.firstLineExceedsLimit !== true ? truncation.content : undefined;
  return typeof kept === "string" && !result.isError ? kept : result.text;
}

/**
 * The `item.close` of a finished tool execution. `approval` is the runtime's answer when the
 * approval gate asked about the call: its `approvalStatus`; a denied call closes failed with no
 * output and no change.
 */
export function closeDelta(tool: PiToolExecution, result: PiToolResult, cwd: string, approval: { approvalStatus?: ApprovalStatus }): ThreadDelta {
  const key = { providerItemId: tool.toolCallId };
  const status = result.isError ? ("failed" as const) : ("completed" as const);
  const denied = approval.approvalStatus === "denied";
  switch (tool.toolName) {
    case "bash": {
      // A denied command never ran: it has no output (pi's result is the gate's reason) and no exit code.
      if (denied) return { kind: "item.close", key, status, ...approval, item: { type: "command", command: str(tool.args.command), cwd } };
      const { output, exitCode } = bashOutcome(result);
      const code = exitCode === undefined ? {} : { exitCode };
      return { kind: "item.close", key, status, aggregatedOutput: output, ...code, ...approval, item: { type: "command", command: str(tool.args.command), cwd, aggregatedOutput: output, ...code } };
    }
    case "read": {
      const read = denied ? {} : { resultText: readResultText(result) };
      return { kind: "item.close", key, status, ...read, ...approval, item: { type: "fileRead", path: str(tool.args.path) } };
    }
    case "edit":
    case "write":
      return { kind: "item.close", key, status, ...approval, item: { type: "fileChange", changes: denied || result.isError ? [] : fileChanges(tool, result, cwd) } };
    default:
      return {
        kind: "item.close",
        key,
        status,
        ...approval,
        item: { type: "tool", tool: tool.toolName, args: tool.args as JsonValue, ...(result.isError ? { error: result.text } : { result: result.text }) },
      };
  }
}
