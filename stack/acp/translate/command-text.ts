/**
 * A command's output as it printed it (spec 30 §1.1; house rule "a bridge translates; it never
 * invents"): agents wrap what a shell command printed in text of their own before they put it in a
 * tool call's `content` — a markdown fence (Claude Code: "```console\n…\n```"), a trailer naming
 * the shell and its exit code (copilot: "<shellId: 0 completed with exit code 0>"), or a labelled
 * report (qwen: "Command: …\nDirectory: …\nOutput: …\nError: …\nExit Code: 0\n…"), or a placeholder
 * sentence where the command printed nothing (Claude Code: "(Bash completed with no output)",
 * opencode: "(no output)"), or a header naming a failed command's exit code (Claude Code:
 * "Exit code 3\n…"). These readers
 * recognise each wrapping by its shape, never by the agent's name, and give back the command's own
 * text and the exit code the agent reported in it.
 */
import { isRecord } from "../../protocol/json-value.js";

/** The text and the exit code an agent's wrapping carried (`exitCode` only when it named one). */
export interface UnwrappedCommandText {
  text: string;
  exitCode?: number;
}

/** A whole-text markdown fence: an opening line of backticks with an optional info string, the body, the same fence closing. */
const FENCE = /^(`{3,})[A-Za-z0-9_-]*\n([\s\S]*?)\n?\1\s*$/;
/** Claude Code's first line of a failed command's result, before what the command printed. */
const EXIT_CODE_HEADER = /^Exit code (-?\d+)(?:\n|$)/;
/** A placeholder an agent writes for a command that printed nothing. */
const NO_OUTPUT = /^\((?:[A-Za-z]+ completed with )?no output\)$/i;
/** copilot's trailer line after a shell command's output. */
const SHELL_TRAILER = /(?:^|\n)<shellId: [^>\n]* completed with exit code (-?\d+)>\s*$/;
/**
 * qwen's labelled report: the fields in its order; Output and Error may span lines. An output qwen
 * cut itself comes after its notice of the cut ("Tool output was too large and has been
 * truncated.\n… saved to: <file>\n…\nTruncated part of the output:\n", acp-qwen long-output): that
 * notice is qwen's message to its model, not output, and comes off with the labels.
 */
const LABELLED_REPORT =
  /^(Tool output was too large[^\n]*\n(?:[^\n]*\n)*?Truncated part of the output:\n)?Command: [^\n]*\nDirectory: [^\n]*\nOutput: ([\s\S]*?)\nError: ([\s\S]*?)\nExit Code: (-?\d+|\(none\))(?:\n[\s\S]*)?$/;

/**
 * Unwraps the agent's wrapping from a command's content text (see the module doc): one fence,
 * trailer or labelled report, then a no-output placeholder inside it becomes no text; text with no
 * known wrapping is returned as is. "(none)" and "(empty)" in a labelled report are no text.
 */
export function unwrapCommandText(text: string): UnwrappedCommandText {
  const unwrapped = unwrapLayer(text);
  const header = EXIT_CODE_HEADER.exec(unwrapped.text);
  if (header) {
    unwrapped.text = unwrapped.text.slice(header[0].length);
    unwrapped.exitCode ??= Number(header[1]);
  }
  return isNoOutputPlaceholder(unwrapped.text) ? { ...unwrapped, text: "" } : unwrapped;
}

/** True for an agent's "printed nothing" placeholder ("(no output)"), which no command printed. */
export function isNoOutputPlaceholder(text: string): boolean {
  return NO_OUTPUT.test(text.trim());
}

function unwrapLayer(text: string): UnwrappedCommandText {
  const fence = FENCE.exec(text);
  if (fence) return { text: fence[2]! };
  const trailer = SHELL_TRAILER.exec(text);
  if (trailer) {
    // copilot starts its trailer on a line of its own: the newline before it is the output's last
    // byte ("3 notes.txt\n<shellId…>", its shell_exit outputPreview "3 notes.txt\n"), except for a
    // command that printed nothing, where the text is the newline and the trailer alone.
    const before = text.slice(0, trailer.index + (text[trailer.index] === "\n" ? 1 : 0));
    return { text: before === "\n" ? "" : before, exitCode: Number(trailer[1]) };
  }
  const report = LABELLED_REPORT.exec(text);
  if (report) {
    // qwen writes "(empty)" for an Output and "(none)" for an Error the command did not print.
    const part = (value: string): string => (value === "(none)" || value === "(empty)" ? "" : value);
    const output = part(report[2]!);
    const errors = part(report[3]!);
    const joined = output.length > 0 && errors.length > 0 ? `${output}\n${errors}` : output + errors;
    return report[4] === "(none)" ? { text: joined } : { text: joined, exitCode: Number(report[4]) };
  }
  return { text };
}

/**
 * The exit code a `rawOutput` names in a structured entry of its own rather than at its top level:
 * copilot's `contents: [{type: "shell_exit", exitCode}]`. `undefined` when there is none.
 */
export function structuredExitCode(raw: Record<string, unknown> | undefined): number | undefined {
  const contents = raw?.contents;
  if (!Array.isArray(contents)) return undefined;
  for (const entry of contents) {
    if (isRecord(entry) && entry.type === "shell_exit" && typeof entry.exitCode === "number" && Number.isFinite(entry.exitCode)) return entry.exitCode;
  }
  return undefined;
}
