/**
 * Unified-style diff text for a file change that carries `oldText`/`newText` but no provider
 * diff (spec 10 §2.3, File-change diffs). Pure: no clock, no state.
 */
import type { FileChangeEntry } from "../protocol/thread-delta.js";
import { walkLcsScript } from "./lcs.js";

/** Path as written in the diff headers: backslashes become `/`, leading slashes are stripped. */
export function diffHeaderPath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^\/+/, "");
}

/**
 * The `-`/`+` lines turning `oldLines` into `newLines`: the common prefix and suffix are trimmed,
 * the middle is aligned by a longest common subsequence, and every line ends with `\n`.
 * Returns `""` when nothing changed.
 */
export function changedLines(oldLines: readonly string[], newLines: readonly string[]): string {
  let start = 0;
  while (start < oldLines.length && start < newLines.length && oldLines[start] === newLines[start]) start++;
  let oldEnd = oldLines.length;
  let newEnd = newLines.length;
  while (oldEnd > start && newEnd > start && oldLines[oldEnd - 1] === newLines[newEnd - 1]) {
    oldEnd--;
    newEnd--;
  }
  const a = oldLines.slice(start, oldEnd);
  const b = newLines.slice(start, newEnd);
  let out = "";
  walkLcsScript(a, b, (step, i, j) => {
    if (step === "removed") out += `-${a[i]}\n`;
    else if (step === "added") out += `+${b[j]}\n`;
  });
  return out;
}

/**
 * The diff of one file change: the provider's `diff` when given, else one built from
 * `oldText`/`newText` when `newText` is present (headers `--- a/<p>` / `+++ b/<p>`, `/dev/null`
 * for an add). Returns `undefined` for a falsy result (empty provider diff, identical texts, a
 * delete with `oldText` only), which callers omit (spec 10 §2.3).
 */
export function fileChangeDiff(change: FileChangeEntry): string | undefined {
  if (change.diff !== undefined) return change.diff || undefined;
  if (change.newText === undefined) return undefined;
  const body = changedLines(splitLines(change.oldText ?? ""), splitLines(change.newText));
  if (!body) return undefined;
  const path = diffHeaderPath(change.path);
  const from = change.kind === "add" ? "/dev/null" : `a/${path}`;
  return `--- ${from}\n+++ b/${path}\n${body}`;
}

/** Lines of `text`; a final newline ends the last line rather than starting an empty one. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
