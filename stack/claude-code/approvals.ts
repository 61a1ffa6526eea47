/**
 * `can_use_tool` ↔ `interaction/request` (spec 60 "Approval"; spec 20 §1.5, §3.8). The CLI asks
 * with `{subtype:"can_use_tool", tool_name, input, tool_use_id, permission_suggestions, …}`; the
 * runtime's decision goes back as `{behavior:"allow", updatedInput, toolUseID}` (the input
 * unchanged) or `{behavior:"deny", message}`. Pure: building payloads and answers only.
 */
import { isRecord } from "../protocol/json-value.js";
import { openItemOf, readToolUse } from "./tools.js";
import { stringField } from "./wire.js";

/** What the bridge tells the CLI when the runtime denies a call (the CLI hands it to the model as the tool result). */
export const DENIED_MESSAGE = "The user denied this tool call.";

/** A parsed `can_use_tool` request. */
export interface ToolPermissionRequest {
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
}

/** Reads a control request's `request` as `can_use_tool`, or undefined when it is another subtype. */
export function readToolPermission(request: unknown): ToolPermissionRequest | undefined {
  if (!isRecord(request) || request.subtype !== "can_use_tool") return undefined;
  const toolName = stringField(request, "tool_name") ?? "";
  return { toolName, toolUseId: stringField(request, "tool_use_id") ?? "", input: isRecord(request.input) ? request.input : {} };
}

/**
 * The approval payload of `interaction/request` (spec 20 §1.5 subjects): a Bash call is a
 * `command`, a file tool a `file_change` scoped to its path, anything else `tool_use`. The item
 * id is the `tool_use` id, the item the thread already shows.
 */
export function approvalPayload(permission: ToolPermissionRequest, cwd: string): Record<string, unknown> {
  const tool = readToolUse({ type: "tool_use", id: permission.toolUseId || "claude-code-permission", name: permission.toolName, input: permission.input });
  const item = tool ? openItemOf(tool, cwd) : undefined;
  const itemId = tool?.id ?? "claude-code-permission";
  let subject: Record<string, unknown>;
  if (item?.type === "command") {
    subject = { kind: "command", itemId, command: item.command, cwd, actions: [{ type: "unknown", command: item.command }], sessionGrant: null };
  } else if (item?.type === "fileChange") {
    subject = { kind: "file_change", itemId, writeScope: item.changes[0]?.path ?? null, sessionGrant: null };
  } else {
    subject = { kind: "tool_use", itemId, tool: permission.toolName, presentation: { label: { pending: permission.toolName, completed: permission.toolName }, icon: { glyph: "Wrench" } } };
  }
  return { kind: "approval", subject, reason: null, availableDecisions: ["allow_once", "deny"] };
}

/** The `can_use_tool` answer for `allowed`. */
export function permissionAnswer(permission: ToolPermissionRequest, allowed: boolean): Record<string, unknown> {
  return allowed ? { behavior: "allow", updatedInput: permission.input, toolUseID: permission.toolUseId } : { behavior: "deny", message: DENIED_MESSAGE };
}
