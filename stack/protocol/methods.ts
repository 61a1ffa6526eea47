/**
 * The method set of protocol version 2 (spec 20 §1.2, §1.4, §1.5; spec 30 §4, §6.1, §6.2):
 * requests the runtime sends to a bridge, notifications a bridge sends to the runtime, and
 * requests a bridge sends to the runtime. Every params and result schema here is lenient at
 * the edges: unknown keys pass through, so a newer peer is not rejected for adding fields.
 */
import * as z from "zod";
import { InitializeParamsSchema, InitializeResultSchema } from "./handshake.js";
import { ProviderRecoveryParamsSchema } from "./recovery.js";

// ---------------------------------------------------------------------------------------------
// Shared building blocks

const NonEmpty = z.string().min(1);

/**
 * Per-thread or per-turn execution options (spec 20 §1.2 "Execution options"). Only the keys
 * a bridge commonly reads are typed; the rest (promptMode, permissionScope, …) pass through.
 */
export const ExecutionOptionsSchema = z.looseObject({
  model: z.string().optional(),
  serviceTier: z.string().optional(),
  reasoningLevel: z.string().optional(),
  instructions: z.string().optional(),
  envVars: z.record(z.string(), z.string()).optional(),
  permissionMode: z.string().optional(),
  providerOptions: z.record(z.string(), z.unknown()).optional(),
  sessionOptions: z.record(z.string(), z.unknown()).optional(),
});
/** Execution options of a thread or turn. */
export type ExecutionOptions = z.infer<typeof ExecutionOptionsSchema>;

/** One user input item of a turn (`{type:"text", text, mentions?}`, images, …). */
export const TurnInputItemSchema = z.looseObject({ type: NonEmpty });
/** One user input item of a turn. */
export type TurnInputItem = z.infer<typeof TurnInputItemSchema>;

// ---------------------------------------------------------------------------------------------
// Runtime → bridge requests

/** Wire names of the requests a runtime sends to a bridge (spec 20 §1.2, spec 30 §6.1). */
export const BRIDGE_REQUEST_METHODS = {
  initialize: "initialize",
  modelList: "model/list",
  threadStart: "thread/start",
  threadResume: "thread/resume",
  threadFork: "thread/fork",
  turnStart: "turn/start",
  turnSteer: "turn/steer",
  threadStop: "thread/stop",
  threadDiscard: "thread/discard",
  threadArchive: "thread/archive",
  threadUnarchive: "thread/unarchive",
  threadNameSet: "thread/name/set",
  threadGoalClear: "thread/goal/clear",
  skillsConfigure: "skills/configure",
  skillsScanRoots: "skills/scanRoots",
  providerHealth: "provider/health",
  providerUsage: "provider/usage",
  providerInstallationStatus: "provider/installation/status",
  providerInstallationRun: "provider/installation/run",
} as const;

/** A runtime → bridge request method name. */
export type BridgeRequestMethod = (typeof BRIDGE_REQUEST_METHODS)[keyof typeof BRIDGE_REQUEST_METHODS];

/** Params of `model/list`: `{providerOptions?, cwd?}`. */
export const ModelListParamsSchema = z.looseObject({
  providerOptions: z.record(z.string(), z.unknown()).optional(),
  cwd: z.string().optional(),
});

/**
 * Params of `thread/start` (spec 20 §1.2): `{threadId, cwd, options?, instructionMode?,
 * dynamicTools?, disallowedTools?, input?}`. The reference requires `instructionMode` but
 * never reads it; here it is optional.
 */
export const ThreadStartParamsSchema = z.looseObject({
  threadId: NonEmpty,
  cwd: z.string(),
  options: ExecutionOptionsSchema.optional(),
  instructionMode: z.string().optional(),
  dynamicTools: z.array(z.unknown()).optional(),
  disallowedTools: z.array(z.unknown()).optional(),
  input: z.array(TurnInputItemSchema).optional(),
});
/** Params of `thread/start`. */
export type ThreadStartParams = z.infer<typeof ThreadStartParamsSchema>;

