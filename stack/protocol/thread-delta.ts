/**
 * Grammar v3 of the `thread/delta` notification: building blocks, item shapes and delta kinds
 * (spec 10 §1.2–1.5).
 *
 * Validation is non-strict (unknown keys are stripped), but one invalid delta invalidates the
 * whole batch: {@link parseThreadDeltaParams} either returns every delta or throws.
 */
import { z } from "zod";

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
export const BackgroundTaskStatusSchema = z.enum([
  "pending",
  "running",
  "paused",
  "completed",
  "failed",
  "killed",
  "stopped",
]);
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
export const ClientRequestIdSchema = z.string().regex(/^creq_[23456789abcdefghijkmnpqrstuvwxyz]{10}$/);

/** `<vendor>/<name>`, lower-case letters, digits and dashes (spec 10 §1.2). */
export const ExtensionKindSchema = z.string().regex(/^[a-z0-9-]+\/[a-z0-9-]+$/);

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

// ---- Item shapes (spec 10 §1.4) ----

/** `command` shape. */
export const CommandShapeSchema = z.object({
  type: z.literal("command"),
  command: z.string(),
  cwd: z.string(),
  aggregatedOutput: z.string().optional(),
  exitCode: z.number().optional(),
  durationMs: z.number().optional(),
});
/** One changed file of a `fileChange` shape. */
export const FileChangeEntrySchema = z.object({
  path: z.string(),
  kind: z.enum(["add", "update", "delete"]),
  movePath: z.string().optional(),
  diff: z.string().optional(),
  oldText: z.string().optional(),
  newText: z.string().optional(),
});
/** `fileChange` shape; `changes` may be empty (bare close). */
export const FileChangeShapeSchema = z.object({
  type: z.literal("fileChange"),
  changes: z.array(FileChangeEntrySchema),
});
/** `tool` shape. */
export const ToolShapeSchema = z.object({
  type: z.literal("tool"),
  tool: z.string(),
  server: z.string().optional(),
  args: JsonValueSchema.optional(),
  result: JsonValueSchema.optional(),
  error: JsonValueSchema.optional(),
  durationMs: z.number().optional(),
});
/** `compaction` shape. */
export const CompactionShapeSchema = z.object({ type: z.literal("compaction") });
/** `agentMessage` shape. */
export const AgentMessageShapeSchema = z.object({ type: z.literal("agentMessage"), text: z.string() });
/** `plan` shape. */
export const PlanShapeSchema = z.object({ type: z.literal("plan"), text: z.string() });
/** `reasoning` shape. */
export const ReasoningShapeSchema = z.object({
  type: z.literal("reasoning"),
  summary: z.array(z.string()),
  content: z.array(z.string()),
});
/** `webSearch` shape. */
export const WebSearchShapeSchema = z.object({
  type: z.literal("webSearch"),
  queries: z.array(z.string()).min(1),
});
/** `webFetch` shape; `pattern` is required (may be null). */
export const WebFetchShapeSchema = z.object({
  type: z.literal("webFetch"),
  url: z.string(),
  prompt: z.string().nullable().optional(),
  pattern: z.string().nullable(),
});
/** `imageView` shape. */
export const ImageViewShapeSchema = z.object({ type: z.literal("imageView"), path: z.string() });
/** `backgroundTask` shape (also a progress snapshot). */
export const BackgroundTaskShapeSchema = z.object({
  type: z.literal("backgroundTask"),
  familyId: z.string(),
  taskType: z.string(),
  description: z.string(),
  status: ItemStatusSchema,
  taskStatus: BackgroundTaskStatusSchema,
  skipTranscript: z.boolean(),
  workflowName: z.string().optional(),
  workflow: z.object({ phases: z.array(JsonValueSchema), agents: z.array(JsonValueSchema) }).optional(),
  usage: z.object({ totalTokens: z.number(), toolUses: z.number(), durationMs: z.number() }).optional(),
  summary: z.string().optional(),
  error: z.string().optional(),
  outputFile: z.string().optional(),
});
/** `fileRead` shape (v3). */
export const FileReadShapeSchema = z.object({
  type: z.literal("fileRead"),
  path: z.string(),
  cmd: z.string().optional(),
});
/** `search` shape (v3). */
export const SearchShapeSchema = z.object({
  type: z.literal("search"),
  mode: SearchModeSchema,
  query: z.string(),
  path: z.string().optional(),
  cmd: z.string().optional(),
});
/** `delegation` shape (v3); also a progress snapshot. */
export const DelegationShapeSchema = z.object({
  type: z.literal("delegation"),
  childRef: KeyPartSchema,
  label: z.string(),
  background: z.boolean(),
  summary: z.string().optional(),
});
/** `planSteps` shape (v3). */
export const PlanStepsShapeSchema = z.object({
  type: z.literal("planSteps"),
  steps: z.array(PlanStepSchema),
  explanation: z.string().optional(),
});
/** `extension` shape (v3). A presentation placed inside the shape is stripped. */
export const ExtensionShapeSchema = z.object({
  type: z.literal("extension"),
  kind: ExtensionKindSchema,
  payload: JsonValueSchema,
});

