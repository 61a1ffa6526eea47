/**
 * The `result` line (spec 60 "Turn end"): the only turn-end signal of Claude Code. `is_error`
 * (not `subtype`) decides failure; `terminal_reason` `aborted_*` is an interrupted turn;
 * `api_error_status` 401 and 429 become the recovery hints `authRequired` and `rateLimited`.
 * Usage and cost are reported per turn. Pure.
 */
import type { RecoveryHint } from "../protocol/recovery.js";
import type { ErrorCategory, ThreadDelta, TurnStatus, UsageBreakdown } from "../protocol/thread-delta.js";
import { isRecord } from "../protocol/json-value.js";
import type { StreamJsonMessage } from "./wire.js";

/** Extension kind of the session's cost (the ACP bridge reports it under the same kind). */
export const SESSION_COST_EXTENSION = "bb/session-cost";

/** What a `result` line says about its turn. */
export interface TurnEnd {
  status: TurnStatus;
  /** Why a failed turn failed: the synthetic API error text, else `result`, else the subtype. */
  error?: string;
  /** The HTTP status of an API error, when the CLI reports one. */
  httpStatus?: number;
  /** `authRequired` for 401, `rateLimited` for 429. */
  recovery?: RecoveryHint;
  /** Tokens of this turn. */
  usage: UsageBreakdown;
  /** The model's context window, when `modelUsage` reports one. */
  contextWindow: number | null;
  /** `total_cost_usd` (cumulative over the process, as the CLI counts it), when reported. */
  costUsd?: number;
}

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/** This turn's tokens from `result.usage` (input counts cache reads and writes; cached = cache reads). */
export function usageOf(result: StreamJsonMessage): UsageBreakdown {
  const usage = isRecord(result.usage) ? result.usage : {};
  const cached = num(usage.cache_read_input_tokens);
  const input = num(usage.input_tokens) + cached + num(usage.cache_creation_input_tokens);
  const output = num(usage.output_tokens);
  const details = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return { totalTokens: input + output, inputTokens: input, cachedInputTokens: cached, outputTokens: output, reasoningOutputTokens: num(details.thinking_tokens) };
}

function contextWindowOf(result: StreamJsonMessage): number | null {
  const models = isRecord(result.modelUsage) ? Object.values(result.modelUsage) : [];
  const windows = models.map((model) => (isRecord(model) ? model.contextWindow : undefined)).filter((size): size is number => typeof size === "number");
  return windows[0] ?? null;
}

function recoveryOf(httpStatus: number | undefined, message: string): RecoveryHint | undefined {
  if (httpStatus === 401) return { kind: "authRequired", message, retryable: false };
  if (httpStatus === 429) return { kind: "rateLimited", message, retryable: true };
  return undefined;
}

/** Reads a `result` line; `syntheticError` is the text of the turn's synthetic API-error message, if any. */
export function readTurnEnd(result: StreamJsonMessage, syntheticError: string | undefined): TurnEnd {
  const reason = typeof result.terminal_reason === "string" ? result.terminal_reason : "";
  const httpStatus = typeof result.api_error_status === "number" ? result.api_error_status : undefined;
  const common = {
    usage: usageOf(result),
    contextWindow: contextWindowOf(result),
    ...(typeof result.total_cost_usd === "number" ? { costUsd: result.total_cost_usd } : {}),
  };
  if (result.is_error !== true) return { status: "completed", ...common };
  if (reason.startsWith("aborted")) return { status: "interrupted", ...common };
  const error = syntheticError || (typeof result.result === "string" && result.result) || `Claude Code turn failed (${String(result.subtype)})`;
  const recovery = recoveryOf(httpStatus, error);
  return { status: "failed", error, ...(httpStatus !== undefined ? { httpStatus } : {}), ...(recovery ? { recovery } : {}), ...common };
}

/** The error category of an API error's HTTP status. */
export function errorCategoryOf(httpStatus: number | undefined): ErrorCategory {
  if (httpStatus === 401 || httpStatus === 403) return "unauthorized";
  if (httpStatus === 429) return "rate-limit";
  if (httpStatus === 529) return "overloaded";
  if (httpStatus === 400) return "bad-request";
  if (httpStatus !== undefined && httpStatus >= 500) return "internal";
  return "unknown";
}

/**
 * The deltas that end a turn: `usage` (this turn as `last`, `total` the session's running sum),
 * the cost, a `provider.error` for a failed turn, then `turn.boundary`.
 */
export function turnEndDeltas(end: TurnEnd, total: UsageBreakdown): ThreadDelta[] {
  const deltas: ThreadDelta[] = [{ kind: "usage", total, last: end.usage, modelContextWindow: end.contextWindow }];
  if (end.costUsd !== undefined) {
    deltas.push({ kind: "extension.state", extensionKind: SESSION_COST_EXTENSION, payload: { amount: end.costUsd, currency: "USD" } });
  }
  if (end.status === "failed" && end.error !== undefined) {
    const category = errorCategoryOf(end.httpStatus);
    deltas.push({
      kind: "provider.error",
      message: end.error,
      category,
      errorInfo: { category, providerCode: null, httpStatusCode: end.httpStatus ?? null },
    });
  }
  deltas.push({ kind: "turn.boundary", status: end.status, ...(end.status === "failed" && end.error !== undefined ? { error: { message: end.error } } : {}) });
  return deltas;
}
