/**
 * Item shapes of grammar v3 (spec 10 §1.4) and progress snapshots (spec 10 §1.3).
 * Re-exported by `thread-delta.ts`.
 */
import * as z from "zod";
import { BackgroundTaskStatusSchema, ExtensionKindSchema, ItemStatusSchema, JsonValueSchema, KeyPartSchema, PlanStepSchema, SearchModeSchema } from "./thread-delta-blocks.js";

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