/** Every grammar-v3 item shape, told apart by `type` (spec 10 §1.4). */
export const ItemShapeSchema = z.discriminatedUnion("type", [
  CommandShapeSchema,
  FileChangeShapeSchema,
  ToolShapeSchema,
  CompactionShapeSchema,
  AgentMessageShapeSchema,
  PlanShapeSchema,
  ReasoningShapeSchema,
  WebSearchShapeSchema,
  WebFetchShapeSchema,
  ImageViewShapeSchema,
  BackgroundTaskShapeSchema,
  FileReadShapeSchema,
  SearchShapeSchema,
  DelegationShapeSchema,
  PlanStepsShapeSchema,
  ExtensionShapeSchema,
]);
/** A grammar-v3 item shape. */
export type ItemShape = z.infer<typeof ItemShapeSchema>;
/** The `type` of an item shape. */
export type ItemShapeType = ItemShape["type"];
/** `command` shape. */
export type CommandShape = z.infer<typeof CommandShapeSchema>;
/** `fileChange` shape. */
export type FileChangeShape = z.infer<typeof FileChangeShapeSchema>;
/** One changed file of a `fileChange` shape. */
export type FileChangeEntry = z.infer<typeof FileChangeEntrySchema>;
/** `tool` shape. */
export type ToolShape = z.infer<typeof ToolShapeSchema>;
/** `compaction` shape. */
export type CompactionShape = z.infer<typeof CompactionShapeSchema>;
/** `agentMessage` shape. */
export type AgentMessageShape = z.infer<typeof AgentMessageShapeSchema>;
/** `plan` shape. */
export type PlanShape = z.infer<typeof PlanShapeSchema>;
/** `reasoning` shape. */
export type ReasoningShape = z.infer<typeof ReasoningShapeSchema>;
/** `webSearch` shape. */
export type WebSearchShape = z.infer<typeof WebSearchShapeSchema>;
/** `webFetch` shape. */
export type WebFetchShape = z.infer<typeof WebFetchShapeSchema>;
/** `imageView` shape. */
export type ImageViewShape = z.infer<typeof ImageViewShapeSchema>;
/** `backgroundTask` shape. */
export type BackgroundTaskShape = z.infer<typeof BackgroundTaskShapeSchema>;
/** `fileRead` shape. */
export type FileReadShape = z.infer<typeof FileReadShapeSchema>;
/** `search` shape. */
export type SearchShape = z.infer<typeof SearchShapeSchema>;
/** `delegation` shape. */
export type DelegationShape = z.infer<typeof DelegationShapeSchema>;
/** `planSteps` shape. */
export type PlanStepsShape = z.infer<typeof PlanStepsShapeSchema>;
/** `extension` shape. */
export type ExtensionShape = z.infer<typeof ExtensionShapeSchema>;

/** A progress snapshot: a backgroundTask or delegation shape only (spec 10 §1.3). */
export const ProgressSnapshotSchema = z.discriminatedUnion("type", [BackgroundTaskShapeSchema, DelegationShapeSchema]);
/** A progress snapshot. */
export type ProgressSnapshot = z.infer<typeof ProgressSnapshotSchema>;

// ---- Delta kinds (spec 10 §1.3) ----

const providerTurnId = KeyPartSchema.optional();
const noTurnFallback = NoTurnFallbackSchema.optional();

/** The extension rule: an extension item on item.open/item.close must carry `presentation` (spec 10 §1.3). */
function requireExtensionPresentation(delta: { item: { type: string }; presentation?: unknown }, ctx: z.RefinementCtx): void {
  if (delta.item.type === "extension" && delta.presentation === undefined) {
    ctx.addIssue({ code: "custom", path: ["presentation"], message: "an extension item requires a presentation" });
  }
}

