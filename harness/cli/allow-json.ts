/**
 * The shape `parity allow --json` prints: one object whatever the mode, so a script reads
 * `action` and `written` the same way for all three. Paths are relative to the working directory
 * when inside it (as `import --json` and `record --json` print them), absolute otherwise.
 *
 * - `add` (the default): the entry as written (after a position became a selector), its file and
 *   index, and the note `allow` prints in text (a rewritten or kept position), or null.
 * - `migrate` (`--migrate <file>`): per positional entry of the file, `to` (the selector it
 *   became) or `kept` (why it stayed a position); `changed` counts the rewritten ones.
 * - `prune` (`--prune`): each entry removed, with its file and index before the removal, and the
 *   cells with no complete verdict (then nothing is removed).
 *
 * `written` lists the files the run wrote (what to commit); empty when it wrote none.
 */
import type { AllowlistEntry } from "../compare/allowlist.js";

/** `parity allow --json` (see the module comment). */
export type AllowJson =
  | { action: "add"; written: string[]; file: string; index: number; entry: AllowlistEntry; note: string | null }
  | { action: "migrate"; written: string[]; file: string; changed: number; entries: Array<{ index: number; from: string; to: string | null; kept: string | null }> }
  | {
      action: "prune";
      written: string[];
      pruned: Array<{ file: string; index: number; entry: AllowlistEntry }>;
      incomplete: Array<{ provider: string; cell: string; status: string }>;
    };

/** `value` as `parity allow --json` prints it: indented two spaces, newline-terminated. */
export function allowJson(value: AllowJson): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
