/**
 * The unified diff of a file change an agent sent as two texts, with its hunks (issue 37:
 * "unified diffs with their hunks"), for every bridge: ACP `diff` content (`oldText`/`newText`,
 * which ACP defines as the file's content before and after; `oldText` absent or null for a new
 * file), an ACP client write (`fs/write_text_file`: the file as the bridge read it before writing,
 * and the content it wrote), pi's `write` (the content it wrote). Built with the `diff` package's `structuredPatch`, three lines of context,
 * headers `--- a/<path>` (`--- /dev/null` for a new file) and `+++ b/<path>`, leading slashes
 * off as git writes them; a text without a final newline gets the `\ No newline at end of file`
 * marker. Applying the diff to the old text gives the new text exactly.
 *
 * The positions in the hunk headers are those of the texts as the agent sent them: an agent that
 * puts only the edited snippet in `oldText`/`newText` (against ACP's definition) gets the diff of
 * that snippet. A diff the agent sent itself is never replaced by this one (the ACP bridge's
 * stack/acp/translate/agent-diff.ts comes first). Pure.
 */
import { structuredPatch } from "diff";

/** Lines of context around each change, as `diff -u` and git write them. */
export const DIFF_CONTEXT_LINES = 3;

/** Path as written in the diff headers: backslashes become `/`, leading slashes are stripped. */
function headerPath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^\/+/, "");
}

/**
 * The unified diff turning `oldText` (null: the file did not exist) into `newText` for `path`;
 * `undefined` when the texts are the same (nothing changed, nothing to show).
 */
export function textsUnifiedDiff(path: string, oldText: string | null, newText: string): string | undefined {
  const before = oldText ?? "";
  if (before === newText) return undefined;
  const name = headerPath(path);
  const from = oldText === null ? "/dev/null" : `a/${name}`;
  const patch = structuredPatch(from, `b/${name}`, before, newText, undefined, undefined, { context: DIFF_CONTEXT_LINES });
  let out = `--- ${from}\n+++ b/${name}\n`;
  for (const hunk of patch.hunks) {
    // `structuredPatch` numbers an empty side's start 1; a unified diff writes it 0 (`@@ -0,0 +1 @@`).
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    out += `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@\n`;
    for (const line of hunk.lines) out += `${line}\n`;
  }
  return out;
}
