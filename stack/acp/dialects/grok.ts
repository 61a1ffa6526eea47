/**
 * The Grok Build dialect (spec 30 §1.4): tool identity from `_meta["x.ai/tool"]`, the
 * `spawn_subagent` tool as a `delegation`, and context-window accounting from session models and
 * prompt results.
 */
import { delegationPresentation } from "./presentation.js";
import type { AcpDialect, AcpToolCallEvent, AcpToolIdentity } from "./types.js";
import { isAcpToolKind } from "./types.js";
import { isRecord, nonEmptyString } from "../../protocol/json-value.js";

/** The `_meta` key of Grok's tool side channel. */
export const GROK_TOOL_META_KEY = "x.ai/tool";
/** Grok's sub-agent tool name. */
export const GROK_SUBAGENT_TOOL = "spawn_subagent";

/** `_meta["x.ai/tool"]` → `{name?, kind?}`: a non-empty name, only a valid ACP kind; else undefined. */
export function grokToolIdentity(event: AcpToolCallEvent): AcpToolIdentity | undefined {
  const meta = event._meta?.[GROK_TOOL_META_KEY];
  if (!isRecord(meta)) return undefined;
  const identity: AcpToolIdentity = {};
  const name = nonEmptyString(meta.name);
  if (name !== undefined) identity.name = name;
  if (isAcpToolKind(meta.kind)) identity.kind = meta.kind;
  return identity.name === undefined && identity.kind === undefined ? undefined : identity;
}

/**
 * Context size: `_meta.totalContextTokens` of the session models in a `session/new|load|resume|fork`
 * result — the current model first, else the first model with `_meta` (spec 30 §1.4). Tokens.
 */
export function grokContextSizeFromSetup(result: unknown): number | undefined {
  if (!isRecord(result) || !isRecord(result.models) || !Array.isArray(result.models.availableModels)) return undefined;
  const models = result.models.availableModels.filter(isRecord);
  const current = models.find((model) => model.modelId === (result.models as Record<string, unknown>).currentModelId);
  const chosen = current && isRecord(current._meta) ? current : models.find((model) => isRecord(model._meta));
  const size = chosen && isRecord(chosen._meta) ? chosen._meta.totalContextTokens : undefined;
  return typeof size === "number" && Number.isFinite(size) ? size : undefined;
}

/**
 * Context used: the prompt result's `_meta` — `usage.inputTokens` → `inputTokens` →
 * `usage.totalTokens` → `totalTokens` (spec 30 §1.4). Tokens; undefined when none is a number.
 */
export function grokContextUsageFromPromptResult(result: unknown): number | undefined {
  if (!isRecord(result) || !isRecord(result._meta)) return undefined;
  const meta = result._meta;
  const usage = isRecord(meta.usage) ? meta.usage : {};
  for (const value of [usage.inputTokens, meta.inputTokens, usage.totalTokens, meta.totalTokens]) {
    if (typeof value === "number" && Number.isFinite(value)) return value;
  }
  return undefined;
}

/**
 * Grok's maintenance (spec 30 §1.4, reference one version): the sign-in command only. The
 * reference's usage reader calls xAI billing endpoints; spec 30 §2.1 keeps usage to Cursor.
 */
export const GROK_ACP_MAINTENANCE = Object.freeze({ loginCommand: "grok login" });

/** The `grok` dialect (spec 30 §1.4). */
export const grokAcpDialect: AcpDialect = Object.freeze({
  id: "grok",
  toolIdentity: grokToolIdentity,
  classifyToolCall(event: AcpToolCallEvent) {
    const name = event.name ?? grokToolIdentity(event)?.name;
    if (name !== GROK_SUBAGENT_TOOL) return undefined;
    const input = isRecord(event.rawInput) ? event.rawInput : {};
    const label = nonEmptyString(input.description) ?? nonEmptyString(input.prompt) ?? event.title ?? "Subagent";
    return {
      item: { type: "delegation" as const, childRef: event.toolCallId, label, background: false },
      presentation: delegationPresentation(label, nonEmptyString(input.subagent_type)),
    };
  },
  maintenance: GROK_ACP_MAINTENANCE,
  contextWindow: Object.freeze({ sizeFromSetup: grokContextSizeFromSetup, usedFromPromptResult: grokContextUsageFromPromptResult }),
});