/** Params of `thread/resume`: those of `thread/start` plus the `providerThreadId` to reload. */
export const ThreadResumeParamsSchema = ThreadStartParamsSchema.extend({ providerThreadId: NonEmpty });
/** Params of `thread/resume`. */
export type ThreadResumeParams = z.infer<typeof ThreadResumeParamsSchema>;

/** Params of `thread/fork`: those of `thread/start` plus the source session and checkpoint. */
export const ThreadForkParamsSchema = ThreadStartParamsSchema.extend({
  sourceProviderThreadId: NonEmpty,
  sourceProviderCheckpointId: z.string().nullish(),
});
/** Params of `thread/fork`. */
export type ThreadForkParams = z.infer<typeof ThreadForkParamsSchema>;

/** Params of `turn/start`: `{threadId, providerThreadId?, input[], clientRequestId, options?}`. */
export const TurnStartParamsSchema = z.looseObject({
  threadId: NonEmpty,
  providerThreadId: z.string().nullish(),
  input: z.array(TurnInputItemSchema),
  clientRequestId: NonEmpty,
  options: ExecutionOptionsSchema.optional(),
});
/** Params of `turn/start`. */
export type TurnStartParams = z.infer<typeof TurnStartParamsSchema>;

/** Params of `turn/steer`: those of `turn/start` plus `expectedTurnId?`. */
export const TurnSteerParamsSchema = TurnStartParamsSchema.extend({ expectedTurnId: z.string().nullish() });
/** Params of `turn/steer`. */
export type TurnSteerParams = z.infer<typeof TurnSteerParamsSchema>;

/** `thread/stop` intents (spec 30 §5). */
export const ThreadStopIntentSchema = z.enum(["interrupt", "release"]);
/** A `thread/stop` intent. */
export type ThreadStopIntent = z.infer<typeof ThreadStopIntentSchema>;

/** Params of `thread/stop`: `{threadId, intent, activeTurnId?: string|null, providerThreadId?}`. */
export const ThreadStopParamsSchema = z.looseObject({
  threadId: NonEmpty,
  intent: ThreadStopIntentSchema,
  activeTurnId: z.string().nullish(),
  providerThreadId: z.string().nullish(),
});
/** Params of `thread/stop`. */
export type ThreadStopParams = z.infer<typeof ThreadStopParamsSchema>;

const ThreadOnlyParamsSchema = z.looseObject({ threadId: NonEmpty, providerThreadId: z.string().nullish() });

/** Params of `thread/discard` (no-op in the ACP bridge). */
export const ThreadDiscardParamsSchema = z.looseObject({ threadId: z.string().optional() });
/** Params of `thread/archive` and `thread/unarchive`. */
export const ThreadArchiveParamsSchema = ThreadOnlyParamsSchema;
/** Params of `thread/name/set`. */
export const ThreadNameSetParamsSchema = ThreadOnlyParamsSchema.extend({ name: z.string() });
/** Params of `thread/goal/clear`. */
export const ThreadGoalClearParamsSchema = ThreadOnlyParamsSchema;

/** Params of `skills/configure`: `{roots[{id, path, skills[{name, description}]}]}`. */
export const SkillsConfigureParamsSchema = z.looseObject({
  roots: z.array(
    z.looseObject({
      id: z.string(),
      path: z.string(),
      skills: z.array(z.looseObject({ name: z.string(), description: z.string() })),
    }),
  ),
});
/** Params of `skills/scanRoots` (not served by the ACP bridge). */
export const SkillsScanRootsParamsSchema = z.looseObject({});

/** Params of the maintenance requests `provider/health`, `provider/usage`, `provider/installation/status`. */
export const ProviderMaintenanceParamsSchema = z.looseObject({
  providerId: z.string().optional(),
  providerOptions: z.record(z.string(), z.unknown()).optional(),
});
/** Params of `provider/installation/run`: maintenance params plus `action: install|update`. */
export const ProviderInstallationRunParamsSchema = ProviderMaintenanceParamsSchema.extend({
  action: z.enum(["install", "update"]),
});

