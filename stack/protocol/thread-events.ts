/**
 * Canonical thread events and items: what the delta assembler emits (spec 10 §2.2–2.3).
 *
 * The schemas validate events (conformance `events/schema-valid`); they do not fix key order.
 * Key order matters for parity (spec 10 §6.3) and is the assembler's job: it builds every event
 * and item in the field order of spec 10 §2.2–2.3, which the types below list in the same order.
 */
import * as z from "zod";
import {
  BackgroundTaskShapeSchema,
  CommandShapeSchema,
  ErrorInfoSchema,
  ExtensionKindSchema,
  FileReadShapeSchema,
  ItemStatusSchema,
  JsonValueSchema,
  PlanStepsShapeSchema,
  PresentationSchema,
  ProviderRawEventSchema,
  RateLimitsSchema,
  ReasoningShapeSchema,
  SearchShapeSchema,
  TurnStatusSchema,
  UsageBreakdownSchema,
  WarningCategorySchema,
} from "./thread-delta.js";

/** `{kind:"thread"}` or `{kind:"turn", turnId}` (spec 10 §2.2). */
export const EventScopeSchema = z.discriminatedUnion("kind", [z.object({ kind: z.literal("thread") }), z.object({ kind: z.literal("turn"), turnId: z.string() })]);
/** Where an event belongs. */
export type EventScope = z.infer<typeof EventScopeSchema>;
/** Turn scope. */
export type TurnScope = Extract<EventScope, { kind: "turn" }>;

/**
 * Approval outcome of command and file-change items: the close's `approvalStatus`, else null.
 * `approved` is this project's extension of spec 10 §2.3 (which knows only `denied`): a call the
 * runtime allowed when the agent asked says so, so an approved command is told apart from one that
 * never asked (issue 37). Bridges that do not know the decision leave it null.
 */
export const ApprovalStatusSchema = z.enum(["denied", "approved"]).nullable();

/**
 * A shape's fields without its `type`, in the shape's key order: what an item copies verbatim
 * from the shape it was built from (spec 10 §2.3).
 */
function shapeFields<T extends z.ZodRawShape & { type: z.ZodType }>(schema: z.ZodObject<T>): Omit<T, "type"> {
  const { type: _type, ...fields } = schema.shape;
  return fields;
}

const itemTail = {
  parentToolCallId: z.string().optional(),
  presentation: PresentationSchema.optional(),
};

/** `commandExecution` item (spec 10 §2.3). */
export const CommandExecutionItemSchema = z.object({
  type: z.literal("commandExecution"),
  id: z.string(),
  ...shapeFields(CommandShapeSchema),
  status: ItemStatusSchema,
  approvalStatus: ApprovalStatusSchema,
  ...itemTail,
});
/** One changed file of a `fileChange` item; `diff` is omitted when falsy. */
export const FileChangeItemEntrySchema = z.object({
  path: z.string(),
  kind: z.enum(["add", "update", "delete"]),
  movePath: z.string().optional(),
  diff: z.string().optional(),
});
/** `fileChange` item. */
export const FileChangeItemSchema = z.object({
  type: z.literal("fileChange"),
  id: z.string(),
  changes: z.array(FileChangeItemEntrySchema),
  status: ItemStatusSchema,
  approvalStatus: ApprovalStatusSchema,
  ...itemTail,
});
/** `toolCall` item; `arguments` only when the shape's `args` is a plain object. */
export const ToolCallItemSchema = z.object({
  type: z.literal("toolCall"),
  id: z.string(),
  server: z.string().optional(),
  tool: z.string(),
  arguments: z.record(z.string(), JsonValueSchema).optional(),
  status: ItemStatusSchema,
  result: JsonValueSchema.optional(),
  error: JsonValueSchema.optional(),
  durationMs: z.number().optional(),
  ...itemTail,
});
/** `contextCompaction` item. */
export const ContextCompactionItemSchema = z.object({ type: z.literal("contextCompaction"), id: z.string(), ...itemTail });
/** `agentMessage` item. */
export const AgentMessageItemSchema = z.object({ type: z.literal("agentMessage"), id: z.string(), text: z.string(), ...itemTail });
/** `plan` item. */
export const PlanItemSchema = z.object({ type: z.literal("plan"), id: z.string(), text: z.string(), ...itemTail });
/** `reasoning` item. */
export const ReasoningItemSchema = z.object({ type: z.literal("reasoning"), id: z.string(), ...shapeFields(ReasoningShapeSchema), ...itemTail });
/** `webSearch` item. */
export const WebSearchItemSchema = z.object({
  type: z.literal("webSearch"),
  id: z.string(),
  queries: z.array(z.string()),
  resultText: z.string().nullable(),
  ...itemTail,
});
/** `webFetch` item. */
export const WebFetchItemSchema = z.object({
  type: z.literal("webFetch"),
  id: z.string(),
  url: z.string(),
  prompt: z.string().nullable(),
  pattern: z.string().nullable(),
  resultText: z.string().nullable(),
  ...itemTail,
});
/** `imageView` item. */
export const ImageViewItemSchema = z.object({ type: z.literal("imageView"), id: z.string(), path: z.string(), ...itemTail });
/** `backgroundTask` item: a copy of the snapshot (spec 10 §1.4) with an id. */
export const BackgroundTaskItemSchema = z.object({
  type: z.literal("backgroundTask"),
  id: z.string(),
  ...shapeFields(BackgroundTaskShapeSchema),
  ...itemTail,
});
/** `fileRead` item. */
export const FileReadItemSchema = z.object({
  type: z.literal("fileRead"),
  id: z.string(),
  ...shapeFields(FileReadShapeSchema),
  status: ItemStatusSchema,
  /** The bytes the read returned, from the close's `resultText` (this project's extension of v3: stack/protocol/README.md). */
  resultText: z.string().optional(),
  ...itemTail,
});
/** `search` item. */
export const SearchItemSchema = z.object({
  type: z.literal("search"),
  id: z.string(),
  ...shapeFields(SearchShapeSchema),
  status: ItemStatusSchema,
  ...itemTail,
});
/** `delegation` item. */
export const DelegationItemSchema = z.object({
  type: z.literal("delegation"),
  id: z.string(),
  childRef: z.string(),
  label: z.string(),
  status: ItemStatusSchema,
  background: z.boolean(),
  summary: z.string().optional(),
  ...itemTail,
});
/** `planSteps` item. */
export const PlanStepsItemSchema = z.object({
  type: z.literal("planSteps"),
  id: z.string(),
  ...shapeFields(PlanStepsShapeSchema),
  status: ItemStatusSchema,
  ...itemTail,
});
/** `extension` item; it always carries a presentation. */
export const ExtensionItemSchema = z.object({
  type: z.literal("extension"),
  id: z.string(),
  kind: ExtensionKindSchema,
  payload: JsonValueSchema,
  status: ItemStatusSchema,
  parentToolCallId: z.string().optional(),
  presentation: PresentationSchema,
});

