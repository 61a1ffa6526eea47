/**
 * The typed facts of an agent's JSON-RPC error answer to `session/prompt` (issue 37 "typed model
 * errors"): the HTTP status of the model call the agent names, the category it implies, and the
 * agent's own error kind, as the grammar's `ErrorInfo`. Read by shape, never by the agent's name:
 * - a positive three-digit JSON-RPC `code` is the HTTP status itself (gemini answers `code: 401`;
 *   JSON-RPC's own codes are negative);
 * - else the first status the error's text names: "status 401" (codex-acp), "API Error: 401"
 *   (Claude Code), "HTTP 401", a text starting "401 " (qwen's `details`), `"code":401` in a JSON text;
 * - `providerCode`: the agent's error kind (`data.errorKind`, `data.codex_error_info`, `data.errorName`).
 * `undefined` when the error names neither a status nor a kind. Pure.
 */
import type { ErrorCategory, ErrorInfo } from "../../protocol/thread-delta.js";
import { isRecord } from "../../protocol/json-value.js";

/** A JSON-RPC error as the agent sent it. */
export interface AgentErrorAnswer {
  code: number;
  message: string;
  data?: unknown;
}

const STATUS_IN_TEXT = /(?:\bstatus\s+|\bHTTP\s+|API Error:\s*|"code":\s*|^)([1-5]\d\d)\b/m;

function httpStatus(error: AgentErrorAnswer): number | null {
  if (Number.isInteger(error.code) && error.code >= 100 && error.code <= 599) return error.code;
  const data = isRecord(error.data) ? error.data : undefined;
  const texts = [error.message, typeof error.data === "string" ? error.data : undefined, data?.message, data?.details];
  for (const text of texts) {
    if (typeof text !== "string") continue;
    const match = STATUS_IN_TEXT.exec(text);
    if (match) return Number(match[1]);
  }
  return null;
}

/** The grammar's category of an HTTP status of a model call. */
export function categoryOfHttpStatus(status: number): ErrorCategory {
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 429) return "rate-limit";
  if (status === 402) return "billing";
  if (status === 503 || status === 529) return "overloaded";
  if (status >= 500) return "internal";
  if (status >= 400) return "bad-request";
  return "unknown";
}

/** The typed facts of a `session/prompt` error answer, or `undefined` when it names none. */
export function modelErrorInfo(error: AgentErrorAnswer): ErrorInfo | undefined {
  const status = httpStatus(error);
  const data = isRecord(error.data) ? error.data : undefined;
  const kind = [data?.errorKind, data?.codex_error_info, data?.errorName].find((value): value is string => typeof value === "string" && value.length > 0);
  if (status === null && kind === undefined) return undefined;
  return { category: status !== null ? categoryOfHttpStatus(status) : "unknown", providerCode: kind ?? null, httpStatusCode: status };
}
