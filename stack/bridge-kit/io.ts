/**
 * Bridge io: the bridge's side of the JSON-RPC wire to the runtime (stack/bridge-kit/README.md;
 * spec 20 §1.1, §1.5). It writes results, errors and notifications, and sends its own
 * requests to the runtime in an id space of its own, settling them when `acceptResponse`
 * is handed the runtime's answer.
 */
import { BridgeJsonRpcError } from "../protocol/errors.js";
import { classifyJsonRpcMessage, isJsonRpcErrorResponse, jsonRpcError, jsonRpcNotification, jsonRpcRequest, jsonRpcResult, type JsonRpcId, type JsonRpcResponse } from "../protocol/json-rpc.js";
import { BRIDGE_NOTIFICATION_METHODS } from "../protocol/methods.js";
import { PendingRequests } from "./json-rpc-endpoint.js";

/** Writes one protocol line (no terminator, no embedded newline) to the runtime. */
export type WriteLine = (line: string) => void;

/**
 * The runtime's answer to one bridge request, as `onAnswer` and {@link askRuntime} hand it over:
 * its `result`, or its error response as a {@link BridgeJsonRpcError}.
 */
export type RuntimeAnswer = { ok: true; result: unknown } | { ok: false; error: BridgeJsonRpcError };

/** Options of one `io.request` call. */
export interface BridgeIoRequestOptions {
  /**
   * Aborting drops the pending request, tells the runtime with
   * `notifications/cancelled {requestId}` (spec 30 §6.2) and rejects with the abort reason.
   */
  signal?: AbortSignal;
  /**
   * Called synchronously when the runtime's answer (result or error) is read, in the
   * `acceptResponse` call, before the returned promise settles: where a bridge that acts on the
   * lines of several pipes in read order takes the answer's place (stack/acp/connection/read-order.ts),
   * and where a native bridge acts on it ({@link askRuntime}).
   */
  onAnswer?: (answer: RuntimeAnswer) => void;
}

/** The bridge's JSON-RPC io towards the runtime (stack/bridge-kit/README.md). */
export interface BridgeIo {
  /** Sends `{jsonrpc, id, result}`; an undefined result is sent as null. */
  sendResult(id: JsonRpcId, result: unknown): void;
  /** Sends `{jsonrpc, id, error:{code, message, data?}}`; `data` is omitted when undefined. */
  sendError(id: JsonRpcId, code: number, message: string, data?: unknown): void;
  /** Sends a notification `{jsonrpc, method, params}`. */
  notify(method: string, params?: unknown): void;
  /**
   * Sends a request to the runtime with the next id of this io (1, 2, …) and resolves with
   * the runtime's `result`. Rejects with {@link BridgeJsonRpcError} (the runtime's code,
   * message and data) on an error response, with {@link BridgeIoClosedError} after
   * `rejectPending`, or with the abort reason.
   */
  request<T = unknown>(method: string, params?: unknown, options?: BridgeIoRequestOptions): Promise<T>;
  /**
   * Settles the pending request a runtime response answers. Returns true when `message` was
   * a response to one of this io's pending requests (it is then consumed), false for
   * anything else, which the caller handles as usual. Matching is by numeric id only.
   */
  acceptResponse(message: unknown): boolean;
  /** Rejects every pending request with `error` (the bootstrap calls it when stdin closes). */
  rejectPending(error: Error): void;
  /** Number of requests still waiting for the runtime. */
  readonly pendingCount: number;
}

/** Rejection of a request still pending when the io was closed. */
export class BridgeIoClosedError extends Error {
  constructor(message = "the runtime connection closed before it answered") {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Creates the io of one bridge over `writeLine` (`createBridgeIo`).
 * Every message is one `JSON.stringify` line, so no line can contain a raw newline.
 */
export function createBridgeIo(writeLine: WriteLine): BridgeIo {
  const pending = new PendingRequests<JsonRpcResponse, Error>();
  const write = (message: object) => writeLine(JSON.stringify(message));

  return {
    sendResult(id, result) {
      write(jsonRpcResult(id, result));
    },
    sendError(id, code, message, data) {
      write(jsonRpcError(id, code, message, data));
    },
    notify(method, params) {
      write(jsonRpcNotification(method, params));
    },
    request<T>(method: string, params?: unknown, options: BridgeIoRequestOptions = {}): Promise<T> {
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const id = pending.nextId();
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          if (!pending.forget(id)) return;
          write(jsonRpcNotification(BRIDGE_NOTIFICATION_METHODS.cancelled, { requestId: id }));
          reject(signal?.reason);
        };
        const detach = () => signal?.removeEventListener("abort", onAbort);
        pending.wait(id, {
          answered(response) {
            detach();
            if (isJsonRpcErrorResponse(response)) {
              const { code, message: text, data } = response.error;
              const error = new BridgeJsonRpcError(code, text, data);
              options.onAnswer?.({ ok: false, error });
              reject(error);
            } else {
              options.onAnswer?.({ ok: true, result: response.result });
              resolve(response.result as T);
            }
          },
          closed(error) {
            detach();
            reject(error);
          },
          timedOut: () => undefined,
        });
        signal?.addEventListener("abort", onAbort, { once: true });
        write(jsonRpcRequest(id, method, params));
      });
    },
    acceptResponse(message) {
      const classified = classifyJsonRpcMessage(message);
      if (classified.kind !== "response") return false;
      const { id } = classified.message;
      return typeof id === "number" && pending.answer(id, classified.message);
    },
    rejectPending(error) {
      pending.closeAll(error);
    },
    get pendingCount() {
      return pending.size;
    },
  };
}

/** What {@link askRuntime} hands its `settle`: the runtime's answer, or why there was none. */
export type RuntimeAnswerOrFailure = RuntimeAnswer | { ok: false; error: Error };

/**
 * Sends a request to the runtime (`io.request`) and hands its answer to `settle` exactly once,
 * synchronously in the `acceptResponse` that reads it: a bridge whose reaction writes to its agent
 * (a permission answer) then writes it before any runtime line read after the answer is handled,
 * even one in the same stdin chunk (a `thread/stop`, whose own write is synchronous too). A
 * promise continuation would run only after that later line's synchronous part. When the request
 * fails without an answer (the io closed, `signal` aborted), `settle` gets that error instead, a
 * microtask later. Never throws: a throw of `settle` becomes an unhandled rejection, as it did in
 * a promise continuation, and never breaks the `acceptResponse` that read the answer.
 */
export function askRuntime(io: BridgeIo, method: string, params: unknown, settle: (answer: RuntimeAnswerOrFailure) => void, signal?: AbortSignal): void {
  let settled = false;
  const once = (answer: RuntimeAnswerOrFailure): void => {
    if (settled) return;
    settled = true;
    try {
      settle(answer);
    } catch (error) {
      void Promise.reject(error);
    }
  };
  io.request(method, params, { onAnswer: once, ...(signal ? { signal } : {}) }).catch((error: unknown) => once({ ok: false, error: error instanceof Error ? error : new Error(String(error)) }));
}