/** The params schema of every runtime → bridge request, by wire name. */
export const BRIDGE_REQUEST_PARAMS_SCHEMAS = {
  initialize: InitializeParamsSchema,
  "model/list": ModelListParamsSchema,
  "thread/start": ThreadStartParamsSchema,
  "thread/resume": ThreadResumeParamsSchema,
  "thread/fork": ThreadForkParamsSchema,
  "turn/start": TurnStartParamsSchema,
  "turn/steer": TurnSteerParamsSchema,
  "thread/stop": ThreadStopParamsSchema,
  "thread/discard": ThreadDiscardParamsSchema,
  "thread/archive": ThreadArchiveParamsSchema,
  "thread/unarchive": ThreadArchiveParamsSchema,
  "thread/name/set": ThreadNameSetParamsSchema,
  "thread/goal/clear": ThreadGoalClearParamsSchema,
  "skills/configure": SkillsConfigureParamsSchema,
  "skills/scanRoots": SkillsScanRootsParamsSchema,
  "provider/health": ProviderMaintenanceParamsSchema,
  "provider/usage": ProviderMaintenanceParamsSchema,
  "provider/installation/status": ProviderMaintenanceParamsSchema,
  "provider/installation/run": ProviderInstallationRunParamsSchema,
} as const satisfies { readonly [M in BridgeRequestMethod]: z.ZodType };

/** One model of a `model/list` result; only `id` is required, the rest passes through. */
export const ModelDescriptorSchema = z.looseObject({
  id: NonEmpty,
  model: z.string().optional(),
  displayName: z.string().optional(),
  description: z.string().optional(),
  isDefault: z.boolean().optional(),
});
/** One model of a `model/list` result. */
export type ModelDescriptor = z.infer<typeof ModelDescriptorSchema>;

/** Result of `model/list`: `{models, selectedOnlyModels}` (spec 20 §3.11). */
export const ModelListResultSchema = z.looseObject({
  models: z.array(ModelDescriptorSchema),
  selectedOnlyModels: z.array(ModelDescriptorSchema).default([]),
});
/** Result of `model/list`. */
export type ModelListResult = z.infer<typeof ModelListResultSchema>;

/** Result of `thread/start`, `thread/resume`, `thread/fork`: `{providerThreadId, sessionRestorable}`. */
export const ThreadSessionResultSchema = z.looseObject({
  providerThreadId: NonEmpty,
  sessionRestorable: z.boolean().optional(),
});
/** Result of `thread/start`, `thread/resume`, `thread/fork`. */
export type ThreadSessionResult = z.infer<typeof ThreadSessionResultSchema>;

/** Result of `turn/start` and `turn/steer`: `{threadId}`. */
export const TurnResultSchema = z.looseObject({ threadId: NonEmpty });
/** Result of `turn/start` and `turn/steer`. */
export type TurnResult = z.infer<typeof TurnResultSchema>;

/** Result of `thread/stop`, `thread/discard`, `skills/configure` and the other acknowledgements: `{ok:true}`. */
export const OkResultSchema = z.looseObject({ ok: z.literal(true) });
/** An `{ok:true}` acknowledgement. */
export type OkResult = z.infer<typeof OkResultSchema>;

/** Results of the maintenance requests: shapes owned by each provider, passed through. */
export const ProviderMaintenanceResultSchema = z.looseObject({});

/** The result schema of every runtime → bridge request, by wire name. */
export const BRIDGE_REQUEST_RESULT_SCHEMAS = {
  initialize: InitializeResultSchema,
  "model/list": ModelListResultSchema,
  "thread/start": ThreadSessionResultSchema,
  "thread/resume": ThreadSessionResultSchema,
  "thread/fork": ThreadSessionResultSchema,
  "turn/start": TurnResultSchema,
  "turn/steer": TurnResultSchema,
  "thread/stop": OkResultSchema,
  "thread/discard": OkResultSchema,
  "thread/archive": OkResultSchema,
  "thread/unarchive": OkResultSchema,
  "thread/name/set": OkResultSchema,
  "thread/goal/clear": OkResultSchema,
  "skills/configure": OkResultSchema,
  "skills/scanRoots": ProviderMaintenanceResultSchema,
  "provider/health": ProviderMaintenanceResultSchema,
  "provider/usage": ProviderMaintenanceResultSchema,
  "provider/installation/status": ProviderMaintenanceResultSchema,
  "provider/installation/run": ProviderMaintenanceResultSchema,
} as const satisfies { readonly [M in BridgeRequestMethod]: z.ZodType };

