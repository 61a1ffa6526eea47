/**
 * The unified diff an agent sent for one file of an edit call, beside ACP's `diff` content
 * (`oldText`/`newText`, which several agents fill with the edited snippet only, so a diff built
 * from them has no hunk header and no context). Read by shape, never by the agent's name, and
 * kept exactly as sent (issue 37 "unified diffs with their hunks where the agent sends them"):
 * - `changes[<path>].unified_diff` of `rawOutput` or `rawInput` (codex-acp);
 * - `rawOutput.metadata.filediff.patch` naming the file, or `rawOutput.metadata.diff` (opencode);
 * - `rawOutput.fileDiff` (qwen);
 * - `rawOutput.detailedContent` (copilot's `diff --git`);
 * - `rawOutput` as text blocks holding one diff (claude-code-acp's `Index: …` text);
 * - `rawOutput.details.diff` in pi's line-numbered format (pi-acp forwards pi's `edit` result as
 *   `rawOutput`), written as a unified diff (bridge-kit/pi-diff.ts). pi computes it from the text
 *   it replaced, so it is there in every run; pi-acp's own `diff` content is not: it snapshots the
 *   old text when it handles pi's `tool_execution_start`, and when pi has written the file by
 *   then the texts are equal and pi-acp sends no `diff` entry (harness/record/README.md, agents
 *   that vary);
 * - `_meta.claudeCode.toolResponse.structuredPatch` naming the file (claude-agent-acp): hunks
 *   `{oldStart, oldLines, newStart, newLines, lines}`, written as a unified diff with headers
 *   `--- a/<path>` / `+++ b/<path>` (leading slashes off, as git writes them).
 * A text counts as a unified diff when it has a hunk header line (`@@ -a,b +c,d @@`). The ones
 * not keyed by path are taken only for a call that changes one file. Pure.
 */
import { unifiedDiffFromPi } from "../../bridge-kit/pi-diff.js";
import { readStructuredPatch, unifiedDiff as hunksUnifiedDiff } from "../../bridge-kit/structured-patch.js";
import { isRecord } from "../../protocol/json-value.js";
import type { AcpToolCallEvent } from "../dialects/types.js";

const HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m;

function unifiedDiff(value: unknown): string | undefined {
  return typeof value === "string" && HUNK_HEADER.test(value) ? value : undefined;
}

/** codex-acp's `changes` map: `{<path>: {type, unified_diff}}`. */
function keyedDiff(container: unknown, path: string): string | undefined {
  if (!isRecord(container) || !isRecord(container.changes)) return undefined;
  const change = container.changes[path];
  return isRecord(change) ? unifiedDiff(change.unified_diff) : undefined;
}

/** A diff the call's `rawOutput` holds for its one file, whatever its key. */
function singleFileDiff(raw: unknown, path: string): string | undefined {
  if (Array.isArray(raw)) {
    const texts = raw.filter((block) => isRecord(block) && block.type === "text").map((block) => unifiedDiff((block as Record<string, unknown>).text));
    const diffs = texts.filter((text): text is string => text !== undefined);
    return diffs.length === 1 ? diffs[0] : undefined;
  }
  if (!isRecord(raw)) return undefined;
  const metadata = isRecord(raw.metadata) ? raw.metadata : undefined;
  const filediff = isRecord(metadata?.filediff) ? metadata.filediff : undefined;
  if (filediff !== undefined && filediff.file === path) {
    const patch = unifiedDiff(filediff.patch);
    if (patch !== undefined) return patch;
  }
  return unifiedDiff(metadata?.diff) ?? unifiedDiff(raw.fileDiff) ?? unifiedDiff(raw.detailedContent) ?? piDiff(raw, path);
}

/** pi's line-numbered `details.diff` of a result, as a unified diff of `path`; undefined when absent or of another shape. */
function piDiff(raw: Record<string, unknown>, path: string): string | undefined {
  const diff = isRecord(raw.details) ? raw.details.diff : undefined;
  return typeof diff === "string" ? unifiedDiffFromPi(diff, path) : undefined;
}

/** Claude Code's `structuredPatch` of `path` (in `_meta.claudeCode.toolResponse`) as a unified diff. */
function structuredPatchDiff(event: AcpToolCallEvent, path: string): string | undefined {
  const claudeCode = event._meta?.claudeCode;
  const response = isRecord(claudeCode) ? claudeCode.toolResponse : undefined;
  if (!isRecord(response) || response.filePath !== path || !Array.isArray(response.structuredPatch)) return undefined;
  // Every hunk must be one: a patch with a hunk of another shape is not taken.
  const hunks = readStructuredPatch(response.structuredPatch);
  return hunks.length === response.structuredPatch.length ? hunksUnifiedDiff(path, hunks) : undefined;
}

/**
 * The unified diff the agent sent for `path` in this call, exactly as sent; `undefined` when it
 * sent none. `fileCount` is the number of files the call changes (an unkeyed diff needs 1).
 */
export function agentUnifiedDiff(event: AcpToolCallEvent, path: string, fileCount: number): string | undefined {
  const keyed = keyedDiff(event.rawOutput, path) ?? keyedDiff(event.rawInput, path) ?? structuredPatchDiff(event, path);
  if (keyed !== undefined) return keyed;
  return fileCount === 1 ? singleFileDiff(event.rawOutput, path) : undefined;
}
