/**
 * The runtime's permission modes as Claude Code's (spec 60 "Mode per turn: set_permission_mode").
 * Pure.
 */

/** Claude Code's permission modes the bridge sets. */
export type ClaudePermissionMode = "default" | "acceptEdits" | "bypassPermissions" | "plan";

/** The mode a fresh CLI starts in: the shipped settings' `permissions.defaultMode` (spec 60 offline configuration). */
export const INITIAL_PERMISSION_MODE: ClaudePermissionMode = "default";

/**
 * The CLI mode of a runtime `permissionMode`: `full` → `bypassPermissions` (nothing asks),
 * `accept-edits` → `acceptEdits` (file edits pass, commands ask), `plan` → `plan`; anything
 * else, or none, → `default` (the CLI asks before every call that is not read-only).
 */
export function claudePermissionMode(permissionMode: string | undefined): ClaudePermissionMode {
  if (permissionMode === "full") return "bypassPermissions";
  if (permissionMode === "accept-edits") return "acceptEdits";
  if (permissionMode === "plan") return "plan";
  return "default";
}
