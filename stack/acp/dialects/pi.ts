/**
 * The pi dialect (pi-acp, the ACP adapter of the pi coding agent; recordings/acp-pi): pi-acp
 * sends a `tool_call`'s title as pi's tool name and maps only `read`, `write` and `edit` to ACP
 * kinds, so its `bash` call arrives as kind `other` with the command in `rawInput.command`. Its
 * output is the text of `rawOutput.content` (pi's tool result, which pi-acp also renders as the
 * call's `content`), and a run that exited non-zero is reported only by a trailer pi appends to
 * that text after a blank line, with the call `failed`. This dialect makes the call the command
 * it is and takes that exit code out of the text into the item (issue 37).
 *
 * A run that succeeded, and one ended by a signal, close `completed` with the output alone:
 * pi-acp says nothing that tells them apart (recordings/acp-pi/command-signal closes `completed`
 * with "before the signal\n" and no trailer), so no exit code is given for either.
 */
import { shapePresentation } from "./presentation.js";
import type { AcpClassifiedToolCall, AcpCommandResult, AcpDialect, AcpToolCallEvent } from "./types.js";
import { isRecord } from "../../protocol/json-value.js";

/** pi's name of its shell tool, which pi-acp sends as the call's title. */
export const PI_BASH_TOOL = "bash";

/**
 * The trailer pi appends to a failed run's text: the output (its own last newline kept), a blank
 * line, then `Command exited with code N` closing the text (recordings/acp-pi/command-fails:
 * "…something went wrong\n\n\nCommand exited with code 3").
 */
export const PI_EXIT_TRAILER = /\n\nCommand exited with code (\d+)$/;

/** The command of a pi `bash` call (title `bash`, kind `other` or `execute`, non-blank `rawInput.command`); else undefined. */
function bashCommand(event: AcpToolCallEvent): string | undefined {
  if (event.title !== PI_BASH_TOOL || (event.kind !== "other" && event.kind !== "execute")) return undefined;
  const command = isRecord(event.rawInput) ? event.rawInput.command : undefined;
  return typeof command === "string" && command.trim().length > 0 ? command : undefined;
}

/**
 * The text blocks of pi's `rawOutput.content`, joined with nothing between them as pi-acp joins
 * them into the call's `content`; `undefined` when there are none (pi-acp then renders the object
 * itself as `content`, `{"content": []}` before a command printed anything).
 */
function rawOutputText(event: AcpToolCallEvent): string | undefined {
  const raw = event.rawOutput;
  if (!isRecord(raw) || !Array.isArray(raw.content)) return undefined;
  const texts = raw.content.filter((block): block is Record<string, unknown> => isRecord(block) && block.type === "text" && typeof block.text === "string").map((block) => block.text as string);
  return texts.length > 0 ? texts.join("") : undefined;
}

/**
 * A pi `bash` call of kind `other` as a `command` item (command = `rawInput.command`; pi-acp
 * names no directory or duration, so `cwd` is empty and there is no `durationMs`). Undefined for
 * any other call (the shared classifier; a kind `execute` call is a command there already).
 */
export function classifyPiBash(event: AcpToolCallEvent): AcpClassifiedToolCall | undefined {
  if (event.kind !== "other") return undefined;
  const command = bashCommand(event);
  if (command === undefined) return undefined;
  const item = { type: "command" as const, command, cwd: "" };
  return { item, presentation: shapePresentation(item, event.title) };
}

/**
 * A pi `bash` call's result at its close: output = the text of `rawOutput.content` exactly as
 * sent, minus {@link PI_EXIT_TRAILER} when the call closes `failed` (then exit code = N); nothing
 * else is trimmed. A `completed` call gets no exit code (pi-acp names none, for a success as for a
 * run ended by a signal). Undefined when the call is not a pi `bash` or `rawOutput` has no text
 * blocks (the shared reader).
 */
export function piCommandResult(event: AcpToolCallEvent): AcpCommandResult | undefined {
  if (bashCommand(event) === undefined) return undefined;
  const text = rawOutputText(event);
  if (text === undefined) return undefined;
  const trailer = event.status === "failed" ? PI_EXIT_TRAILER.exec(text) : null;
  if (trailer === null) return { output: text };
  const output = text.slice(0, trailer.index);
  return { ...(output.length > 0 ? { output } : {}), exitCode: Number(trailer[1]) };
}

/**
 * The output so far of a running pi `bash` call: the text of the update's `rawOutput.content`, as
 * sent; `null` while it has none (its `content` is then pi-acp's JSON rendering of the empty
 * result, not output). Undefined for any other call (the shared reader).
 */
export function piStreamedCommandOutput(update: AcpToolCallEvent): string | null | undefined {
  if (bashCommand(update) === undefined) return undefined;
  return rawOutputText(update) ?? null;
}

/** The `pi` dialect (pi-acp); it has no maintenance. */
export const piAcpDialect: AcpDialect = Object.freeze({
  id: "pi",
  classifyToolCall: classifyPiBash,
  commandResult: piCommandResult,
  streamedCommandOutput: piStreamedCommandOutput,
});
