/**
 * The parts of the `codex app-server` wire this bridge reads (spec 60 "Codex"), as zod schemas
 * written from the schema `codex app-server generate-ts` prints for @openai/codex 0.171.0. Every
 * object is loose (unknown keys pass through) and only the fields the bridge uses are typed, so a
 * newer app-server that adds fields is not rejected. Lines are JSON-RPC 2.0 without the
 * `"jsonrpc"` field; server→client requests count their ids from 0.
 */
import * as z from "zod";
import { UsageBreakdownSchema } from "../protocol/thread-delta-blocks.js";

/** Client → server request methods the bridge sends. */
export const CODEX_REQUESTS = {
  initialize: "initialize",
  threadStart: "thread/start",
  threadResume: "thread/resume",
  threadFork: "thread/fork",
  turnStart: "turn/start",
  turnSteer: "turn/steer",
  turnInterrupt: "turn/interrupt",
} as const;

/** The client notification that ends the handshake. */
export const CODEX_INITIALIZED = "initialized";

/** Server → client requests the bridge answers (spec 60 "Approval"). */
export const CODEX_SERVER_REQUESTS = {
  commandApproval: "item/commandExecution/requestApproval",
  fileChangeApproval: "item/fileChange/requestApproval",
} as const;

/** `{threadId, turnId}` of item and turn notifications. */
const Scoped = { threadId: z.string(), turnId: z.string() };

/** One `commandActions[]` entry: `read` (a file read), `listFiles`, `search`, `unknown`. */
export const CommandActionSchema = z.looseObject({
  type: z.string(),
  command: z.string().optional(),
  path: z.string().nullish(),
  query: z.string().nullish(),
  name: z.string().optional(),
});
/** One command action. */
export type CommandAction = z.infer<typeof CommandActionSchema>;

/** One `fileChange.changes[]` entry: path, kind `{type: add|delete|update, move_path?}`, the hunks. */
export const FileUpdateChangeSchema = z.looseObject({
  path: z.string(),
  kind: z.looseObject({ type: z.string(), move_path: z.string().nullish() }),
  diff: z.string(),
});

/** A thread item (`ThreadItem`): told apart by `type`; every field but `type` and `id` optional here. */
export const ThreadItemSchema = z.looseObject({
  type: z.string(),
  id: z.string(),
  text: z.string().optional(),
  summary: z.array(z.string()).optional(),
  content: z.unknown().optional(),
  command: z.string().optional(),
  cwd: z.string().optional(),
  status: z.unknown().optional(),
  commandActions: z.array(CommandActionSchema).optional(),
  aggregatedOutput: z.string().nullish(),
  exitCode: z.number().nullish(),
  durationMs: z.number().nullish(),
  changes: z.array(FileUpdateChangeSchema).optional(),
  server: z.string().optional(),
  tool: z.string().optional(),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
  contentItems: z.unknown().optional(),
  success: z.boolean().nullish(),
  query: z.string().optional(),
  path: z.string().optional(),
});
/** A thread item. */
export type ThreadItem = z.infer<typeof ThreadItemSchema>;

/** `item/started`, `item/completed`: `{item, threadId, turnId}`. */
export const ItemNotificationSchema = z.looseObject({ item: ThreadItemSchema, ...Scoped });

/** The text and output deltas: `{threadId, turnId, itemId, delta}`. */
export const ItemDeltaSchema = z.looseObject({ ...Scoped, itemId: z.string(), delta: z.string() });

/** `TurnError`: `{message, codexErrorInfo, additionalDetails}`. */
export const TurnErrorSchema = z.looseObject({
  message: z.string(),
  codexErrorInfo: z.unknown().optional(),
  additionalDetails: z.string().nullish(),
});
/** A turn error. */
export type TurnError = z.infer<typeof TurnErrorSchema>;

/** A turn: `{id, status: inProgress|completed|interrupted|failed, error}`. */
export const TurnSchema = z.looseObject({ id: z.string(), status: z.string(), error: TurnErrorSchema.nullish() });

/** `turn/started`, `turn/completed`: `{threadId, turn}`. */
export const TurnNotificationSchema = z.looseObject({ threadId: z.string(), turn: TurnSchema });

/** `error`: `{error, willRetry, threadId, turnId}`. */
export const ErrorNotificationSchema = z.looseObject({ error: TurnErrorSchema, willRetry: z.boolean(), ...Scoped });

/** One usage breakdown of `thread/tokenUsage/updated`: the protocol's own breakdown (spec 10 §1.2), loose like every object here. */
const TokenBreakdownSchema = UsageBreakdownSchema.loose();
/** `thread/tokenUsage/updated`: `{threadId, turnId, tokenUsage:{total, last, modelContextWindow}}`. */
export const TokenUsageNotificationSchema = z.looseObject({
  ...Scoped,
  tokenUsage: z.looseObject({ total: TokenBreakdownSchema, last: TokenBreakdownSchema, modelContextWindow: z.number().nullable() }),
});

/** `turn/diff/updated`: `{threadId, turnId, diff}`. */
export const TurnDiffSchema = z.looseObject({ ...Scoped, diff: z.string() });

/** `turn/plan/updated`: `{threadId, turnId, explanation, plan:[{step, status: pending|inProgress|completed}]}`. */
export const TurnPlanSchema = z.looseObject({
  ...Scoped,
  explanation: z.string().nullish(),
  plan: z.array(z.looseObject({ step: z.string(), status: z.string() })),
});

/** The approval requests: `{threadId, turnId, itemId, command?, cwd?, commandActions?, reason?}`. */
export const ApprovalRequestSchema = z.looseObject({
  ...Scoped,
  itemId: z.string(),
  command: z.string().nullish(),
  cwd: z.string().nullish(),
  commandActions: z.array(CommandActionSchema).nullish(),
  reason: z.string().nullish(),
  grantRoot: z.string().nullish(),
});
/** An approval request's params. */
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** The result of `thread/start`, `thread/resume`, `thread/fork`: `{thread:{id, …}, model, …}`. */
export const ThreadResultSchema = z.looseObject({ thread: z.looseObject({ id: z.string().min(1) }) });

/** The result of `turn/start`: `{turn:{id, status}}`. */
export const TurnStartResultSchema = z.looseObject({ turn: TurnSchema });

/** `thread/name/updated`: `{threadId, threadName?}`. */
export const ThreadNameSchema = z.looseObject({ threadId: z.string(), threadName: z.string().nullish() });

/** `warning`, `configWarning`, `deprecationNotice`: `{message?, summary?, details?}`. */
export const WarningSchema = z.looseObject({ message: z.string().optional(), summary: z.string().optional(), details: z.string().nullish() });

/** `model/rerouted`: `{fromModel, toModel, reason}`. */
export const ModelReroutedSchema = z.looseObject({ fromModel: z.string(), toModel: z.string(), reason: z.unknown().optional() });
