/**
 * The approval subject of a `session/request_permission` (spec 20 §3.8 step 3): the same
 * classification the timeline uses, applied to the permission's own `toolCall`, falling back to
 * the in-flight call with the same id.
 */
import type { Presentation } from "../../protocol/thread-delta.js";
import type { AcpToolCallEvent } from "../dialects/types.js";
import { readToolCallFields } from "./acp-update-schemas.js";
import { classifyOperation, genericToolName, toolCallPaths } from "./classify.js";
import { genericToolPresentation, presentationTitle } from "../dialects/presentation.js";
import type { ToolCallTracker } from "./tool-calls.js";

/** `itemId` used when a permission request carries no tool call (spec 20 §3.8). */
export const PERMISSION_FALLBACK_ITEM_ID = "acp-permission";

/** The subject an approval asks about (spec 20 §1.5 subjects, without the bridge-owned fields). */
export type AcpPermissionSubject =
  | { kind: "command"; itemId: string; command: string }
  | { kind: "file_change"; itemId: string; writeScope: string | null }
  | { kind: "tool_use"; itemId: string; tool: string; presentation: Presentation };

function normalizePath(path: string): string {
  const collapsed = path.replace(/\\/g, "/").replace(/\/+/g, "/");
  return collapsed.length > 1 ? collapsed.replace(/\/$/, "") : collapsed;
}

/** The normalized path that contains every other path, or null (spec 20 §3.8 `writeScope`). */
export function writeScopeOf(paths: readonly string[]): string | null {
  const normalized = [...new Set(paths.map(normalizePath))];
  for (const candidate of normalized) {
    const prefix = candidate.endsWith("/") ? candidate : `${candidate}/`;
    if (normalized.every((path) => path === candidate || path.startsWith(prefix))) return candidate;
  }
  return null;
}

/**
 * Classifies a permission's `toolCall` into an approval subject (spec 20 §3.8 step 3): command
 * (for Cursor the backticked title), file change with its write scope, else `tool_use` with the
 * generic tool name and the classifier's presentation (falling back to the in-flight call when
 * the permission has no title). No tool call → `acp-permission`, tool `tool`.
 */
export function permissionSubject(tools: ToolCallTracker, toolCall: unknown): AcpPermissionSubject {
  const own = readToolCallFields(toolCall);
  if (own === undefined) {
    return {
      kind: "tool_use",
      itemId: PERMISSION_FALLBACK_ITEM_ID,
      tool: "tool",
      presentation: genericToolPresentation(undefined, "ACP permission request"),
    };
  }
  const inFlight = tools.inFlight(own.toolCallId);
  let subjectEvent: AcpToolCallEvent = own;
  let operation = classifyOperation(own);
  if (operation.type === "generic" && inFlight !== undefined) {
    subjectEvent = inFlight;
    operation = classifyOperation(inFlight);
  }
  if (operation.type === "command") return { kind: "command", itemId: own.toolCallId, command: operation.command };
  if (operation.type === "fileChange") {
    const ownPaths = toolCallPaths(own);
    return { kind: "file_change", itemId: own.toolCallId, writeScope: writeScopeOf(ownPaths.length > 0 ? ownPaths : operation.paths) };
  }
  const described: AcpToolCallEvent = own.title === undefined && inFlight !== undefined ? inFlight : subjectEvent;
  const { item, presentation: classified } = tools.classify(described);
  const tool = item.type === "tool" ? item.tool : genericToolName(described);
  // Copy: an injected tool's presentation object belongs to its definition.
  const presentation = { ...classified };
  if (presentation.title === undefined) {
    const title = presentationTitle(described.title);
    if (title !== undefined) presentation.title = title;
  }
  return { kind: "tool_use", itemId: own.toolCallId, tool, presentation };
}
