/**
 * Request dispatch for bridges (`runBridgeRequest`; spec 20 §1.1,
 * spec 30 §4): params validated by the method's schema, every request answered or
 * explicitly left to its handler, never silently dropped.
 */
import type { z } from "zod";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError, invalidParamsMessage, unknownMethodMessage } from "../protocol/errors.js";
import { classifyJsonRpcMessage, parseJsonRpcLine, type JsonRpcId, type JsonRpcRequest } from "../protocol/json-rpc.js";
import { BRIDGE_REQUEST_PARAMS_SCHEMAS, isBridgeRequestMethod, type BridgeRequestMethod, type BridgeRequestParams } from "../protocol/methods.js";
import type { BridgeIo } from "./io.js";

/**
 * A request handler. Its return value, when not undefined, is sent as the result. Returning
 * undefined means the handler answers itself through `io` (now or later, e.g. `turn/start`
 * replies once the prompt is written). A throw becomes an error response.
 */
export type BridgeRequestHandlerFn<P = unknown> = (id: JsonRpcId, params: P, request: JsonRpcRequest) => unknown | Promise<unknown>;

/** A handler with its own params schema, replacing the protocol's schema for that method. */
export interface BridgeRequestHandlerSpec<S extends z.ZodType = z.ZodType> {
  params: S;
  handle: BridgeRequestHandlerFn<z.output<S>>;
}

/** Either form of handler. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BridgeRequestHandler = BridgeRequestHandlerFn<any> | BridgeRequestHandlerSpec<any>;

/**
 * Handlers keyed by wire method name. Known methods get their params typed by the protocol
 * schema; other keys (vendor methods) take any handler.
 */
export type BridgeRequestHandlers = {
  [M in BridgeRequestMethod]?: BridgeRequestHandlerFn<BridgeRequestParams<M>> | BridgeRequestHandlerSpec;
} & { readonly [method: string]: BridgeRequestHandler | undefined };

/**
 * What `runBridgeRequest` did: `ignored` (not a request: a notification, response or
 * invalid message; nothing sent), `result` (the handler's value was sent), `deferred` (the
 * handler answers itself), `error` (an error response was sent).
 */
export type BridgeRequestOutcome = "ignored" | "result" | "deferred" | "error";

/** Wraps a handler with an explicit params schema, inferring the handler's params type. */
export function defineRequestHandler<S extends z.ZodType>(params: S, handle: BridgeRequestHandlerFn<z.output<S>>): BridgeRequestHandlerSpec<S> {
  return { params, handle };
}

function isHandlerSpec(handler: BridgeRequestHandler): handler is BridgeRequestHandlerSpec {
  return typeof handler === "object" && handler !== null && typeof handler.handle === "function";
}

function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  return typeof value === "string" ? value : String(value);
}

/**
 * Serves one runtime message (parsed, or a raw line) with `handlers` (spec 20 §1.1):
 * - not a request (including a request without `jsonrpc:"2.0"`): ignored, nothing sent;
 * - no own handler for the method: -32601 `Unknown method "<m>"`;
 * - params rejected by the handler's schema, else the protocol's schema for the method
 *   (no schema for a vendor method: params pass as they are): -32602
 *   `Invalid params for "<m>": <path>: <issue>; …` with `data: {issues}` (zod issues);
 * - handler throws or rejects: a {@link BridgeJsonRpcError} (including `BridgeRecoveryError`)
 *   answers with its own code, message and data; anything else -32000 with its message;
 * - handler returns a value: sent as the result; undefined: the handler answers itself.
 * Never rejects. A handler that answers itself and then throws gets a second (error) reply:
 * do not do that.
 */
export async function runBridgeRequest(io: BridgeIo, message: unknown, handlers: BridgeRequestHandlers): Promise<BridgeRequestOutcome> {
  const classified = typeof message === "string" ? parseJsonRpcLine(message) : classifyJsonRpcMessage(message);
  if (classified.kind !== "request") return "ignored";
  const request = classified.message;
  const { id, method } = request;
  const handler = Object.prototype.hasOwnProperty.call(handlers, method) ? handlers[method] : undefined;
  if (!handler) {
    io.sendError(id, BRIDGE_JSON_RPC_ERRORS.methodNotFound, unknownMethodMessage(method));
    return "error";
  }
  const schema: z.ZodType | undefined = isHandlerSpec(handler) ? handler.params : isBridgeRequestMethod(method) ? BRIDGE_REQUEST_PARAMS_SCHEMAS[method] : undefined;
  let params: unknown = request.params;
  if (schema) {
    const parsed = schema.safeParse(request.params);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({ ...issue, path: issue.path.map((part) => (typeof part === "symbol" ? String(part) : part)) }));
      io.sendError(id, BRIDGE_JSON_RPC_ERRORS.invalidParams, invalidParamsMessage(method, issues), { issues });
      return "error";
    }
    params = parsed.data;
  }
  const handle = (isHandlerSpec(handler) ? handler.handle : handler) as BridgeRequestHandlerFn<unknown>;
  try {
    const value = await handle(id, params, request);
    if (value === undefined) return "deferred";
    io.sendResult(id, value);
    return "result";
  } catch (error) {
    if (error instanceof BridgeJsonRpcError) {
      io.sendError(id, error.code, error.message, error.data);
    } else {
      io.sendError(id, BRIDGE_JSON_RPC_ERRORS.bridgeError, errorMessage(error));
    }
    return "error";
  }
}