/** Params of a runtime → bridge request after parsing, by wire name. */
export type BridgeRequestParams<M extends BridgeRequestMethod> = z.output<(typeof BRIDGE_REQUEST_PARAMS_SCHEMAS)[M]>;

/** What a bridge may send as the result of a runtime → bridge request, by wire name. */
export type BridgeRequestResult<M extends BridgeRequestMethod> = z.input<(typeof BRIDGE_REQUEST_RESULT_SCHEMAS)[M]>;

/** True when `method` is a runtime → bridge request this protocol version defines. */
export function isBridgeRequestMethod(method: string): method is BridgeRequestMethod {
  return Object.prototype.hasOwnProperty.call(BRIDGE_REQUEST_PARAMS_SCHEMAS, method);
}

// ---------------------------------------------------------------------------------------------
// Bridge → runtime notifications

/** Wire names of the notifications a bridge sends to the runtime (spec 10 §1.1, spec 30 §6.2). */
export const BRIDGE_NOTIFICATION_METHODS = {
  threadDelta: "thread/delta",
  threadIdentity: "thread/identity",
  sessionReplaced: "session/replaced",
  providerRaw: "provider/raw",
  providerRecovery: "provider/recovery",
  error: "error",
  cancelled: "notifications/cancelled",
} as const;

/** A bridge → runtime notification method name. */
export type BridgeNotificationMethod = (typeof BRIDGE_NOTIFICATION_METHODS)[keyof typeof BRIDGE_NOTIFICATION_METHODS];

/** The v2 notification `thread/openWork`, seen in old lanes and ignored (spec 10 §1.1). */
export const LEGACY_THREAD_OPEN_WORK_METHOD = "thread/openWork";

/**
 * The `thread/delta` envelope only: `{threadId, deltas[]}` with each delta unchecked. The
 * grammar-v3 check of the deltas is `parseThreadDeltaParams` (thread-delta.ts).
 */
export const ThreadDeltaEnvelopeSchema = z.looseObject({ threadId: NonEmpty, deltas: z.array(z.unknown()) });

/** `thread/identity {threadId, providerThreadId, sessionRestorable?}`. */
export const ThreadIdentityParamsSchema = z.looseObject({
  threadId: NonEmpty,
  providerThreadId: NonEmpty,
  sessionRestorable: z.boolean().optional(),
});
/** `thread/identity` params. */
export type ThreadIdentityParams = z.infer<typeof ThreadIdentityParamsSchema>;

/** `session/replaced {threadId, providerThreadId|null, reason, contextLost=false}`. */
export const SessionReplacedParamsSchema = z.looseObject({
  threadId: NonEmpty,
  providerThreadId: z.string().nullable(),
  reason: z.string(),
  contextLost: z.boolean().default(false),
});
/** `session/replaced` params. */
export type SessionReplacedParams = z.infer<typeof SessionReplacedParamsSchema>;

/** `provider/raw {threadId?, coverage: noise|unknown, payload}`. */
export const ProviderRawParamsSchema = z.looseObject({
  threadId: z.string().optional(),
  coverage: z.enum(["noise", "unknown"]),
  payload: z.unknown(),
});
/** `provider/raw` params. */
export type ProviderRawParams = z.infer<typeof ProviderRawParamsSchema>;

/** `error {threadId?, providerThreadId?, message}`. */
export const BridgeErrorParamsSchema = z.looseObject({
  threadId: z.string().optional(),
  providerThreadId: z.string().optional(),
  message: z.string(),
});
/** `error` notification params. */
export type BridgeErrorParams = z.infer<typeof BridgeErrorParamsSchema>;

/** `notifications/cancelled {requestId}`: the bridge abandoned its own request (spec 30 §6.2). */
export const CancelledParamsSchema = z.looseObject({ requestId: z.union([z.string(), z.number()]) });

