/**
 * Does a diff say what happened to the file? (issue 37, build point 1.) A unified diff is true
 * when applying it to the file's content before the edit gives its content after; one without
 * hunks (`@@` lines) or without the context its hunks claim applies to nothing.
 *
 * Agents send their diffs in more than one format (what the committed recordings' agent-side
 * lanes hold, `provider→bridge`): {@link agentDiff} reads each one a bridge of this project
 * reads, with the bridge's own parser, as a unified diff, so the truth judge can cite it as the
 * change the bridge had whatever its format.
 */
import { applyPatch, parsePatch } from "diff";
import { unifiedDiffFromPi } from "../../../stack/bridge-kit/pi-diff.js";
import { readStructuredPatch, unifiedDiff } from "../../../stack/bridge-kit/structured-patch.js";

/**
 * True when `diff` (a unified diff of one file) turns `before` (null: the file did not exist)
 * into `after` exactly. A diff with no hunk never applies: it tells no position.
 */
export function diffApplies(diff: string, before: string | null, after: string): boolean {
  let patches;
  try {
    patches = parsePatch(diff);
  } catch {
    return false;
  }
  if (patches.length !== 1 || patches[0]!.hunks.length === 0) return false;
  const result = applyPatch(before ?? "", patches[0]!);
  return result === after;
}

/**
 * The diff formats agents send, as the project's bridges read them:
 * - `unified`: a text with a hunk header line `@@ -a,b +c,d @@` (codex's `changes[].diff` and
 *   `turn/diff/updated`, codex-acp's `unified_diff`, opencode, qwen, copilot's `diff --git`);
 * - `pi`: pi's line-numbered `details.diff` (`+<n> text`, `-<n> text`, ` <n> text`, ` <blank> ...`;
 *   pi and pi-acp, stack/bridge-kit/pi-diff.ts);
 * - `structuredPatch`: Claude Code's hunks `[{oldStart, oldLines, newStart, newLines, lines}]`
 *   (claude-code's `tool_use_result`, claude-agent-acp's `_meta.claudeCode.toolResponse`;
 *   stack/bridge-kit/structured-patch.ts).
 * Two texts (ACP's `oldText`/`newText`, a written file's content) are no diff format: the judge
 * reads them as texts. omp's `<n>|text` lines (acp-omp `rawOutput.details.diff`) no bridge reads,
 * so none is read here: acp-omp's change is in its `fs/write_text_file` content.
 */
export type AgentDiffFormat = "unified" | "pi" | "structuredPatch";

/** Each format in words, for the evidence lines a person reads (`--explain`). */
export const AGENT_DIFF_WORDS: Readonly<Record<AgentDiffFormat, string>> = {
  unified: "a unified diff",
  pi: "pi's line-numbered diff, read as a unified diff",
  structuredPatch: "Claude Code's structuredPatch hunks, read as a unified diff",
};

/** An agent's diff read as a unified diff, and the format it was sent in. */
export interface AgentDiff {
  format: AgentDiffFormat;
  unified: string;
}

const HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m;
/** A pi diff line that changes something (`+<n> ` or `-<n> `): a text without one shows no change. */
const PI_CHANGE = /^[+-]\s*\d+ /m;

/**
 * `value` (a JSON value from an agent-side line) read as a diff in one of the {@link AgentDiffFormat}s;
 * `undefined` when it is none of them. The headers of a converted diff name a placeholder file:
 * only its hunks matter to {@link diffApplies}.
 */
export function agentDiff(value: unknown): AgentDiff | undefined {
  if (typeof value === "string") {
    if (HUNK_HEADER.test(value)) return { format: "unified", unified: value };
    if (!PI_CHANGE.test(value)) return undefined;
    const unified = unifiedDiffFromPi(value, "file");
    return unified === undefined ? undefined : { format: "pi", unified };
  }
  if (!Array.isArray(value) || value.length === 0) return undefined;
  // Every element a hunk, as the bridges take it (stack/acp/translate/agent-diff.ts).
  const hunks = readStructuredPatch(value);
  if (hunks.length !== value.length) return undefined;
  const unified = unifiedDiff("file", hunks);
  return unified === undefined ? undefined : { format: "structuredPatch", unified };
}
