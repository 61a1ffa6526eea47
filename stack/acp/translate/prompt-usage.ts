/**
 * The token usage an agent reports for one prompt, read from its `session/prompt` answer (issue 39:
 * "the per-prompt token usage one adapter returns in every `session/prompt` result"), in the
 * grammar's breakdown (`stack/protocol` `UsageBreakdown`). Shapes, read by shape and never by the
 * agent's name:
 * - ACP's `usage` (`inputTokens`, `outputTokens`, `totalTokens`, `cachedReadTokens?`,
 *   `thoughtTokens?`): claude-agent-acp, copilot, opencode, omp;
 * - the same object under `_meta.usage`: grok;
 * - `_meta.quota.token_count` (`input_tokens`, `output_tokens`): gemini.
 * A count the agent does not report is 0 in the breakdown (the grammar has no "unknown"); a total it
 * does not report is input + output. Pure.
 */
import type { UsageBreakdown } from "../../protocol/thread-delta.js";
import { isRecord } from "../../protocol/json-value.js";

const count = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined);

/** ACP's `Usage` object, or `undefined` when `value` is not one (input and output counts are required). */
function acpUsage(value: unknown): UsageBreakdown | undefined {
  if (!isRecord(value)) return undefined;
  const inputTokens = count(value.inputTokens);
  const outputTokens = count(value.outputTokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  return {
    totalTokens: count(value.totalTokens) ?? inputTokens + outputTokens,
    inputTokens,
    cachedInputTokens: count(value.cachedReadTokens) ?? 0,
    outputTokens,
    reasoningOutputTokens: count(value.thoughtTokens) ?? 0,
  };
}

/** gemini's `token_count` (`input_tokens`, `output_tokens`, snake case), or `undefined`. */
function tokenCount(value: unknown): UsageBreakdown | undefined {
  if (!isRecord(value)) return undefined;
  const inputTokens = count(value.input_tokens);
  const outputTokens = count(value.output_tokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  return {
    totalTokens: count(value.total_tokens) ?? inputTokens + outputTokens,
    inputTokens,
    cachedInputTokens: count(value.cached_input_tokens) ?? 0,
    outputTokens,
    reasoningOutputTokens: count(value.thought_tokens) ?? 0,
  };
}

/** The usage of one prompt as its `session/prompt` answer reports it; `undefined` when it reports none. */
export function readPromptUsage(result: unknown): UsageBreakdown | undefined {
  if (!isRecord(result)) return undefined;
  const meta = isRecord(result._meta) ? result._meta : undefined;
  return acpUsage(result.usage) ?? acpUsage(meta?.usage) ?? tokenCount(isRecord(meta?.quota) ? meta.quota.token_count : undefined);
}

/** `a` + `b`, count by count (the thread's total after one more prompt). */
export function addUsage(a: UsageBreakdown, b: UsageBreakdown): UsageBreakdown {
  return {
    totalTokens: a.totalTokens + b.totalTokens,
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
  };
}