/** `input.accepted`. */
export const InputAcceptedDeltaSchema = z.object({
  kind: z.literal("input.accepted"),
  clientRequestId: ClientRequestIdSchema,
  providerTurnId,
});
/** `turn.open`; `parentRef` marks a delegated child turn. */
export const TurnOpenDeltaSchema = z.object({
  kind: z.literal("turn.open"),
  providerTurnId,
  parentRef: KeyPartSchema.optional(),
});
/** `turn.boundary`. */
export const TurnBoundaryDeltaSchema = z.object({
  kind: z.literal("turn.boundary"),
  status: TurnStatusSchema,
  error: z.object({ message: z.string() }).optional(),
  providerCheckpointId: z.string().optional(),
  claimIfIdle: z.boolean().optional(),
  providerTurnId,
});
/** `item.open`. */
export const ItemOpenDeltaSchema = z
  .object({
    kind: z.literal("item.open"),
    key: ThreadDeltaKeySchema,
    item: ItemShapeSchema,
    presentation: PresentationSchema.optional(),
    attach: AttachSchema.optional(),
    providerTurnId,
    noTurnFallback,
  })
  .superRefine(requireExtensionPresentation);
/** `item.close`; `item` is the full terminal shape. */
export const ItemCloseDeltaSchema = z
  .object({
    kind: z.literal("item.close"),
    key: ThreadDeltaKeySchema,
    status: ItemStatusSchema,
    resultText: z.string().optional(),
    exitCode: z.number().optional(),
    aggregatedOutput: z.string().optional(),
    approvalStatus: z.literal("denied").optional(),
    item: ItemShapeSchema,
    presentation: PresentationSchema.optional(),
    providerTurnId,
    noTurnFallback,
  })
  .superRefine(requireExtensionPresentation);