/** The params schema of every bridge → runtime notification, by wire name. */
export const BRIDGE_NOTIFICATION_PARAMS_SCHEMAS = {
  "thread/delta": ThreadDeltaEnvelopeSchema,
  "thread/identity": ThreadIdentityParamsSchema,
  "session/replaced": SessionReplacedParamsSchema,
  "provider/raw": ProviderRawParamsSchema,
  "provider/recovery": ProviderRecoveryParamsSchema,
  error: BridgeErrorParamsSchema,
  "notifications/cancelled": CancelledParamsSchema,
} as const satisfies { readonly [M in BridgeNotificationMethod]: z.ZodType };

// ---------------------------------------------------------------------------------------------
// Bridge → runtime requests

/** Wire names of the requests a bridge sends to the runtime (spec 20 §1.5). */
export const BRIDGE_TO_RUNTIME_REQUEST_METHODS = {
  interactionRequest: "interaction/request",
  itemToolCall: "item/tool/call",
} as const;

/** A bridge → runtime request method name. */
export type BridgeToRuntimeRequestMethod = (typeof BRIDGE_TO_RUNTIME_REQUEST_METHODS)[keyof typeof BRIDGE_TO_RUNTIME_REQUEST_METHODS];

/**
 * `interaction/request {threadId, providerThreadId?, turnId: string|null, payload}`; payload
 * `{kind:"approval", subject, reason, availableDecisions}` or `{kind:"user_question", …}`.
 */
export const InteractionRequestParamsSchema = z.looseObject({
  threadId: NonEmpty,
  providerThreadId: z.string().nullish(),
  turnId: z.string().nullable(),
  payload: z.looseObject({ kind: NonEmpty }),
});
/** `interaction/request` params. */
export type InteractionRequestParams = z.infer<typeof InteractionRequestParamsSchema>;

/** Approval decisions a runtime can return (spec 20 §3.8). */
export const ApprovalDecisionSchema = z.enum(["allow_once", "allow_for_session", "deny"]);

/** Result of `interaction/request`, e.g. `{decision:"allow_once", grantedPermissions:null}`; passes through. */
export const InteractionRequestResultSchema = z.looseObject({ decision: z.string().optional() });
/** Result of `interaction/request`. */
export type InteractionRequestResult = z.infer<typeof InteractionRequestResultSchema>;

/** `item/tool/call {threadId, providerThreadId?, turnId: string|null, callId, tool, arguments}`. */
export const ItemToolCallParamsSchema = z.looseObject({
  threadId: NonEmpty,
  providerThreadId: z.string().nullish(),
  turnId: z.string().nullable(),
  callId: NonEmpty,
  tool: NonEmpty,
  arguments: z.unknown(),
});
/** `item/tool/call` params. */
export type ItemToolCallParams = z.infer<typeof ItemToolCallParamsSchema>;

/** One content item of a dynamic tool result. */
export const ToolContentItemSchema = z.union([z.looseObject({ type: z.literal("inputText"), text: z.string() }), z.looseObject({ type: z.literal("inputImage"), imageUrl: z.string() })]);

/** Result of `item/tool/call`: `{success, contentItems[]}`. */
export const ItemToolCallResultSchema = z.looseObject({
  success: z.boolean(),
  contentItems: z.array(ToolContentItemSchema),
});
/** Result of `item/tool/call`. */
export type ItemToolCallResult = z.infer<typeof ItemToolCallResultSchema>;

/** Params schemas of the bridge → runtime requests, by wire name. */
export const BRIDGE_TO_RUNTIME_REQUEST_PARAMS_SCHEMAS = {
  "interaction/request": InteractionRequestParamsSchema,
  "item/tool/call": ItemToolCallParamsSchema,
} as const satisfies { readonly [M in BridgeToRuntimeRequestMethod]: z.ZodType };

/** Result schemas of the bridge → runtime requests, by wire name. */
export const BRIDGE_TO_RUNTIME_REQUEST_RESULT_SCHEMAS = {
  "interaction/request": InteractionRequestResultSchema,
  "item/tool/call": ItemToolCallResultSchema,
} as const satisfies { readonly [M in BridgeToRuntimeRequestMethod]: z.ZodType };
