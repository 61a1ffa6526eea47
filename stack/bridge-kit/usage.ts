/**
 * Token usage arithmetic for bridges that report cumulative usage (spec 02 §1, the kit's `addTokenUsage`;
 * spec 10 §1.2 usage breakdown, §1.3 `usage` delta).
 */
import type { UsageBreakdown } from "../protocol/thread-delta.js";

/** The five counters of a usage breakdown, in tokens. */
export const TOKEN_USAGE_FIELDS = ["totalTokens", "inputTokens", "cachedInputTokens", "outputTokens", "reasoningOutputTokens"] as const;

/**
 * Adds two usage breakdowns field by field (tokens). A missing operand, or a missing or
 * non-finite field in one, counts as 0, so a provider's partial report can be added to a
 * running total. Returns a new object; the operands are not changed.
 */
export function addTokenUsage(a: Partial<UsageBreakdown> | null | undefined, b: Partial<UsageBreakdown> | null | undefined): UsageBreakdown {
  const read = (usage: Partial<UsageBreakdown> | null | undefined, field: (typeof TOKEN_USAGE_FIELDS)[number]) => {
    const value = usage?.[field];
    return typeof value === "number" && Number.isFinite(value) ? value : 0;
  };
  return {
    totalTokens: read(a, "totalTokens") + read(b, "totalTokens"),
    inputTokens: read(a, "inputTokens") + read(b, "inputTokens"),
    cachedInputTokens: read(a, "cachedInputTokens") + read(b, "cachedInputTokens"),
    outputTokens: read(a, "outputTokens") + read(b, "outputTokens"),
    reasoningOutputTokens: read(a, "reasoningOutputTokens") + read(b, "reasoningOutputTokens"),
  };
}
