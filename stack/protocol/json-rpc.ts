/**
 * The JSON-RPC 2.0 envelope of the provider bridge protocol (spec 10 §1.1, spec 20 §1.1).
 *
 * The wire is line-delimited JSON-RPC 2.0 over stdio with an independent id space per
 * direction. A message is a request or a notification when it carries `method` (a request
 * also carries `id`), and a response when it carries `id` but no `method`. The kind is never
 * inferred from the shape of a result. Unknown envelope keys pass through.
 */
import * as z from "zod";

/** The only `jsonrpc` value the protocol accepts. */
export const JSON_RPC_VERSION = "2.0";

/** A JSON-RPC id: a string or a number. Each direction mints its own ids. */
export const JsonRpcIdSchema = z.union([z.string(), z.number()]);
/** A JSON-RPC id: a string or a number. */
export type JsonRpcId = z.infer<typeof JsonRpcIdSchema>;

/** The `error` member of an error response: `{code, message, data?}`. */
export const JsonRpcErrorObjectSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
/** The `error` member of an error response. */
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

/** A request: `{jsonrpc:"2.0", id, method, params?}`. */
export const JsonRpcRequestSchema = z.looseObject({
  jsonrpc: z.literal(JSON_RPC_VERSION),
  id: JsonRpcIdSchema,
  method: z.string().min(1),
  params: z.unknown().optional(),
});
/** A request: `{jsonrpc:"2.0", id, method, params?}`. */
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

/** A notification: `{jsonrpc:"2.0", method, params?}` (no `id`). */
export const JsonRpcNotificationSchema = z.looseObject({
  jsonrpc: z.literal(JSON_RPC_VERSION),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
/** A notification: `{jsonrpc:"2.0", method, params?}`. */
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;

/** A success response: `{jsonrpc:"2.0", id, result}`. */
export const JsonRpcSuccessResponseSchema = z.looseObject({
  jsonrpc: z.literal(JSON_RPC_VERSION),
  id: JsonRpcIdSchema,
  result: z.unknown(),
});
/** A success response. */
export type JsonRpcSuccessResponse = z.infer<typeof JsonRpcSuccessResponseSchema>;

/**
 * An error response: `{jsonrpc:"2.0", id, error}`. `id` is null only when the request's id
 * could not be read (JSON-RPC 2.0 §5).
 */
export const JsonRpcErrorResponseSchema = z.looseObject({
  jsonrpc: z.literal(JSON_RPC_VERSION),
  id: JsonRpcIdSchema.nullable(),
  error: JsonRpcErrorObjectSchema,
});
/** An error response. */
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

/** Any valid protocol message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What {@link classifyJsonRpcMessage} makes of one parsed value. */
export type ClassifiedJsonRpcMessage =
  { kind: "request"; message: JsonRpcRequest } | { kind: "notification"; message: JsonRpcNotification } | { kind: "response"; message: JsonRpcResponse } | { kind: "invalid"; reason: string };

/**
 * The kind a JSON-RPC message claims by the presence of `method` and `id` alone (spec 10
 * §1.1): with `method` a request (with an `id`) or a notification (without); without `method`
 * but with `id` a response; `undefined` when it has neither. The one place the kind is decided;
 * validating the rest is the caller's ({@link classifyJsonRpcMessage} with the schemas, the
 * replay's wire shape without a copy). The result's shape never matters.
 */
export function jsonRpcKindOf(message: Record<string, unknown>): "request" | "notification" | "response" | undefined {
  if ("method" in message) return message.id !== undefined ? "request" : "notification";
  return "id" in message ? "response" : undefined;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`).join("; ");
}

/**
 * Tells a parsed JSON value apart as request, notification or response (spec 10 §1.1).
 *
 * The decision looks only at the presence of `method` and `id`: with `method` it is a
 * request (with `id`) or a notification (without); without `method` but with `id` it is a
 * response, which must carry exactly one of `result` and `error`. The result's shape never
 * matters. Anything else, including a missing `jsonrpc:"2.0"`, is `invalid` with a reason.
 * Never throws.
 */
export function classifyJsonRpcMessage(value: unknown): ClassifiedJsonRpcMessage {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "invalid", reason: "a JSON-RPC message must be a JSON object" };
  }
  const record = value as Record<string, unknown>;
  const kind = jsonRpcKindOf(record);
  if (kind === "request") {
    const parsed = JsonRpcRequestSchema.safeParse(value);
    return parsed.success ? { kind: "request", message: parsed.data } : { kind: "invalid", reason: `invalid request: ${describeIssues(parsed.error)}` };
  }
  if (kind === "notification") {
    const parsed = JsonRpcNotificationSchema.safeParse(value);
    return parsed.success ? { kind: "notification", message: parsed.data } : { kind: "invalid", reason: `invalid notification: ${describeIssues(parsed.error)}` };
  }
  if (kind === "response") {
    const hasResult = "result" in record;
    const hasError = "error" in record;
    if (hasResult === hasError) {
      return { kind: "invalid", reason: "a response must carry exactly one of result and error" };
    }
    const parsed = hasError ? JsonRpcErrorResponseSchema.safeParse(value) : JsonRpcSuccessResponseSchema.safeParse(value);
    return parsed.success ? { kind: "response", message: parsed.data } : { kind: "invalid", reason: `invalid response: ${describeIssues(parsed.error)}` };
  }
  return { kind: "invalid", reason: "a JSON-RPC message needs a method (request, notification) or an id (response)" };
}

/**
 * Parses one wire line (without its terminator; a trailing `\r` is ignored) and classifies it.
 * A blank or non-JSON line is `invalid`. Never throws.
 */
export function parseJsonRpcLine(line: string): ClassifiedJsonRpcMessage {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text.trim() === "") return { kind: "invalid", reason: "blank line" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "invalid", reason: "not JSON" };
  }
  return classifyJsonRpcMessage(value);
}

/** True when a response is an error response. */
export function isJsonRpcErrorResponse(response: JsonRpcResponse): response is JsonRpcErrorResponse {
  return "error" in response;
}

/** Builds a request object `{jsonrpc, id, method, params?}` (params omitted when undefined). */
export function jsonRpcRequest(id: JsonRpcId, method: string, params?: unknown): JsonRpcRequest {
  return params === undefined ? { jsonrpc: JSON_RPC_VERSION, id, method } : { jsonrpc: JSON_RPC_VERSION, id, method, params };
}

/** Builds a notification object `{jsonrpc, method, params?}` (params omitted when undefined). */
export function jsonRpcNotification(method: string, params?: unknown): JsonRpcNotification {
  return params === undefined ? { jsonrpc: JSON_RPC_VERSION, method } : { jsonrpc: JSON_RPC_VERSION, method, params };
}

/** Builds a success response. An undefined result is sent as `null` so the key survives JSON. */
export function jsonRpcResult(id: JsonRpcId, result: unknown): JsonRpcSuccessResponse {
  return { jsonrpc: JSON_RPC_VERSION, id, result: result === undefined ? null : result };
}

/** Builds an error response; `data` is omitted when undefined. */
export function jsonRpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: JSON_RPC_VERSION, id, error };
}

/** The key a recorder or id map uses for an id: `typeof(id):id`, so `1` and `"1"` differ. */
export function jsonRpcIdKey(id: JsonRpcId): string {
  return `${typeof id}:${id}`;
}