/** `item.progress`. */
export const ItemProgressDeltaSchema = z.object({
  kind: z.literal("item.progress"),
  key: ThreadDeltaKeySchema,
  message: z.string().optional(),
  snapshot: ProgressSnapshotSchema.optional(),
  flush: z.boolean().optional(),
  providerTurnId,
  noTurnFallback,
});
/** `item.textDelta`. */
export const ItemTextDeltaSchema = z.object({
  kind: z.literal("item.textDelta"),
  key: ThreadDeltaKeySchema,
  channel: TextChannelSchema,
  text: z.string(),
  providerTurnId,
  noTurnFallback,
});
/** `item.textClose`. */
export const ItemTextCloseDeltaSchema = z.object({
  kind: z.literal("item.textClose"),
  key: ThreadDeltaKeySchema,
  channel: TextChannelSchema,
  text: z.string().optional(),
  providerTurnId,
  noTurnFallback,
});
/** `item.outputDelta`. */
export const ItemOutputDeltaSchema = z.object({
  kind: z.literal("item.outputDelta"),
  key: ThreadDeltaKeySchema,
  channel: OutputChannelSchema,
  text: z.string(),
  providerTurnId,
  noTurnFallback,
});
/** `command.outputSnapshot`; it has no `providerTurnId`. */
export const CommandOutputSnapshotDeltaSchema = z.object({
  kind: z.literal("command.outputSnapshot"),
  key: ThreadDeltaKeySchema,
  text: z.string(),
  noTurnFallback,
});
/** `usage`; `modelContextWindow` is required (may be null). */
export const UsageDeltaSchema = z.object({
  kind: z.literal("usage"),
  total: UsageBreakdownSchema,
  last: UsageBreakdownSchema,
  modelContextWindow: z.number().nullable(),
  providerTurnId,
});
/** `contextWindow`; `attach` is required. */
export const ContextWindowDeltaSchema = z.object({
  kind: z.literal("contextWindow"),
  used: z.number().nullable(),
  size: z.number().nullable().optional(),
  estimated: z.boolean(),
  attach: AttachSchema,
  providerTurnId,
});
/** `context.compacted`. */
export const ContextCompactedDeltaSchema = z.object({
  kind: z.literal("context.compacted"),
  providerTurnId,
  noTurnFallback,
});
/** `context.cleared`. */
export const ContextClearedDeltaSchema = z.object({ kind: z.literal("context.cleared") });
/** `thread.started`. */
export const ThreadStartedDeltaSchema = z.object({ kind: z.literal("thread.started") });
/** `session.ended`. */
export const SessionEndedDeltaSchema = z.object({ kind: z.literal("session.ended") });
/** `session.reset`. */
export const SessionResetDeltaSchema = z.object({ kind: z.literal("session.reset") });
/** `turn.diff`. */
export const TurnDiffDeltaSchema = z.object({ kind: z.literal("turn.diff"), diff: z.string(), providerTurnId });
/** `thread.identity`. */
export const ThreadIdentityDeltaSchema = z.object({ kind: z.literal("thread.identity"), providerThreadId: z.string() });
/** `thread.name`. */
export const ThreadNameDeltaSchema = z.object({ kind: z.literal("thread.name"), name: z.string() });
/** `extension.state`. */
export const ExtensionStateDeltaSchema = z.object({
  kind: z.literal("extension.state"),
  extensionKind: ExtensionKindSchema,
  payload: JsonValueSchema,
});
/** `provider.rateLimits`. */
export const ProviderRateLimitsDeltaSchema = z.object({
  kind: z.literal("provider.rateLimits"),
  rateLimits: RateLimitsSchema,
});
/** Structured error information of `provider.error`. */
export const ErrorInfoSchema = z.object({
  category: ErrorCategorySchema,
  providerCode: z.string().nullable(),
  httpStatusCode: z.number().nullable(),
});
/** Structured error information. */
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;
/** `provider.error`. */
export const ProviderErrorDeltaSchema = z.object({
  kind: z.literal("provider.error"),
  message: z.string(),
  detail: z.string().optional(),
  willRetry: z.boolean().optional(),
  category: ErrorCategorySchema.optional(),
  errorInfo: ErrorInfoSchema.optional(),
  settlesTurn: z.boolean().optional(),
  providerTurnId,
  threadScoped: z.boolean().optional(),
});
/** `provider.modelFallback`. */
export const ProviderModelFallbackDeltaSchema = z.object({
  kind: z.literal("provider.modelFallback"),
  originalModel: z.string(),
  fallbackModel: z.string(),
  reason: z.enum(["refusal", "provider"]),
  message: z.string(),
});
/** `provider.warning`. */
export const ProviderWarningDeltaSchema = z.object({
  kind: z.literal("provider.warning"),
  summary: z.string().optional(),
  details: z.string().optional(),
  category: WarningCategorySchema.optional(),
  vouchedTurn: z.boolean().optional(),
});
/** `unhandled`; `vouchedTurn` is required. */
export const UnhandledDeltaSchema = z.object({
  kind: z.literal("unhandled"),
  raw: ProviderRawEventSchema,
  rawType: z.string(),
  vouchedTurn: z.boolean(),
  onlyIfNoTurn: z.boolean().optional(),
  parentRef: KeyPartSchema.optional(),
  providerTurnId,
});

/** Every grammar-v3 delta, told apart by `kind` (spec 10 §1.3). */
export const ThreadDeltaSchema = z.discriminatedUnion("kind", [
  InputAcceptedDeltaSchema,
  TurnOpenDeltaSchema,
  TurnBoundaryDeltaSchema,
  ItemOpenDeltaSchema,
  ItemCloseDeltaSchema,
  ItemProgressDeltaSchema,
  ItemTextDeltaSchema,
  ItemTextCloseDeltaSchema,
  ItemOutputDeltaSchema,
  CommandOutputSnapshotDeltaSchema,
  UsageDeltaSchema,
  ContextWindowDeltaSchema,
  ContextCompactedDeltaSchema,
  ContextClearedDeltaSchema,
  ThreadStartedDeltaSchema,
  SessionEndedDeltaSchema,
  SessionResetDeltaSchema,
  TurnDiffDeltaSchema,
  ThreadIdentityDeltaSchema,
  ThreadNameDeltaSchema,
  ExtensionStateDeltaSchema,
  ProviderRateLimitsDeltaSchema,
  ProviderErrorDeltaSchema,
  ProviderModelFallbackDeltaSchema,
  ProviderWarningDeltaSchema,
  UnhandledDeltaSchema,
]);
/** A grammar-v3 delta. */
export type ThreadDelta = z.infer<typeof ThreadDeltaSchema>;
/** The `kind` of a delta. */
export type ThreadDeltaKind = ThreadDelta["kind"];
/** The delta of one kind, e.g. `ThreadDeltaOf<"item.open">`. */
export type ThreadDeltaOf<K extends ThreadDeltaKind> = Extract<ThreadDelta, { kind: K }>;

