/**
 * Grammar v3 of the `thread/delta` notification: building blocks, item shapes and delta kinds
 * (spec 10 §1.2–1.5).
 *
 * Validation is non-strict (unknown keys are stripped), but one invalid delta invalidates the
 * whole batch: {@link parseThreadDeltaParams} either returns every delta or throws.
 */
import * as z from "zod";
import {
  AttachSchema,
  ClientRequestIdSchema,
  ErrorCategorySchema,
  ExtensionKindSchema,
  ItemStatusSchema,
  JsonValueSchema,
  KeyPartSchema,
  NoTurnFallbackSchema,
  OutputChannelSchema,
  PresentationSchema,
  ProviderRawEventSchema,
  RateLimitsSchema,
  TextChannelSchema,
  ThreadDeltaKeySchema,
  TurnStatusSchema,
  UsageBreakdownSchema,
  WarningCategorySchema,
} from "./thread-delta-blocks.js";
import { ItemShapeSchema, ProgressSnapshotSchema } from "./item-shapes.js";
import { readCommonDeltas } from "./thread-delta-shape.js";

export * from "./thread-delta-blocks.js";
export * from "./item-shapes.js";

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
    // "approved": this project's extension of spec 10 §1.3 (thread-events.ts ApprovalStatusSchema).
    approvalStatus: z.enum(["denied", "approved"]).optional(),
    item: ItemShapeSchema,
    presentation: PresentationSchema.optional(),
    providerTurnId,
    noTurnFallback,
  })
  .superRefine(requireExtensionPresentation);
/**
 * The schema of an item-keyed delta kind that streams into an open item: `kind`, `key`, the
 * kind's own `fields`, then the turn it belongs to and its no-turn fallback (that key order).
 */
const itemStreamDelta = <K extends string, F extends z.ZodRawShape>(kind: K, fields: F) => z.object({ kind: z.literal(kind), key: ThreadDeltaKeySchema, ...fields, providerTurnId, noTurnFallback });
/** `item.progress`. */
export const ItemProgressDeltaSchema = itemStreamDelta("item.progress", {
  message: z.string().optional(),
  snapshot: ProgressSnapshotSchema.optional(),
  flush: z.boolean().optional(),
});
/** `item.textDelta`. */
export const ItemTextDeltaSchema = itemStreamDelta("item.textDelta", { channel: TextChannelSchema, text: z.string() });
/** `item.textClose`. */
export const ItemTextCloseDeltaSchema = itemStreamDelta("item.textClose", { channel: TextChannelSchema, text: z.string().optional() });
/** `item.outputDelta`. */
export const ItemOutputDeltaSchema = itemStreamDelta("item.outputDelta", { channel: OutputChannelSchema, text: z.string() });
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
const DELTA_SCHEMA_BY_KIND: ReadonlyMap<string, z.ZodType<ThreadDelta>> = new Map(ThreadDeltaSchema.options.map((option) => [option.shape.kind.value, option as unknown as z.ZodType<ThreadDelta>]));

function issuesOf(error: z.ZodError, prefix: (string | number)[]): ThreadDeltaIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
    message: issue.message,
  }));
}

/**
 * Validates `thread/delta` params (spec 10 §1.1, §1.5). Unknown keys inside deltas are stripped;
 * unknown keys of the params are ignored. Returns `{threadId, deltas}`. Each delta is checked
 * against the schema of its own `kind` (same result as {@link ThreadDeltaSchema}, faster); a batch
 * of only common shapes is read by hand first (`thread-delta-shape.ts`, same output as zod).
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
  if (issues.length === 0) {
    const common = readCommonDeltas(deltas);
    if (common) return { threadId: threadId as string, deltas: common as unknown as ThreadDelta[] };
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
