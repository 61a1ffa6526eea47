/**
 * Unified diffs from Claude Code's `structuredPatch` (spec 60: an Edit's `tool_use_result`
 * carries `structuredPatch:[{oldStart, oldLines, newStart, newLines, lines:[" ctx","-old","+new"]}]`
 * and no unified-diff string). Pure.
 */
import { isRecord } from "../protocol/json-value.js";

/** One hunk of a `structuredPatch`. */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** Reads the hunks of a `structuredPatch` value; hunks of another shape are left out. */
export function readStructuredPatch(value: unknown): PatchHunk[] {
  if (!Array.isArray(value)) return [];
  const numeric = (hunk: Record<string, unknown>, key: string) => typeof hunk[key] === "number";
  return value.filter(
    (hunk): hunk is PatchHunk =>
      isRecord(hunk) && ["oldStart", "oldLines", "newStart", "newLines"].every((key) => numeric(hunk, key)) && Array.isArray(hunk.lines) && hunk.lines.every((line) => typeof line === "string"),
  );
}

/** The path in a diff header: `/` separators, leading slashes stripped (as git writes `a/<path>`). */
function headerPath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^\/+/, "");
}

/**
 * A unified diff of `path` from its hunks: `--- a/<p>` (`/dev/null` when `created`),
 * `+++ b/<p>`, then per hunk `@@ -oldStart,oldLines +newStart,newLines @@` and its lines, every
 * line ending in `\n`. Returns `undefined` without hunks (nothing to show, never an empty diff).
 */
export function unifiedDiff(path: string, hunks: readonly PatchHunk[], created = false): string | undefined {
  if (hunks.length === 0) return undefined;
  const name = headerPath(path);
  let out = `--- ${created ? "/dev/null" : `a/${name}`}\n+++ b/${name}\n`;
  for (const hunk of hunks) {
    out += `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n`;
    for (const line of hunk.lines) out += `${line}\n`;
  }
  return out;
}

/**
 * The diff of a file written whole (`Write` creating a file: Claude Code sends an empty
 * `structuredPatch`): every line of `content` added, as one hunk from `/dev/null`.
 */
export function creationDiff(path: string, content: string): string | undefined {
  const lines = content === "" ? [] : content.replace(/\n$/, "").split("\n");
  if (lines.length === 0) return undefined;
  return unifiedDiff(path, [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: lines.length, lines: lines.map((line) => `+${line}`) }], true);
}
