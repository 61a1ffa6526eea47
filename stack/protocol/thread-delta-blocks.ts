/**
 * Building blocks of grammar v3 (spec 10 §1.2): key parts and keys, raw provider events and the
 * no-turn fallback, channels, presentation, enums, client request ids, extension kinds, usage.
 * Re-exported by `thread-delta.ts`.
 */
import * as z from "zod";
/** The separator the assembler joins key parts with; key parts may not contain it (spec 10 §1.2). */
export const KEY_PART_SEPARATOR = "\u001f";

/** Maximum length of `presentation.detail`, in characters (spec 10 §1.2). */
export const PRESENTATION_DETAIL_MAX_CHARS = 280;

/** A JSON value: null, boolean, finite number, string, array or plain object of JSON values. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Whether `value` is a JSON value. A plain recursive walk: provider payloads (raw ACP updates,
 * tool arguments) are large, and a schema-per-node parse of them dominated validation time.
 */
export function isJsonValue(value: unknown): value is JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJsonValue);
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) if (!isJsonValue((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

/** A JSON value (spec 10 §1.2, `payload`, `params`, `args`); passed through as given, not copied. */
export const JsonValueSchema = z.custom<JsonValue>(isJsonValue, { message: "must be a JSON value" });

/** A non-empty string without U+001F: `providerItemId`, `channel`, `parentRef`, `providerTurnId`, `childRef` (spec 10 §1.2). */
export const KeyPartSchema = z
  .string()
  .min(1)
  .refine((value) => !value.includes(KEY_PART_SEPARATOR), { message: "must not contain U+001F" });

/** `{providerItemId?, channel?, parentRef?}`; `{}` is valid (spec 10 §1.2). */
export const ThreadDeltaKeySchema = z.object({
  providerItemId: KeyPartSchema.optional(),
  channel: KeyPartSchema.optional(),
  parentRef: KeyPartSchema.optional(),
});
/** The key of an item-scoped delta. */
export type ThreadDeltaKey = z.infer<typeof ThreadDeltaKeySchema>;

/** A provider's raw JSON-RPC-shaped event `{jsonrpc:"2.0", id?, method, params?}` (spec 10 §1.2). */
export const ProviderRawEventSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string(),
  params: JsonValueSchema.optional(),
});
/** A provider's raw event, forwarded in `provider/unhandled`. */
export type ProviderRawEvent = z.infer<typeof ProviderRawEventSchema>;

/** `{raw, rawType}`: what to emit as thread-scoped `provider/unhandled` when no turn applies (spec 10 §1.2). */
export const NoTurnFallbackSchema = z.object({ raw: ProviderRawEventSchema, rawType: z.string() });
/** The fallback of a turn-scoped delta. */
export type NoTurnFallback = z.infer<typeof NoTurnFallbackSchema>;

/** `open` (only the current turn) or `currentOrLast` (spec 10 §1.2). */
export const AttachSchema = z.enum(["open", "currentOrLast"]);
/** How a delta attaches to a turn. */
export type Attach = z.infer<typeof AttachSchema>;

/** Text channels (spec 10 §1.2). */
export const TEXT_CHANNELS = ["agentMessage", "reasoningSummary", "reasoningText", "plan"] as const;
/** A text channel. */
export const TextChannelSchema = z.enum(TEXT_CHANNELS);
/** A text channel. */
export type TextChannel = z.infer<typeof TextChannelSchema>;

/** Output channels (spec 10 §1.2). */
export const OUTPUT_CHANNELS = ["command", "fileChange"] as const;
/** An output channel. */
export const OutputChannelSchema = z.enum(OUTPUT_CHANNELS);
/** An output channel. */
export type OutputChannel = z.infer<typeof OutputChannelSchema>;

const nonEmpty = z.string().min(1);

/** How the runtime labels an item (spec 10 §1.2). A malformed presentation rejects the delta. */
export const PresentationSchema = z.object({
  label: z.object({ pending: nonEmpty, completed: nonEmpty }),
  icon: z.object({ glyph: nonEmpty }),
  title: z.string().optional(),
  detail: z.string().max(PRESENTATION_DETAIL_MAX_CHARS).optional(),
  suppress: z.boolean().optional(),
  tint: z.object({ light: nonEmpty, dark: nonEmpty }).optional(),
});
/** Item presentation. */
export type Presentation = z.infer<typeof PresentationSchema>;

/** Item status (spec 10 §1.2). */
export const ItemStatusSchema = z.enum(["pending", "completed", "failed", "interrupted"]);
/** Item status. */
export type ItemStatus = z.infer<typeof ItemStatusSchema>;

/** Turn status (spec 10 §1.2). */
export const TurnStatusSchema = z.enum(["completed", "failed", "interrupted"]);
/** Turn status. */
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

/** Background task status (spec 10 §1.2). */
export const BackgroundTaskStatusSchema = z.enum(["pending", "running", "paused", "completed", "failed", "killed", "stopped"]);
/** Background task status. */
export type BackgroundTaskStatus = z.infer<typeof BackgroundTaskStatusSchema>;

/** One plan step `{step, status?}` (spec 10 §1.2). */
export const PlanStepSchema = z.object({
  step: z.string(),
  status: z.enum(["pending", "active", "completed", "failed"]).optional(),
});
/** One plan step. */
export type PlanStep = z.infer<typeof PlanStepSchema>;

/** Search mode (spec 10 §1.2). */
export const SearchModeSchema = z.enum(["content", "path", "list"]);
/** Search mode. */
export type SearchMode = z.infer<typeof SearchModeSchema>;

/** Warning category (spec 10 §1.2). */
export const WarningCategorySchema = z.enum(["deprecation", "config", "general", "compaction-skipped"]);
/** Warning category. */
export type WarningCategory = z.infer<typeof WarningCategorySchema>;

/** Error category (spec 10 §1.2). */
export const ErrorCategorySchema = z.enum([
  "active-turn-not-steerable",
  "bad-request",
  "connection-failed",
  "context-window-exceeded",
  "billing",
  "budget-exceeded",
  "internal",
  "max-output-tokens",
  "max-turns",
  "overloaded",
  "policy",
  "rate-limit",
  "sandbox",
  "stream-disconnected",
  "structured-output-retries",
  "thread-rollback-failed",
  "too-many-failed-attempts",
  "unauthorized",
  "unknown",
]);
/** Error category. */
export type ErrorCategory = z.infer<typeof ErrorCategorySchema>;

/** `creq_` + 10 characters of `23456789abcdefghijkmnpqrstuvwxyz` (spec 10 §1.2). */
export const CLIENT_REQUEST_ID_PATTERN = /^creq_[23456789abcdefghijkmnpqrstuvwxyz]{10}$/;
export const ClientRequestIdSchema = z.string().regex(CLIENT_REQUEST_ID_PATTERN);

/** `<vendor>/<name>`, lower-case letters, digits and dashes (spec 10 §1.2). */
export const EXTENSION_KIND_PATTERN = /^[a-z0-9-]+\/[a-z0-9-]+$/;
export const ExtensionKindSchema = z.string().regex(EXTENSION_KIND_PATTERN);

/** Token usage breakdown (spec 10 §1.2). */
export const UsageBreakdownSchema = z.object({
  totalTokens: z.number(),
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  reasoningOutputTokens: z.number(),
});
/** Token usage breakdown. */
export type UsageBreakdown = z.infer<typeof UsageBreakdownSchema>;

/**
 * Provider rate-limit state. Its exact shape is a reference domain type not fixed by the spec
 * (status, kind, windows with reset times, overage fields), so every key passes through.
 */
export const RateLimitsSchema = z.looseObject({});
/** Provider rate-limit state. */
export type RateLimits = z.infer<typeof RateLimitsSchema>;
