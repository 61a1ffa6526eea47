/**
 * The shared tool classifier (spec 20 §3.3): the operation (what approvals and the timeline
 * agree on) and the core item shape of a merged tool call, without any dialect.
 */
import type { FileChangeEntry, ItemShape, Presentation } from "../../protocol/thread-delta.js";
import type { AcpToolCallEvent } from "../dialects/types.js";
import { boundToolPayload, toolOutputText } from "./output.js";
import { genericToolPresentation, shapePresentation } from "../dialects/presentation.js";
import { isRecord } from "../../protocol/json-value.js";
import { agentUnifiedDiff } from "./agent-diff.js";
import { textsUnifiedDiff } from "../../bridge-kit/texts-diff.js";

/** What a tool call does, as approvals see it (spec 20 §3.3 "shared operation classifier"). */
export type AcpOperation = { type: "command"; command: string } | { type: "fileChange"; kind: "update" | "delete"; paths: string[] } | { type: "generic"; paths: string[] };

function nonBlank(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

function rawInputField(event: AcpToolCallEvent, ...keys: string[]): string | undefined {
  if (!isRecord(event.rawInput)) return undefined;
  for (const key of keys) {
    const value = nonBlank(event.rawInput[key]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function diffEntries(event: AcpToolCallEvent) {
  return (event.content ?? []).filter((entry) => entry.type === "diff" && nonBlank(entry.path) !== undefined);
}

/** Paths: diff paths + `locations[].path`; if none, the first of `rawInput.path|filePath|file_path`. */
export function toolCallPaths(event: AcpToolCallEvent): string[] {
  const paths: string[] = [];
  for (const entry of diffEntries(event)) paths.push(entry.path as string);
  for (const location of event.locations ?? []) if (nonBlank(location.path) !== undefined) paths.push(location.path);
  if (paths.length > 0) return paths;
  const fallback = rawInputField(event, "path", "filePath", "file_path");
  return fallback !== undefined ? [fallback] : [];
}

/** The command of an `execute` call: non-blank `rawInput.command`, else the title (backticks kept). */
export function toolCallCommand(event: AcpToolCallEvent): string | undefined {
  if (event.kind !== "execute") return undefined;
  return rawInputField(event, "command") ?? nonBlank(event.title);
}

/** gemini's head of a shell call's text content naming the directory it runs in. */
const CWD_HEADER = /^\[current working directory ([^\]\n]+)\]/;

/**
 * The directory a command ran in, as the agent reported it: `rawInput.cwd` (codex-acp, opencode),
 * else the `cwd` of a structured `shell_exit` entry of `rawOutput.contents` (copilot, at the
 * close), else the directory gemini names at the head of the call's text content
 * ("[current working directory /tmp/w] (Count the lines…)"). `undefined` when the agent did not say (the shape's `cwd` is then empty: the bridge does
 * not put the session's directory in its place).
 */
export function commandCwd(event: AcpToolCallEvent): string | undefined {
  const fromInput = rawInputField(event, "cwd");
  if (fromInput !== undefined) return fromInput;
  const contents = isRecord(event.rawOutput) ? event.rawOutput.contents : undefined;
  if (Array.isArray(contents)) for (const entry of contents) if (isRecord(entry) && entry.type === "shell_exit") return nonBlank(entry.cwd);
  for (const entry of event.content ?? []) {
    const text = entry.type === "content" ? entry.content?.text : undefined;
    const named = typeof text === "string" ? CWD_HEADER.exec(text) : null;
    if (named) return named[1];
  }
  return undefined;
}

/**
 * How long a command ran, in whole milliseconds, as the agent reported it: `rawOutput.durationMs`
 * (Cursor), `rawOutput.duration` as `{secs, nanos}` (codex-acp), `rawOutput.details.wallTimeMs`
 * (omp). Rounded to the millisecond; `undefined` when the agent did not say.
 */
export function commandDurationMs(event: AcpToolCallEvent): number | undefined {
  const raw = isRecord(event.rawOutput) ? event.rawOutput : undefined;
  if (raw === undefined) return undefined;
  const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
  if (finite(raw.durationMs)) return Math.round(raw.durationMs);
  const duration = raw.duration;
  if (isRecord(duration) && finite(duration.secs) && finite(duration.nanos)) return Math.round(duration.secs * 1000 + duration.nanos / 1e6);
  if (isRecord(raw.details) && finite(raw.details.wallTimeMs)) return Math.round(raw.details.wallTimeMs);
  return undefined;
}

/** Classifies the operation (spec 20 §3.3 steps 1–2). Locations alone never imply a write. */
export function classifyOperation(event: AcpToolCallEvent): AcpOperation {
  const command = toolCallCommand(event);
  if (command !== undefined) return { type: "command", command };
  const paths = toolCallPaths(event);
  if (paths.length === 0) return { type: "generic", paths };
  if (diffEntries(event).length > 0 || event.kind === "edit") return { type: "fileChange", kind: "update", paths };
  if (event.kind === "delete") return { type: "fileChange", kind: "delete", paths };
  return { type: "generic", paths };
}

/** The `tool` slot of a generic item: `name`, else `rawKind`, else `kind`, else `tool` (spec 30 §1.1). */
export function genericToolName(event: AcpToolCallEvent): string {
  return event.name ?? event.rawKind ?? event.kind ?? "tool";
}

/**
 * A generic `tool` shape with bounded `args` (rawInput), `result` (rawOutput) and, on failure,
 * `error` (output text) (spec 30 §1.1; spec 20 §3.3 (h)).
 */
export function genericToolShape(event: AcpToolCallEvent): ItemShape {
  const shape: ItemShape = { type: "tool", tool: genericToolName(event) };
  if (event.rawInput !== undefined) shape.args = boundToolPayload(event.rawInput, true);
  if (event.rawOutput !== undefined) shape.result = boundToolPayload(event.rawOutput, false);
  if (event.status === "failed") {
    const error = toolOutputText(event);
    if (error !== undefined) shape.error = error;
  }
  return shape;
}

/** `rawInput` keys an edit tool names the text it replaces, and the text it puts in its place, with. */
const SNIPPET_OLD_KEYS = ["old_string", "oldString", "old_str", "oldText", "old_text"];
const SNIPPET_NEW_KEYS = ["new_string", "newString", "new_str", "newText", "new_text"];

/**
 * True when a `diff` entry's texts are the call's replaced snippet (`rawInput.old_string` →
 * `new_string` and the like, as Claude Code's adapters, copilot and hermes send them) rather than
 * the file before and after, as ACP defines them: such texts say nothing of where in the file the
 * snippet sits.
 */
function isEditSnippet(event: AcpToolCallEvent, oldText: string | null, newText: string): boolean {
  if (!isRecord(event.rawInput) || oldText === null) return false;
  const input = event.rawInput;
  return SNIPPET_OLD_KEYS.some((key) => input[key] === oldText) && SNIPPET_NEW_KEYS.some((key) => input[key] === newText);
}

/**
 * A diff entry's path as the call names it in full: an entry path that is a bare relative name
 * (qwen's completed write says `hello.txt` for `/tmp/…/src/new/hello.txt`, acp-qwen new-file-folder)
 * is the call's one absolute location that ends with it, when there is exactly one; else as sent.
 */
function fullPathOf(event: AcpToolCallEvent, entryPath: string): string {
  if (entryPath.startsWith("/")) return entryPath;
  const fuller = [...new Set((event.locations ?? []).map((l) => l.path).filter((p) => typeof p === "string" && p.startsWith("/") && p.endsWith(`/${entryPath}`)))];
  return fuller.length === 1 ? fuller[0]! : entryPath;
}

function fileChanges(event: AcpToolCallEvent, operation: Extract<AcpOperation, { type: "fileChange" }>): FileChangeEntry[] {
  const diffs = diffEntries(event);
  if (diffs.length === 0) {
    // No `diff` entry: the diff the agent sent elsewhere in the call still reaches the thread
    // (pi-acp leaves the entry out when pi wrote the file before pi-acp read its old text, yet
    // forwards pi's own diff in `rawOutput`: agent-diff.ts).
    const path = operation.paths[0] as string;
    const diff = operation.paths.length === 1 ? agentUnifiedDiff(event, path, 1) : undefined;
    return [{ path, kind: operation.kind, ...(diff !== undefined ? { diff } : {}) }];
  }
  return diffs.map((entry) => {
    // An empty old text is how agents that send texts say the file is new (qwen, copilot: their
    // new-file-folder recordings); ACP's absent or null old text says the same.
    const change: FileChangeEntry = { path: fullPathOf(event, entry.path as string), kind: typeof entry.oldText === "string" && entry.oldText !== "" ? "update" : "add" };
    // The agent's own unified diff, hunks and context included, when it sent one (agent-diff.ts);
    // else the diff of the file texts it sent, with its hunks (bridge-kit/texts-diff.ts). Texts that are the
    // call's own replaced snippet tell no position in the file: no hunk is made up for them (the
    // assembler shows their lines without one).
    const newText = typeof entry.newText === "string" ? entry.newText : undefined;
    const oldText = change.kind === "add" ? null : (entry.oldText as string);
    const fromTexts = newText !== undefined && !isEditSnippet(event, oldText, newText) ? textsUnifiedDiff(change.path, oldText, newText) : undefined;
    const diff = agentUnifiedDiff(event, change.path, diffs.length) ?? fromTexts;
    if (diff !== undefined) change.diff = diff;
    if (typeof entry.oldText === "string") change.oldText = entry.oldText;
    if (typeof entry.newText === "string") change.newText = entry.newText;
    return change;
  });
}

const SINGLE_URL = /https?:\/\/[^\s`'"<>]+/g;

function titlePathToken(title: string | undefined): string | undefined {
  const tokens = [...(title ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  if (tokens.length !== 1) return undefined;
  const token = (tokens[0] as string).trim();
  return /^[/~.]/.test(token) ? token : undefined;
}

/**
 * The shell command a read ran, as the agent named it: the one `read` entry of the command it parsed
 * (`rawInput.parsed_cmd: [{type: "read", cmd: "cat /tmp/…/notes.txt"}]`, codex-acp, whose
 * `rawInput.command` is the argv `["/bin/bash", "-lc", …]`), else a string `rawInput.command` or
 * `cmd`. `undefined` when the read was no command.
 */
function readCommand(event: AcpToolCallEvent): string | undefined {
  const parsed = isRecord(event.rawInput) && Array.isArray(event.rawInput.parsed_cmd) ? event.rawInput.parsed_cmd.filter(isRecord) : [];
  const reads = parsed.filter((entry) => entry.type === "read" && nonBlank(entry.cmd) !== undefined);
  if (reads.length === 1) return nonBlank(reads[0]!.cmd);
  return rawInputField(event, "command", "cmd");
}

function coreShape(event: AcpToolCallEvent, operation: AcpOperation): ItemShape | undefined {
  if (operation.type === "command") {
    const durationMs = commandDurationMs(event);
    return { type: "command", command: operation.command, cwd: commandCwd(event) ?? "", ...(durationMs !== undefined ? { durationMs } : {}) };
  }
  if (operation.type === "fileChange") return { type: "fileChange", changes: fileChanges(event, operation) };
  switch (event.kind) {
    case "read": {
      const path = operation.paths[0] ?? titlePathToken(event.title);
      const cmd = readCommand(event);
      return path !== undefined ? { type: "fileRead", path, ...(cmd !== undefined ? { cmd } : {}) } : undefined;
    }
    case "search": {
      const content = rawInputField(event, "pattern", "query", "regex");
      const glob = content === undefined ? rawInputField(event, "glob", "globPattern") : undefined;
      const query = content ?? glob;
      if (query === undefined) return undefined;
      const root = rawInputField(event, "path", "directory");
      const shape: ItemShape = { type: "search", mode: content !== undefined ? "content" : "path", query };
      if (root !== undefined) shape.path = root;
      return shape;
    }
    case "fetch": {
      const urls = [...(event.title ?? "").matchAll(SINGLE_URL)].map((match) => match[0]);
      const url = rawInputField(event, "url", "uri") ?? (urls.length === 1 ? urls[0] : undefined);
      return url !== undefined ? { type: "webFetch", url, pattern: null } : undefined;
    }
    case "think": {
      const thought = toolOutputText(event) ?? rawInputField(event, "thought", "thinking");
      return { type: "reasoning", summary: [], content: thought !== undefined ? [thought] : [] };
    }
    default:
      return undefined;
  }
}

/**
 * The shared shape and presentation of a merged tool call (spec 20 §3.3 (b)–(h)): a core shape
 * when its required fields exist, else a generic `tool`.
 */
export function classifySharedToolCall(event: AcpToolCallEvent): { item: ItemShape; presentation: Presentation } {
  const item = coreShape(event, classifyOperation(event));
  if (item !== undefined) return { item, presentation: shapePresentation(item, event.title) };
  return { item: genericToolShape(event), presentation: genericToolPresentation(event.kind, event.title) };
}
