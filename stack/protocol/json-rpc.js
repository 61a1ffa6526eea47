/**
 * The JSON-RPC 2.0 envelope of the provider bridge protocol (spec 10 §1.1, spec 20 §1.1).
 *
 * The wire is line-delimited JSON-RPC 2.0 over stdio with an independent id space per
 * direction. A message is a request or a notification when it carries `method` (a request
 * also carries `id`), and a response when it carries `id` but no `method`. The kind is never
 * inferred from the shape of a result. Unknown envelope keys pass through.
 */
import { z } from "zod";
/** The only `jsonrpc` value the protocol accepts. */
export const JSON_RPC_VERSION = "2.0";
/** A JSON-RPC id: a string or a number. Each direction mints its own ids. */
export const JsonRpcIdSchema = z.union([z.string(), z.number()]);
/** The `error` member of an error response: `{code, message, data?}`. */
export const JsonRpcErrorObjectSchema = z.looseObject({
    code: z.number().int(),
    message: z.string(),
    data: z.unknown().optional(),
});
/** A request: `{jsonrpc:"2.0", id, method, params?}`. */
export const JsonRpcRequestSchema = z.looseObject({
    jsonrpc: z.literal(JSON_RPC_VERSION),
    id: JsonRpcIdSchema,
    method: z.string().min(1),
    params: z.unknown().optional(),
});
/** A notification: `{jsonrpc:"2.0", method, params?}` (no `id`). */
export const JsonRpcNotificationSchema = z.looseObject({
    jsonrpc: z.literal(JSON_RPC_VERSION),
    method: z.string().min(1),
    params: z.unknown().optional(),
});
/** A success response: `{jsonrpc:"2.0", id, result}`. */
export const JsonRpcSuccessResponseSchema = z.looseObject({
    jsonrpc: z.literal(JSON_RPC_VERSION),
    id: JsonRpcIdSchema,
    result: z.unknown(),
});
/**
 * An error response: `{jsonrpc:"2.0", id, error}`. `id` is null only when the request's id
 * could not be read (JSON-RPC 2.0 §5).
 */
export const JsonRpcErrorResponseSchema = z.looseObject({
    jsonrpc: z.literal(JSON_RPC_VERSION),
    id: JsonRpcIdSchema.nullable(),
    error: JsonRpcErrorObjectSchema,
});
function describeIssues(error) {
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
export function classifyJsonRpcMessage(value) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return { kind: "invalid", reason: "a JSON-RPC message must be a JSON object" };
    }
    const record = value;
    if ("method" in record) {
        if (record.id !== undefined) {
            const parsed = JsonRpcRequestSchema.safeParse(value);
            return parsed.success
                ? { kind: "request", message: parsed.data }
                : { kind: "invalid", reason: `invalid request: ${describeIssues(parsed.error)}` };
        }
        const parsed = JsonRpcNotificationSchema.safeParse(value);
        return parsed.success
            ? { kind: "notification", message: parsed.data }
            : { kind: "invalid", reason: `invalid notification: ${describeIssues(parsed.error)}` };
    }
    if ("id" in record) {
        const hasResult = "result" in record;
        const hasError = "error" in record;
        if (hasResult === hasError) {
            return { kind: "invalid", reason: "a response must carry exactly one of result and error" };
        }
        const parsed = hasError ? JsonRpcErrorResponseSchema.safeParse(value) : JsonRpcSuccessResponseSchema.safeParse(value);
        return parsed.success
            ? { kind: "response", message: parsed.data }
            : { kind: "invalid", reason: `invalid response: ${describeIssues(parsed.error)}` };
    }
    return { kind: "invalid", reason: "a JSON-RPC message needs a method (request, notification) or an id (response)" };
}
/**
 * Parses one wire line (without its terminator; a trailing `\r` is ignored) and classifies it.
 * A blank or non-JSON line is `invalid`. Never throws.
 */
export function parseJsonRpcLine(line) {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() === "")
        return { kind: "invalid", reason: "blank line" };
    let value;
    try {
        value = JSON.parse(text);
    }
    catch {
        return { kind: "invalid", reason: "not JSON" };
    }
    return classifyJsonRpcMessage(value);
}
/** True when a response is an error response. */
export function isJsonRpcErrorResponse(response) {
    return "error" in response;
}
/** Builds a request object `{jsonrpc, id, method, params?}` (params omitted when undefined). */
export function jsonRpcRequest(id, method, params) {
    return params === undefined ? { jsonrpc: JSON_RPC_VERSION, id, method } : { jsonrpc: JSON_RPC_VERSION, id, method, params };
}
/** Builds a notification object `{jsonrpc, method, params?}` (params omitted when undefined). */
export function jsonRpcNotification(method, params) {
    return params === undefined ? { jsonrpc: JSON_RPC_VERSION, method } : { jsonrpc: JSON_RPC_VERSION, method, params };
}
/** Builds a success response. An undefined result is sent as `null` so the key survives JSON. */
export function jsonRpcResult(id, result) {
    return { jsonrpc: JSON_RPC_VERSION, id, result: result === undefined ? null : result };
}
/** Builds an error response; `data` is omitted when undefined. */
export function jsonRpcError(id, code, message, data) {
    const error = data === undefined ? { code, message } : { code, message, data };
    return { jsonrpc: JSON_RPC_VERSION, id, error };
}
/** The key a recorder or id map uses for an id: `typeof(id):id`, so `1` and `"1"` differ. */
export function jsonRpcIdKey(id) {
    return `${typeof id}:${id}`;
}
