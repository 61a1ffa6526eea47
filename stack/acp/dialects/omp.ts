/**
 * The omp dialect (spec 30 §1.5): bash results carried in `rawOutput.details`, and the
 * compaction outcome read from the agent's reply to `/compact`.
 */
import type { AcpCommandResult, AcpCompactionOutcome, AcpDialect, AcpToolCallEvent } from "./types.js";
import { isRecord } from "../../protocol/json-value.js";
import { escapeRegExp } from "../../protocol/text.js";

/** omp's notice of an output it cut (`[Showing lines 1-4720 and 15283-20001 of 20001; … elided. …]`), last, after a blank line. */
const OMP_CUT_NOTICE = /\n\n\[Showing lines [^\]\n]*\]$/;

/** Keys of the shared result shape; when any is present omp's reader steps aside. */
const GENERIC_RESULT_KEYS = ["exitCode", "exit_code", "stdout", "stderr", "output_for_prompt"] as const;

/**
 * omp's command result (spec 30 §1.5): only for `execute` calls with a non-blank, non-`async`
 * command whose `rawOutput` has text `content` blocks and a `details` object with `exitCode` or
 * `wallTimeMs`, no `details.async` and none of the shared keys. Output = the text blocks joined by
 * newlines minus a trailing "Command exited with code N" (N = details.exitCode) and
 * "Wall time: X.XX seconds" (matching wallTimeMs), each with the blank line before it; nothing
 * else trimmed. Exit code = details.exitCode, else 0 for a
 * completed run without timeout/signal. Anything else → undefined (shared reader).
 */
export function ompCommandResult(event: AcpToolCallEvent): AcpCommandResult | undefined {
  if (event.kind !== "execute") return undefined;
  const input = isRecord(event.rawInput) ? event.rawInput : undefined;
  const command = input?.command;
  if (typeof command !== "string" || command.trim().length === 0 || input?.async === true) return undefined;
  const raw = event.rawOutput;
  if (!isRecord(raw) || !Array.isArray(raw.content) || !isRecord(raw.details)) return undefined;
  const details = raw.details;
  if (details.exitCode === undefined && details.wallTimeMs === undefined) return undefined;
  if (details.async !== undefined && details.async !== false) return undefined;
  if (GENERIC_RESULT_KEYS.some((key) => raw[key] !== undefined)) return undefined;
  if (raw.signal !== undefined && raw.signal !== null) return undefined;
  if (raw.timed_out === true) return undefined;

  const texts = raw.content.filter((block): block is Record<string, unknown> => isRecord(block) && block.type === "text" && typeof block.text === "string").map((block) => block.text as string);
  // An output omp cut itself (`details.meta.truncation`) ends with its notice of the cut after the
  // trailers ("…\n\nWall time: 0.17 seconds\n\n[Showing lines 1-4720 and 15283-20001 of 20001; …]",
  // acp-omp long-output): the notice is how omp marks the cut, so it stays, after the output; the
  // trailers before it come off as below.
  const cutNotice = isRecord(details.meta) && isRecord(details.meta.truncation) ? OMP_CUT_NOTICE.exec(texts.join("\n")) : null;
  let output = cutNotice ? texts.join("\n").slice(0, cutNotice.index) : texts.join("\n");
  const exitCode = typeof details.exitCode === "number" ? details.exitCode : undefined;
  // The real omp 18.2.3 writes the wall time first, then the exit code (spec 50), each after a
  // blank line: "<output>\n\nWall time: 2.75 seconds\n\nCommand exited with code 3". Exactly
  // those separators come off, in whichever order the trailers stand, so the output keeps its own
  // last newline ("3 notes.txt\n"); a trailer standing otherwise comes off with the blanks around it.
  const trailers: string[] = [];
  if (typeof details.wallTimeMs === "number") trailers.push(`Wall time: ${escapeRegExp((details.wallTimeMs / 1000).toFixed(2))} seconds`);
  if (exitCode !== undefined) trailers.push(`Command exited with code ${exitCode}`);
  const patterns = trailers.flatMap((trailer) => [new RegExp(`\\n\\n${trailer}$`), new RegExp(`\\s*${trailer}\\s*$`)]);
  for (let stripped = true; stripped;) {
    stripped = false;
    for (const pattern of patterns) {
      const next = output.replace(pattern, "");
      if (next !== output) [output, stripped] = [next, true];
    }
  }
  if (cutNotice) output += cutNotice[0];
  const result: AcpCommandResult = {};
  if (output.length > 0) result.output = output;
  if (exitCode !== undefined) result.exitCode = exitCode;
  else if (event.status === "completed" && details.timedOut !== true && (details.signal === undefined || details.signal === null)) {
    result.exitCode = 0;
  }
  return result;
}

/**
 * The output so far of a running omp command (issue 39, streamed output): omp's in-progress
 * `content` starts with the command line ("$ wc -l notes.txt") and repeats the output in several
 * blocks (acp-omp turn-tools seq 46), so the output is read where omp keeps it, `rawOutput.content`:
 * its trailers off once `details` names them (the close's reader), else its text blocks as sent.
 * `null` when it printed nothing yet; `undefined` for a call that is not a command (shared reader).
 */
export function ompStreamedCommandOutput(update: AcpToolCallEvent): string | null | undefined {
  if (update.kind !== "execute") return undefined;
  const result = ompCommandResult(update);
  if (result !== undefined) return result.output ?? null;
  const raw = update.rawOutput;
  if (!isRecord(raw) || !Array.isArray(raw.content)) return null;
  const texts = raw.content.filter((block): block is Record<string, unknown> => isRecord(block) && block.type === "text" && typeof block.text === "string").map((block) => block.text as string);
  return texts.length > 0 ? texts.join("\n") : null;
}

/** Outcome of a `/compact` run as omp reports it in text (spec 30 §1.5). */
export type OmpCompactionOutcome = AcpCompactionOutcome;

/**
 * Reads omp's reply to `/compact` (spec 30 §1.5): "compaction failed" plus "nothing to compact"
 * or "already compacted" → skipped (detail = text); "compaction failed" alone → failed; else completed.
 */
export function ompCompactionOutcome(text: string): OmpCompactionOutcome {
  const lower = text.toLowerCase();
  if (!lower.includes("compaction failed")) return { status: "completed" };
  if (lower.includes("nothing to compact") || lower.includes("already compacted")) return { status: "skipped", detail: text.trim() };
  return { status: "failed", detail: text.trim() };
}

/** The `omp` dialect (spec 30 §1.5); it has no maintenance. */
export const ompAcpDialect: AcpDialect = Object.freeze({
  id: "omp",
  commandResult: ompCommandResult,
  compactionOutcome: ompCompactionOutcome,
  streamedCommandOutput: ompStreamedCommandOutput,
});
