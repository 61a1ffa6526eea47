/**
 * The old text of a file an agent is about to edit, taken when the edit's `tool_call` opens
 * (spec 20 §2.5 `fs/write_text_file`: the bridge diffs the old text against the new).
 *
 * Why: an agent may write the file itself around the time it asks the client to write it
 * (opencode does), so reading the old text when `fs/write_text_file` arrives races the agent and
 * the fileChange diff comes and goes from run to run. The file as it was when the agent
 * announced the edit (kind `edit`, with `locations`, before its permission request) is the
 * stable baseline; a write with no baseline still reads the disk.
 */
import { readFileSync, statSync } from "node:fs";
import type { EditBaselines } from "../state/session.js";
import { isPathInside, resolveAgentPath } from "./fs-scope.js";

/** Largest file whose text is kept as a baseline (bytes); larger files read the disk at write time. */
export const EDIT_BASELINE_MAX_BYTES = 4 * 1024 * 1024;

/** Baselines of one session: absolute path → old text (`null`: the file did not exist); the session record's type. */
export type { EditBaselines };

/**
 * Follows one `session/update`: an edit `tool_call` or in-progress `tool_call_update` (kind
 * `edit`; opencode names its `locations` only from the in-progress update, before it asks for
 * permission and writes) records the baseline of every workspace file in `locations` that has
 * none yet; a completed or failed edit update forgets its files' baselines, so a later edit never
 * diffs against a stale one. Paths outside `roots` are ignored (the write is refused there
 * anyway). Never throws.
 */
export function noteEditBaselines(baselines: EditBaselines, update: unknown, cwd: string, roots: readonly string[]): void {
  const u = update as { sessionUpdate?: unknown; kind?: unknown; status?: unknown; locations?: unknown };
  if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") return;
  if (u.kind !== "edit" || !Array.isArray(u.locations)) return;
  const settled = u.status === "completed" || u.status === "failed";
  for (const location of u.locations) {
    const raw = (location as { path?: unknown } | null)?.path;
    if (typeof raw !== "string" || raw === "") continue;
    const path = resolveAgentPath(cwd, raw);
    if (settled) {
      baselines.delete(path);
      continue;
    }
    if (baselines.has(path) || !roots.some((root) => isPathInside(root, path))) continue;
    const text = readBaseline(path);
    if (text !== undefined) baselines.set(path, text);
  }
}

/** Takes (and forgets) the baseline of `path`; `undefined` when none was recorded. */
export function takeEditBaseline(baselines: EditBaselines, path: string): string | null | undefined {
  if (!baselines.has(path)) return undefined;
  const text = baselines.get(path);
  baselines.delete(path);
  return text;
}

/** The file's text; `null` when it does not exist; `undefined` (no baseline) when too large or unreadable. */
function readBaseline(path: string): string | null | undefined {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  if (size > EDIT_BASELINE_MAX_BYTES) return undefined;
  try {
    // Synchronous on purpose: the agent's own write may follow at once, and this is one small
    // workspace file per announced edit.
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
