/**
 * Recovery hints (spec 30 §4): a typed signal the runtime keys on by `kind`, never by text.
 *
 * One payload, two carriers: `error.data.recovery` on the error response of a rejected
 * request, or the notification `provider/recovery {threadId?, …hint}` when no request is
 * there to reject. Never both for one event.
 */
import * as z from "zod";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "./errors.js";

/** The five recovery kinds (spec 30 §4). */
export const RECOVERY_KINDS = ["sessionArchived", "authRequired", "restartRecommended", "staleTurn", "rateLimited"] as const;

/** A recovery kind. */
export const RecoveryKindSchema = z.enum(RECOVERY_KINDS);
/** A recovery kind. */
export type RecoveryKind = z.infer<typeof RecoveryKindSchema>;

/** The recovery payload `{kind, message (non-empty), retryable}`; unknown keys pass through. */
export const RecoveryHintSchema = z.looseObject({
  kind: RecoveryKindSchema,
  message: z.string().min(1),
  retryable: z.boolean(),
});
/** The recovery payload. */
export type RecoveryHint = z.infer<typeof RecoveryHintSchema>;

/**
 * Params of the `provider/recovery` notification: the hint plus `threadId`, omitted for
 * provider-wide conditions.
 */
export const ProviderRecoveryParamsSchema = RecoveryHintSchema.extend({
  threadId: z.string().min(1).optional(),
});
/** Params of the `provider/recovery` notification. */
export type ProviderRecoveryParams = z.infer<typeof ProviderRecoveryParamsSchema>;

/** The `error.data` carrier: `{recovery: hint}`. Other keys of `data` pass through. */
export const RecoveryErrorDataSchema = z.looseObject({ recovery: RecoveryHintSchema });
/** The `error.data` carrier. */
export type RecoveryErrorData = z.infer<typeof RecoveryErrorDataSchema>;

/** Builds the `error.data` value carrying a hint. */
export function recoveryErrorData(hint: RecoveryHint): RecoveryErrorData {
  return { recovery: hint };
}

/**
 * Reads the hint out of an error response's `data`, or null when there is none or it is
 * malformed (a malformed hint is treated as absent, never as a guessed kind).
 */
export function readRecoveryHint(data: unknown): RecoveryHint | null {
  const parsed = RecoveryErrorDataSchema.safeParse(data);
  return parsed.success ? parsed.data.recovery : null;
}

/**
 * Thrown by a request handler to reject the request with a recovery hint in
 * `error.data.recovery` (spec 30 §4 `BridgeRecoveryError({code, message, recovery, cause?})`).
 * `code` defaults to -32000 (bridge error).
 */
export class BridgeRecoveryError extends BridgeJsonRpcError {
  /** The hint sent in `error.data.recovery`. */
  readonly recovery: RecoveryHint;

  constructor(options: { code?: number; message: string; recovery: RecoveryHint; cause?: unknown }) {
    super(options.code ?? BRIDGE_JSON_RPC_ERRORS.bridgeError, options.message, recoveryErrorData(options.recovery), {
      cause: options.cause,
    });
    this.recovery = options.recovery;
  }
}
