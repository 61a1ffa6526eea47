/**
 * Codex thread items → grammar-v3 item shapes (spec 60 "Mapping onto a thread"; spec 10 §1.4).
 * Pure functions: no ids minted, no clock, no I/O.
 */
import path from "node:path";
import type { ItemShape, ItemStatus } from "../protocol/thread-delta.js";
import type { JsonValue } from "../protocol/thread-delta-blocks.js";
import { isJsonValue } from "../protocol/thread-delta-blocks.js";
import type { CommandAction, ThreadItem } from "./wire.js";

/** The item types whose text streams (they open empty and settle with the item's own text). */
export const TEXT_ITEM_TYPES: ReadonlySet<string> = new Set(["agentMessage", "reasoning", "plan"]);

/** Items the bridge leaves out: the runtime's own input is already on the thread (`turn/input/accepted`). */
export const SKIPPED_ITEM_TYPES: ReadonlySet<string> = new Set(["userMessage", "hookPrompt"]);

/**
 * The command a person typed, out of Codex's `/bin/bash -lc '<cmd>'` wrapper (spec 60: the
 * command is reported wrapped; a command holding single quotes is wrapped in double quotes,
 * `/bin/bash -lc "<cmd>"`): the inner command with the shell's quoting undone (`'\''` in single
 * quotes; `\"`, `\\`, `\$`, `` \` `` in double quotes). Any other command is returned unchanged.
 */