/** Every item the assembler can emit, told apart by `type` (spec 10 §2.3). */
export const ThreadItemSchema = z.discriminatedUnion("type", [
  CommandExecutionItemSchema,
  FileChangeItemSchema,
  ToolCallItemSchema,
  ContextCompactionItemSchema,
  AgentMessageItemSchema,
  PlanItemSchema,
  ReasoningItemSchema,
  WebSearchItemSchema,
  WebFetchItemSchema,
  ImageViewItemSchema,
  BackgroundTaskItemSchema,
  FileReadItemSchema,
  SearchItemSchema,
  DelegationItemSchema,
  PlanStepsItemSchema,
  ExtensionItemSchema,
]);
/** A canonical thread item. */
export type ThreadItem = z.infer<typeof ThreadItemSchema>;
/** The `type` of a thread item. */
export type ThreadItemType = ThreadItem["type"];
/** The item of one type, e.g. `ThreadItemOf<"toolCall">`. */
export type ThreadItemOf<T extends ThreadItemType> = Extract<ThreadItem, { type: T }>;
/** `commandExecution` item. */
export type CommandExecutionItem = z.infer<typeof CommandExecutionItemSchema>;
/** `fileChange` item. */
export type FileChangeItem = z.infer<typeof FileChangeItemSchema>;
/** `toolCall` item. */
export type ToolCallItem = z.infer<typeof ToolCallItemSchema>;
/** `backgroundTask` item. */
export type BackgroundTaskItem = z.infer<typeof BackgroundTaskItemSchema>;
/** `delegation` item. */
export type DelegationItem = z.infer<typeof DelegationItemSchema>;

const head = {
  threadId: z.string(),
  providerThreadId: z.string(),
  scope: EventScopeSchema,
};
const turnHead = {
  threadId: z.string(),
  providerThreadId: z.string(),
  scope: z.object({ kind: z.literal("turn"), turnId: z.string() }),
};
const threadHead = {
  threadId: z.string(),
  providerThreadId: z.string(),
  scope: z.object({ kind: z.literal("thread") }),
};

/** Text and output delta event types (batchable, spec 10 §2.11). */
export const STREAM_DELTA_EVENT_TYPES = [
  "item/agentMessage/delta",
  "item/reasoning/textDelta",
  "item/reasoning/summaryTextDelta",
  "item/plan/delta",
  "item/fileChange/outputDelta",
  "item/commandExecution/outputDelta",
] as const;
/** A text or output delta event type. */
export type StreamDeltaEventType = (typeof STREAM_DELTA_EVENT_TYPES)[number];

