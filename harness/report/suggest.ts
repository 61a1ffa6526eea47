/**
 * "What to do" lines (spec 40 point 9): the `parity allow …` command that would accept a
 * difference and the `parity rerecord …` command that would refresh a cell.
 */
import { allowlistPathProblem } from "../compare/pointer.js";
import { formatPointer, parsePointer } from "../compare/pointer.js";

/** Quotes one shell word for POSIX shells when it holds anything beyond safe characters. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The allowlist path to suggest for a lane difference, or `undefined` when no entry can mask it
 * (a whole event, a key-order change, a counter). When the two sides put the event at different
 * positions, the position becomes `*`, since a positional path masks the same position on both sides.
 */
export function suggestedAllowPath(diff: { path: string; oldIndex?: number; newIndex?: number }): string | undefined {
  if (allowlistPathProblem(diff.path) !== undefined) return undefined;
  if (diff.oldIndex !== undefined && diff.newIndex !== undefined && diff.oldIndex !== diff.newIndex) {
    return formatPointer(["*", ...parsePointer(diff.path).slice(1)]);
  }
  return diff.path;
}

/** `parity allow --provider P --cell C --path X --pr '#<PR>' --reason '<why>'`. */
export function allowCommand(provider: string, cell: string, path: string): string {
  return [
    "parity allow",
    `--provider ${shellQuote(provider)}`,
    `--cell ${shellQuote(cell)}`,
    `--path ${shellQuote(path)}`,
    "--pr '#<PR>'",
    "--reason '<why this is intended>'",
  ].join(" ");
}

/** `parity rerecord --provider P --cell C`. */
export function rerecordCommand(provider: string, cell: string): string {
  return `parity rerecord --provider ${shellQuote(provider)} --cell ${shellQuote(cell)}`;
}
