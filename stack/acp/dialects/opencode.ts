/**
 * The opencode dialect (spec 30 §1.6): bash results carried as `output`/`metadata.exit`, the
 * Task tool (reported as kind `think`; opencode 1.18 sends its first `tool_call` with title `task`
 * and an empty `rawInput`, and `subagent_type` only in the `in_progress` update) as a
 * `delegation`, and the extra child environment of its session agent.
 */
import { delegationPresentation } from "./presentation.js";
import type { AcpClassifiedToolCall, AcpDialect, AcpToolCallEvent } from "./types.js";
import { isRecord, nonEmptyString } from "../../protocol/json-value.js";

/** Extra environment of an opencode session agent (spec 30 §1.6). */
export const OPENCODE_CHILD_ENV: Readonly<Record<string, string>> = Object.freeze({
  OPENCODE_CLIENT: "acp",
  OPENCODE_ENABLE_QUESTION_TOOL: "false",
});

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

/** The tool name opencode reports as the title of a Task call before its input is known. */
export const OPENCODE_TASK_TOOL = "task";

/** Label of a Task call whose `description` (and `prompt`) has not arrived yet. */
export const OPENCODE_DEFAULT_TASK_LABEL = "Subagent";

/**
 * True when a call is opencode's Task tool (spec 30 §1.6): kind `think` with a `subagent_type`,
 * or — the first `tool_call` opencode sends, before the input streams in — kind `think`, title
 * `task` and no `thought`/`thinking` in `rawInput`. opencode maps only its `task` tool to `think`;
 * a think call carrying a thought stays reasoning (shared classifier).
 */
export function isOpencodeTaskCall(event: AcpToolCallEvent): boolean {
  if (event.kind !== "think") return false;
  const input = isRecord(event.rawInput) ? event.rawInput : {};
  if (nonEmptyString(input.subagent_type) !== undefined) return true;
  return event.title === OPENCODE_TASK_TOOL && input.thought === undefined && input.thinking === undefined;
}

/**
 * opencode's Task call as a `delegation` (spec 30 §1.6): label = `description` (else `prompt`,
 * else the title unless it is the bare tool name, else "Subagent"), detail = `subagent_type`,
 * childRef = `rawOutput.metadata.sessionId` once present (else the toolCallId), background =
 * `rawInput.background === true`. Undefined for any other call.
 */
export function classifyOpencodeTask(event: AcpToolCallEvent): AcpClassifiedToolCall | undefined {
  if (!isOpencodeTaskCall(event)) return undefined;
  const input = isRecord(event.rawInput) ? event.rawInput : {};
  const title = event.title !== OPENCODE_TASK_TOOL ? nonEmptyString(event.title) : undefined;
  const label = nonEmptyString(input.description) ?? nonEmptyString(input.prompt) ?? title ?? OPENCODE_DEFAULT_TASK_LABEL;
  const metadata = isRecord(event.rawOutput) && isRecord(event.rawOutput.metadata) ? event.rawOutput.metadata : {};
  const childRef = nonEmptyString(metadata.sessionId) ?? event.toolCallId;
  return {
    item: { type: "delegation" as const, childRef, label, background: input.background === true },
    presentation: delegationPresentation(label, nonEmptyString(input.subagent_type)),
  };
}

/** Env switches that keep opencode offline: no models.dev catalog fetch, no self-update (spec 30 §1.6). */
export const OPENCODE_OFFLINE_ENV = Object.freeze({ OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" } as const);

/**
 * opencode's maintenance (spec 30 §1.6, reference one version): the sign-in command only. The
 * reference's OpenCode Go usage reader calls a vendor endpoint; spec 30 §2.1 keeps usage to Cursor.
 */
export const OPENCODE_ACP_MAINTENANCE = Object.freeze({ loginCommand: "opencode auth login" });

/**
 * The `opencode` dialect (spec 30 §1.6). The Task call is a delegation from its first
 * `tool_call` on; the translator re-opens it when a later update (the one carrying
 * `subagent_type`, description and prompt) changes its label, detail or childRef.
 */
export const opencodeAcpDialect: AcpDialect = Object.freeze({
  id: "opencode",
  normalizeCommandEvent: normalizeOpencodeCommandEvent,
  classifyToolCall: classifyOpencodeTask,
  maintenance: OPENCODE_ACP_MAINTENANCE,
  childEnv: OPENCODE_CHILD_ENV,
  offlineEnv: OPENCODE_OFFLINE_ENV,
});