const textDeltaEvent = <T extends Exclude<StreamDeltaEventType, "item/commandExecution/outputDelta">>(type: T) =>
  z.object({
    type: z.literal(type),
    ...turnHead,
    itemId: z.string(),
    delta: z.string(),
    parentToolCallId: z.string().optional(),
  });

/** `turn/started`. */
export const TurnStartedEventSchema = z.object({
  type: z.literal("turn/started"),
  ...turnHead,
  parentToolCallId: z.string().optional(),
});
/** `turn/input/accepted`. */
export const TurnInputAcceptedEventSchema = z.object({
  type: z.literal("turn/input/accepted"),
  ...turnHead,
  clientRequestId: z.string(),
});
/** `turn/completed`. */
export const TurnCompletedEventSchema = z.object({
  type: z.literal("turn/completed"),
  ...turnHead,
  status: TurnStatusSchema,
  error: z.object({ message: z.string() }).optional(),
  providerCheckpointId: z.string().optional(),
});
/** `item/started`. */
export const ItemStartedEventSchema = z.object({ type: z.literal("item/started"), ...turnHead, item: ThreadItemSchema });
/** `item/completed`. */
export const ItemCompletedEventSchema = z.object({ type: z.literal("item/completed"), ...turnHead, item: ThreadItemSchema });
/** `item/agentMessage/delta`. */
export const AgentMessageDeltaEventSchema = textDeltaEvent("item/agentMessage/delta");
/** `item/reasoning/textDelta`. */
export const ReasoningTextDeltaEventSchema = textDeltaEvent("item/reasoning/textDelta");
/** `item/reasoning/summaryTextDelta`. */
export const ReasoningSummaryTextDeltaEventSchema = textDeltaEvent("item/reasoning/summaryTextDelta");
/** `item/plan/delta`. */
export const PlanDeltaEventSchema = textDeltaEvent("item/plan/delta");
/** `item/fileChange/outputDelta`. */
export const FileChangeOutputDeltaEventSchema = textDeltaEvent("item/fileChange/outputDelta");
/** `item/commandExecution/outputDelta`; `reset` is present only when true. */
export const CommandOutputDeltaEventSchema = z.object({
  type: z.literal("item/commandExecution/outputDelta"),
  ...turnHead,
  itemId: z.string(),
  delta: z.string(),
  reset: z.literal(true).optional(),
  parentToolCallId: z.string().optional(),
});
/** `item/toolCall/progress`. */
export const ToolCallProgressEventSchema = z.object({
  type: z.literal("item/toolCall/progress"),
  ...turnHead,
  itemId: z.string(),
  message: z.string().optional(),
  parentToolCallId: z.string().optional(),
});
/** `item/backgroundTask/progress`. */
export const BackgroundTaskProgressEventSchema = z.object({
  type: z.literal("item/backgroundTask/progress"),
  ...threadHead,
  item: BackgroundTaskItemSchema,
});
/** `item/backgroundTask/completed`. */
export const BackgroundTaskCompletedEventSchema = z.object({
  type: z.literal("item/backgroundTask/completed"),
  ...threadHead,
  item: BackgroundTaskItemSchema,
});
/** `item/delegation/progress`. */
export const DelegationProgressEventSchema = z.object({
  type: z.literal("item/delegation/progress"),
  ...threadHead,
  item: DelegationItemSchema,
});
/** `item/delegation/completed`. */
export const DelegationCompletedEventSchema = z.object({
  type: z.literal("item/delegation/completed"),
  ...threadHead,
  item: DelegationItemSchema,
});
/** `thread/tokenUsage/updated`. */
export const TokenUsageUpdatedEventSchema = z.object({
  type: z.literal("thread/tokenUsage/updated"),
  ...turnHead,
  tokenUsage: z.object({
    total: UsageBreakdownSchema,
    last: UsageBreakdownSchema,
    modelContextWindow: z.number().nullable(),
  }),
});
/** `thread/contextWindowUsage/updated` (turn or thread scope). */
export const ContextWindowUsageUpdatedEventSchema = z.object({
  type: z.literal("thread/contextWindowUsage/updated"),
  ...head,
  contextWindowUsage: z.object({
    usedTokens: z.number().nullable(),
    modelContextWindow: z.number().nullable(),
    estimated: z.boolean(),
  }),
});
/** `thread/compacted`. */
export const ThreadCompactedEventSchema = z.object({ type: z.literal("thread/compacted"), ...turnHead });
/** `thread/context/cleared`. */
export const ThreadContextClearedEventSchema = z.object({ type: z.literal("thread/context/cleared"), ...turnHead });
/** `turn/diff/updated`. */
export const TurnDiffUpdatedEventSchema = z.object({ type: z.literal("turn/diff/updated"), ...turnHead, diff: z.string() });
/** `provider/error`; the delta's `category` is not forwarded. */
export const ProviderErrorEventSchema = z.object({
  type: z.literal("provider/error"),
  ...head,
  message: z.string(),
  detail: z.string().optional(),
  willRetry: z.boolean().optional(),
  errorInfo: ErrorInfoSchema.optional(),
});
/** `provider/modelFallback`. */
export const ProviderModelFallbackEventSchema = z.object({
  type: z.literal("provider/modelFallback"),
  ...head,
  originalModel: z.string(),
  fallbackModel: z.string(),
  reason: z.enum(["refusal", "provider"]),
  message: z.string(),
});
/** `provider/warning`. */
export const ProviderWarningEventSchema = z.object({
  type: z.literal("provider/warning"),
  ...head,
  category: WarningCategorySchema,
  summary: z.string().optional(),
  details: z.string().optional(),
});
/** `provider/unhandled`; key order `type, threadId, providerThreadId, providerId, rawType, rawEvent, scope, parentToolCallId?`. */
export const ProviderUnhandledEventSchema = z.object({
  type: z.literal("provider/unhandled"),
  threadId: z.string(),
  providerThreadId: z.string(),
  providerId: z.string(),
  rawType: z.string(),
  rawEvent: ProviderRawEventSchema,
  scope: EventScopeSchema,
  parentToolCallId: z.string().optional(),
});
/** `thread/started`; it has no `providerThreadId`. */
export const ThreadStartedEventSchema = z.object({
  type: z.literal("thread/started"),
  threadId: z.string(),
  scope: z.object({ kind: z.literal("thread") }),
});
/** `thread/identity`; carries the real `providerThreadId`. */
export const ThreadIdentityEventSchema = z.object({ type: z.literal("thread/identity"), ...threadHead });
/** `thread/name/updated`. */
export const ThreadNameUpdatedEventSchema = z.object({
  type: z.literal("thread/name/updated"),
  ...threadHead,
  threadName: z.string(),
});
/** `provider/rateLimits/updated`. */
export const ProviderRateLimitsUpdatedEventSchema = z.object({
  type: z.literal("provider/rateLimits/updated"),
  ...threadHead,
  rateLimits: RateLimitsSchema,
});
/** `thread/extensionState/updated`. */
export const ExtensionStateUpdatedEventSchema = z.object({
  type: z.literal("thread/extensionState/updated"),
  ...threadHead,
  kind: ExtensionKindSchema,
  payload: JsonValueSchema,
});

