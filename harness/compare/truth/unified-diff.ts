/**
 * Does a lane's diff say what happened to the file? (issue 37, build point 1.) A unified diff is
 * true when applying it to the file's content before the edit gives its content after; one
 * without hunks (`@@` lines) or without the context its hunks claim applies to nothing.
 */
import { applyPatch, parsePatch } from "diff";

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
