/**
 * A patch of two lanes for people (`parity diff`, docs/design/00-product.md flow 5), built from the thread
 * diff (lane-diff.ts) instead of a text diff of the serialized lanes: one line per event
 * (compact JSON), changed events with a few unchanged ones around them, and the new side's ids
 * shown as the old-side ids they correspond to, so a consistent renumbering shows no change.
 * Costs O(changed events + context), whatever the size of the lanes.
 */
import type { LaneDiff } from "./lane-diff.js";
import type { SequenceOp } from "./lcs.js";
import { inOldNumbering } from "./id-correspondence.js";

/** Groups op positions into hunks: each changed op plus `context` ops either side. */
function hunkRanges(ops: readonly SequenceOp[], context: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  ops.forEach((op, index) => {
    if (op.kind === "equal") return;
    const from = Math.max(0, index - context);
    const to = Math.min(ops.length - 1, index + context);
    const last = ranges[ranges.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  });
  return ranges;
}

/**
 * The unified patch of one lane pair: `--- a/<label>`, `+++ b/<label>`, then per hunk
 * `@@ -<old first>,<old count> +<new first>,<new count> @@` (1-based event positions) and one line
 * per event: ` ` unchanged (the old side's text), `-` only in a, `+` only in b (in a's id
 * numbering). `""` when nothing differs.
 */
export function threadPatch(
  oldLane: readonly unknown[],
  newLane: readonly unknown[],
  diff: Pick<LaneDiff, "ops" | "differences" | "newToOldIds">,
  options: { context?: number; oldLabel: string; newLabel: string },
): string {
  if (diff.differences.length === 0) return "";
  const context = options.context ?? 3;
  const out = [`--- ${options.oldLabel}`, `+++ ${options.newLabel}`];
  const text = (value: unknown) => JSON.stringify(value) ?? "null";
  for (const [from, to] of hunkRanges(diff.ops, context)) {
    const slice = diff.ops.slice(from, to + 1);
    const olds = slice.filter((op) => op.kind !== "added") as Array<{ oldIndex: number }>;
    const news = slice.filter((op) => op.kind !== "removed") as Array<{ newIndex: number }>;
    const oldStart = olds.length > 0 ? olds[0]!.oldIndex + 1 : 0;
    const newStart = news.length > 0 ? news[0]!.newIndex + 1 : 0;
    out.push(`@@ -${oldStart},${olds.length} +${newStart},${news.length} @@`);
    for (const op of slice) {
      if (op.kind === "equal") out.push(` ${text(oldLane[op.oldIndex])}`);
      else if (op.kind === "removed") out.push(`-${text(oldLane[op.oldIndex])}`);
      else out.push(`+${text(inOldNumbering(newLane[op.newIndex], diff.newToOldIds))}`);
    }
  }
  return `${out.join("\n")}\n`;
}