/** Every canonical event the assembler emits, told apart by `type` (spec 10 §2.2). */
export const ThreadEventSchema = z.discriminatedUnion("type", [
  TurnStartedEventSchema,
  TurnInputAcceptedEventSchema,
  TurnCompletedEventSchema,
  ItemStartedEventSchema,
  ItemCompletedEventSchema,
  AgentMessageDeltaEventSchema,
  ReasoningTextDeltaEventSchema,
  ReasoningSummaryTextDeltaEventSchema,
  PlanDeltaEventSchema,
  FileChangeOutputDeltaEventSchema,
  CommandOutputDeltaEventSchema,
  ToolCallProgressEventSchema,
  BackgroundTaskProgressEventSchema,
  BackgroundTaskCompletedEventSchema,
  DelegationProgressEventSchema,
  DelegationCompletedEventSchema,
  TokenUsageUpdatedEventSchema,
  ContextWindowUsageUpdatedEventSchema,
  ThreadCompactedEventSchema,
  ThreadContextClearedEventSchema,
  TurnDiffUpdatedEventSchema,
  ProviderErrorEventSchema,
  ProviderModelFallbackEventSchema,
  ProviderWarningEventSchema,
  ProviderUnhandledEventSchema,
  ThreadStartedEventSchema,
  ThreadIdentityEventSchema,
  ThreadNameUpdatedEventSchema,
  ProviderRateLimitsUpdatedEventSchema,
  ExtensionStateUpdatedEventSchema,
]);
/** A canonical thread event. */
export type ThreadEvent = z.infer<typeof ThreadEventSchema>;
/** The `type` of a thread event. */
export type ThreadEventType = ThreadEvent["type"];
/** The event of one type, e.g. `ThreadEventOf<"item/started">`. */
export type ThreadEventOf<T extends ThreadEventType> = Extract<ThreadEvent, { type: T }>;

/** Every thread event type the assembler emits (spec 10 §2.2). */
export const THREAD_EVENT_TYPES = ThreadEventSchema.options.map((option) => option.shape.type.value) as ThreadEventType[];