/** Every delta kind of grammar v3, in spec order (spec 10 §1.3). */
export const THREAD_DELTA_KINDS = ThreadDeltaSchema.options.map((option) => option.shape.kind.value) as ThreadDeltaKind[];

/** `thread/delta` params `{threadId: non-empty, deltas}`; unknown keys pass through (spec 10 §1.1). */
export const ThreadDeltaParamsSchema = z.looseObject({
  threadId: z.string().min(1),
  deltas: z.array(ThreadDeltaSchema),
});
/** Parsed `thread/delta` params. */
export interface ThreadDeltaParams {
  threadId: string;
  deltas: ThreadDelta[];
}

/** One validation problem: where (path from the params root) and what. */
export interface ThreadDeltaIssue {
  path: (string | number)[];
  message: string;
}

/** How many characters of the params an {@link InvalidThreadDeltaError} message quotes. */
export const INVALID_DELTA_PARAMS_QUOTE_CHARS = 400;

/**
 * A `thread/delta` notification failed grammar-v3 validation (spec 10 §1.5). The message reads
 * `Invalid thread/delta notification: <path>: <msg>; … (params: <first 400 chars>)`.
 */
export class InvalidThreadDeltaError extends Error {
  /** Stable machine-readable code. */
  readonly code = "E_INVALID_THREAD_DELTA";
  /** Every problem found, with paths from the params root (e.g. `["deltas", 0, "presentation"]`). */
  readonly issues: ThreadDeltaIssue[];

  constructor(issues: ThreadDeltaIssue[], params: unknown) {
    const described = issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join("; ");
    super(`Invalid thread/delta notification: ${described} (params: ${quoteParams(params)})`);
    this.name = "InvalidThreadDeltaError";
    this.issues = issues;
  }
}

function formatIssuePath(path: (string | number)[]): string {
  return path.length === 0 ? "<root>" : path.join(".");
}

function quoteParams(params: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(params) ?? String(params);
  } catch {
    text = String(params);
  }
  return text.slice(0, INVALID_DELTA_PARAMS_QUOTE_CHARS);
}

/** Each delta kind's own schema, for dispatch by `kind` without trying the whole union. */
const DELTA_SCHEMA_BY_KIND: ReadonlyMap<string, z.ZodType<ThreadDelta>> = new Map(
  ThreadDeltaSchema.options.map((option) => [option.shape.kind.value, option as unknown as z.ZodType<ThreadDelta>]),
);

function issuesOf(error: z.ZodError, prefix: (string | number)[]): ThreadDeltaIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
    message: issue.message,
  }));
}

/**
 * Validates `thread/delta` params (spec 10 §1.1, §1.5). Unknown keys inside deltas are stripped;
 * unknown keys of the params are ignored. Returns `{threadId, deltas}`. Each delta is checked
 * against the schema of its own `kind` (same result as {@link ThreadDeltaSchema}, faster).
 * @throws InvalidThreadDeltaError when the params or any one delta is invalid (the whole batch is
 *   rejected); issues carry paths from the params root, e.g. `["deltas", 1, "channel"]`.
 */
export function parseThreadDeltaParams(params: unknown): ThreadDeltaParams {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new InvalidThreadDeltaError([{ path: [], message: "params must be an object" }], params);
  }
  const { threadId, deltas } = params as { threadId?: unknown; deltas?: unknown };
  const issues: ThreadDeltaIssue[] = [];
  if (typeof threadId !== "string" || threadId === "") issues.push({ path: ["threadId"], message: "must be a non-empty string" });
  if (!Array.isArray(deltas)) {
    issues.push({ path: ["deltas"], message: "must be an array of deltas" });
    throw new InvalidThreadDeltaError(issues, params);
  }
  const parsed: ThreadDelta[] = [];
  deltas.forEach((delta: unknown, index) => {
    const kind = typeof delta === "object" && delta !== null ? (delta as { kind?: unknown }).kind : undefined;
    const schema = typeof kind === "string" ? DELTA_SCHEMA_BY_KIND.get(kind) : undefined;
    if (!schema) {
      issues.push({ path: ["deltas", index, "kind"], message: `unknown delta kind ${JSON.stringify(kind)}` });
      return;
    }
    const result = schema.safeParse(delta);
    if (result.success) parsed.push(result.data);
    else issues.push(...issuesOf(result.error, ["deltas", index]));
  });
  if (issues.length > 0) throw new InvalidThreadDeltaError(issues, params);
  return { threadId: threadId as string, deltas: parsed };
}