export function unwrapShellCommand(command: string): string {
  const single = /^(?:\/usr)?\/bin\/(?:ba|z)?sh -lc '((?:[^']|'\\'')*)'$/s.exec(command);
  if (single) return single[1]!.replace(/'\\''/g, "'");
  const double = /^(?:\/usr)?\/bin\/(?:ba|z)?sh -lc "((?:[^"\\]|\\.)*)"$/s.exec(command);
  return double ? double[1]!.replace(/\\([\\"$`])/g, "$1") : command;
}

/** A command still in Codex's shell wrapper after {@link unwrapShellCommand}: a quoting it does not undo. */
const STILL_WRAPPED = /^(?:\/usr)?\/bin\/(?:ba|z)?sh -lc /;

/**
 * The command of a `commandExecution` as typed: unwrapped from Codex's shell wrapper; where that
 * wrapper's quoting is one {@link unwrapShellCommand} does not undo (codex quotes `$$` apart:
 * `/bin/bash -lc "sh -c '… -TERM "'$$; …'"'"`, codex command-signal), the command Codex parsed
 * itself, its one `commandActions` entry's `command`.
 */
function typedCommand(item: ThreadItem): string {
  const unwrapped = unwrapShellCommand(item.command ?? "");
  if (!STILL_WRAPPED.test(unwrapped)) return unwrapped;
  const actions = item.commandActions ?? [];
  const parsed = actions.length === 1 ? actions[0]!.command : undefined;
  return typeof parsed === "string" && parsed.trim() !== "" ? parsed : unwrapped;
}

/** The single file-reading action of a command, when reading one file is all it does. */
function readAction(actions: readonly CommandAction[] | undefined): CommandAction | undefined {
  if (!actions || actions.length !== 1) return undefined;
  const [action] = actions;
  return action!.type === "read" && typeof action!.path === "string" ? action : undefined;
}

/** A `search` action: Codex's `search` (content) or `listFiles` (list), alone in the command. */
function searchAction(actions: readonly CommandAction[] | undefined): CommandAction | undefined {
  if (!actions || actions.length !== 1) return undefined;
  const [action] = actions;
  return action!.type === "search" || action!.type === "listFiles" ? action : undefined;
}

/**
 * The shape of a `commandExecution`: a `read` action alone is a `fileRead {path, cmd}`, a
 * `search`/`listFiles` action alone a `search`, anything else a `command {command (unwrapped),
 * cwd, aggregatedOutput?, exitCode?, durationMs?}` (the terminal fields only when `terminal`).
 */
export function commandShape(item: ThreadItem, terminal: boolean): ItemShape {
  const cmd = typedCommand(item);
  const read = readAction(item.commandActions);
  if (read) return { type: "fileRead", path: read.path!, cmd };
  const search = searchAction(item.commandActions);
  if (search) {
    const mode = search.type === "listFiles" ? "list" : "content";
    return { type: "search", mode, query: search.query ?? search.path ?? cmd, ...(search.path ? { path: search.path } : {}), cmd };
  }
  return {
    type: "command",
    command: cmd,
    cwd: item.cwd ?? "",
    ...(terminal && typeof item.aggregatedOutput === "string" ? { aggregatedOutput: item.aggregatedOutput } : {}),
    ...(terminal && typeof item.exitCode === "number" ? { exitCode: item.exitCode } : {}),
    ...(terminal && typeof item.durationMs === "number" ? { durationMs: item.durationMs } : {}),
  };
}

/**
 * A unified diff of one Codex file change: `--- a/<path>` / `+++ b/<path>` headers (`/dev/null`
 * for an added or deleted file; paths relative to `cwd` when inside it) over Codex's hunks. An
 * added file's `diff` is its whole content, made into one `@@ -0,0 +1,n @@` hunk.
 */
export function unifiedDiff(change: { path: string; kind: { type: string; move_path?: string | null | undefined }; diff: string }, cwd: string): string {
  const rel = (p: string) => {
    const relative = cwd && path.isAbsolute(p) ? path.relative(cwd, p) : p;
    return relative.startsWith("..") ? p.replace(/^\/+/, "") : relative;
  };
  const kind = change.kind.type;
  const from = kind === "add" ? "/dev/null" : `a/${rel(change.path)}`;
  const to = kind === "delete" ? "/dev/null" : `b/${rel(change.kind.move_path ?? change.path)}`;
  let body = change.diff;
  if (!body.startsWith("@@") && (kind === "add" || kind === "delete")) {
    const lines = body.endsWith("\n") ? body.slice(0, -1).split("\n") : body.split("\n");
    const sign = kind === "add" ? "+" : "-";
    const range = kind === "add" ? `-0,0 +1,${lines.length}` : `-1,${lines.length} +0,0`;
    body = body === "" ? "" : `@@ ${range} @@\n${lines.map((l) => `${sign}${l}`).join("\n")}\n`;
  }
  return `--- ${from}\n+++ ${to}\n${body}`;
}

/** The shape of a `fileChange`: one change per file, each with its unified diff. */
export function fileChangeShape(item: ThreadItem, cwd: string): ItemShape {
  return {
    type: "fileChange",
    changes: (item.changes ?? []).map((change) => {
      const kind = change.kind.type === "add" || change.kind.type === "delete" ? change.kind.type : "update";
      return {
        path: change.path,
        kind,
        ...(change.kind.move_path ? { movePath: change.kind.move_path } : {}),
        diff: unifiedDiff(change, cwd),
      };
    }),
  };
}

const json = (value: unknown): JsonValue | undefined => (value === undefined || !isJsonValue(value) ? undefined : value);

/** The shape of an `mcpToolCall` or `dynamicToolCall`: a `tool {tool, server?, args, result?, error?, durationMs?}`. */
export function toolShape(item: ThreadItem, terminal: boolean): ItemShape {
  const result = item.type === "dynamicToolCall" ? json(item.contentItems) : json(item.result);
  const error = json(item.error);
  return {
    type: "tool",
    tool: item.tool ?? item.type,
    ...(item.server ? { server: item.server } : {}),
    ...(json(item.arguments) !== undefined ? { args: json(item.arguments)! } : {}),
    ...(terminal && result !== undefined && result !== null ? { result } : {}),
    ...(terminal && error !== undefined && error !== null ? { error } : {}),
    ...(terminal && typeof item.durationMs === "number" ? { durationMs: item.durationMs } : {}),
  };
}

/** The text fields of a text item as the shape of its close (`text`, or reasoning's `summary`/`content`). */
export function textShape(item: ThreadItem, streamed: { text: string; summary: string }): ItemShape {
  if (item.type === "reasoning") {
    const content = Array.isArray(item.content) ? item.content.filter((c): c is string => typeof c === "string") : [];
    const summary = item.summary ?? [];
    return {
      type: "reasoning",
      summary: summary.length > 0 ? summary : streamed.summary ? [streamed.summary] : [],
      content: content.length > 0 ? content : streamed.text ? [streamed.text] : [],
    };
  }
  const text = typeof item.text === "string" && item.text !== "" ? item.text : streamed.text;
  return { type: item.type === "plan" ? "plan" : "agentMessage", text };
}

/**
 * The shape of any item the bridge keeps, or undefined for a type it has no shape for (the
 * caller reports those as `unhandled`). `terminal` adds what only a completed item has.
 */
export function itemShape(item: ThreadItem, cwd: string, terminal: boolean): ItemShape | undefined {
  switch (item.type) {
    case "commandExecution":
      return commandShape(item, terminal);
    case "fileChange":
      return fileChangeShape(item, cwd);
    case "mcpToolCall":
    case "dynamicToolCall":
      return toolShape(item, terminal);
    case "webSearch":
      return { type: "webSearch", queries: [item.query && item.query !== "" ? item.query : "(web search)"] };
    case "imageView":
      return { type: "imageView", path: item.path ?? "" };
    case "contextCompaction":
      return { type: "compaction" };
    case "agentMessage":
    case "reasoning":
    case "plan":
      return textShape(item, { text: "", summary: "" });
    default:
      return undefined;
  }
}

/** A completed item's status: `completed`, else `failed` (`failed`, `declined`), `interrupted` while still running. */
export function terminalStatus(status: unknown): ItemStatus {
  if (status === "completed" || status === undefined) return "completed";
  if (status === "inProgress") return "interrupted";
  return "failed";
}
