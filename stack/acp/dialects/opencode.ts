/**
 * The opencode dialect (spec 30 §1.6): bash results carried as `output`/`metadata.exit`, the
 * Task tool (reported as kind `think` with a `subagent_type`) as a `delegation`, and the extra
 * child environment of its session agent.
 */
import { delegationPresentation } from "../translate/presentation.js";
import type { AcpDialect, AcpToolCallEvent } from "./types.js";

/** Extra environment of an opencode session agent (spec 30 §1.6). */
export const OPENCODE_CHILD_ENV: Readonly<Record<string, string>> = Object.freeze({
  OPENCODE_CLIENT: "acp",
  OPENCODE_ENABLE_QUESTION_TOOL: "false",
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * Adds `stdout` (from string `output`, else `metadata.output`) and `exitCode` (from
 * `metadata.exit`) to `rawOutput`, each only when no shared key of its group is present
 * (spec 30 §1.6). Returns undefined when nothing would change.
 */
export function normalizeOpencodeCommandEvent(event: AcpToolCallEvent): AcpToolCallEvent | undefined {
  const raw = event.rawOutput;
  if (!isRecord(raw)) return undefined;
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  const output = typeof raw.output === "string" ? raw.output : typeof metadata.output === "string" ? metadata.output : undefined;
  const exit = typeof metadata.exit === "number" ? metadata.exit : undefined;
  const hasSharedOutput = raw.stdout !== undefined || raw.stderr !== undefined || raw.output_for_prompt !== undefined;
  const hasSharedExit = raw.exitCode !== undefined || raw.exit_code !== undefined;
  const additions: Record<string, unknown> = {};
  if (output !== undefined && !hasSharedOutput) additions.stdout = output;
  if (exit !== undefined && !hasSharedExit) additions.exitCode = exit;
  if (Object.keys(additions).length === 0) return undefined;
  return { ...event, rawOutput: { ...raw, ...additions } };
}

/** The `opencode` dialect (spec 30 §1.6). */
export const opencodeAcpDialect: AcpDialect = Object.freeze({
  id: "opencode",
  normalizeCommandEvent: normalizeOpencodeCommandEvent,
  classifyToolCall(event: AcpToolCallEvent) {
    // Known from the reference's tests only (spec 30 §1.6, uncertain): Task is kind `think`
    // with a `subagent_type`; a plain think call stays with the shared classifier.
    if (event.kind !== "think" || !isRecord(event.rawInput)) return undefined;
    const input = event.rawInput;
    const subagentType = nonEmpty(input.subagent_type);
    if (subagentType === undefined) return undefined;
    const label = nonEmpty(input.description) ?? nonEmpty(input.prompt) ?? event.title ?? "Subagent";
    const metadata = isRecord(event.rawOutput) && isRecord(event.rawOutput.metadata) ? event.rawOutput.metadata : {};
    const childRef = nonEmpty(metadata.sessionId) ?? event.toolCallId;
    return {
      item: { type: "delegation" as const, childRef, label, background: input.background === true },
      presentation: delegationPresentation(label, subagentType),
    };
  },
});
