import { BRIDGE_JSON_RPC_ERRORS, unknownMethodMessage } from "../../stack/protocol/errors.js";
import { answerRequestOnce, PendingRequests } from "../../stack/bridge-kit/json-rpc-endpoint.js";
import type { Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { classifyJsonRpcMessage, jsonRpcError, type JsonRpcId } from "../../stack/protocol/json-rpc.js";
import { createListeners, type BridgeChannel } from "./channel.js";
import { BridgeClosedError, BridgeRpcError, BridgeTimeoutError } from "./errors.js";

/** Direction of a line seen by the raw tap, named as the recording lanes name it (spec 10 §4). */
export type TapDirection = "runtime→bridge" | "bridge→runtime";

/** A notification the bridge sent to the runtime (spec 10 §1.1 "Other bridge notifications"). */
export interface BridgeNotification {
  method: string;
  params: unknown;
  /** 1-based index of the carrying line among all lines the bridge wrote (see {@link RpcAnswer}). */
  position: number;
}

/**
 * Answers one bridge→runtime request (`interaction/request`, `item/tool/call`; harness/runtime/README.md;
 * methods.ts). Returns the JSON-RPC `result`; a throw becomes a −32000 error reply whose
 * message is the thrown message.
 */
export type BridgeRequestHandler = (method: string, params: unknown) => unknown;

/** Options of one {@link JsonRpcClient.request} call. */
export interface RequestOptions {
  /** Rejects with {@link BridgeTimeoutError} when no answer arrives within this many ms. Absent: wait until close. */
  timeoutMs?: number;
}

/**
 * The runtime's JSON-RPC 2.0 client over a {@link BridgeChannel} (spec 10 §1.1; spec 02 §2:
 * the two directions number their requests apart). Runtime request ids start
 * at 1 and belong to this client only; bridge→runtime requests carry the bridge's own ids
 * and are answered with those ids.
 */
export interface JsonRpcClient {
  /** The channel's name, used in every error. */
  readonly name: string;
  /**
   * Sends a request and resolves with its `result`.
   *
   * @throws BridgeRpcError when the bridge answers with an error object.
   * @throws BridgeClosedError when the channel ends first (or had already ended).
   * @throws BridgeTimeoutError when `timeoutMs` elapses first.
   */
  request(method: string, params?: unknown, options?: RequestOptions): Promise<unknown>;
  /** Sends a request and returns its id at once; {@link JsonRpcClient.answerOf} waits for the answer. */
  send(method: string, params?: unknown): JsonRpcId;
  /**
   * Resolves with the raw answer (`{result}` or `{error}`) to request `id` sent by this
   * client, or `undefined` when `timeoutMs` (ms) elapses or the channel ends first.
   * Never rejects: conformance needs "no answer" as a value, not an exception.
   */
  answerOf(id: JsonRpcId, timeoutMs: number): Promise<RpcAnswer | undefined>;
  /** Sends a notification (no id, no answer). */
  notify(method: string, params?: unknown): void;
  /** Writes one raw line as is (non-JSON lines, unsolicited responses). */
  sendLine(line: string): void;
  /** Subscribes to bridge notifications, in arrival order. Returns the unsubscribe function. */
  onNotification(listener: (notification: BridgeNotification) => void): () => void;
  /**
   * Sets the handler of bridge→runtime requests. Without one, such requests are answered
   * with −32601 (method not found), as a runtime that does not offer the method would.
   */
  onRequest(handler: BridgeRequestHandler | undefined): void;
  /** Raw line tap: every line in both directions, protocol or not, in order. */
  onLine(tap: (line: string, direction: TapDirection) => void): () => void;
  /** The channel; `close()`/`kill()` end the bridge. */
  readonly channel: BridgeChannel;
}

/** The answer to one runtime request, as the bridge sent it, with its arrival position. */
export type RpcAnswer = { kind: "result"; result: unknown; position: number } | { kind: "error"; error: { code: number; message: string; data?: unknown }; position: number };

type WaitOutcome = { answer: RpcAnswer } | { closed: string } | { timedOut: true };

/**
 * Creates a {@link JsonRpcClient} over `channel`. Lines the bridge writes that are not
 * JSON, or not JSON-RPC, are ignored (spec 02 §2) but
 * still reach the raw tap. Each answer gets a `position`: the 1-based index of the line
 * that carried it among all lines the bridge wrote, so callers can tell what came before it.
 * `scheduler` runs the request timeouts (default the real timers).
 */
export function createJsonRpcClient(channel: BridgeChannel, scheduler?: Scheduler): JsonRpcClient {
  let linesIn = 0;
  let requestHandler: BridgeRequestHandler | undefined;
  const pending = new PendingRequests<RpcAnswer, string>(scheduler ? { scheduler } : {});
  const answers = new Map<JsonRpcId, RpcAnswer>();
  const notificationListeners = createListeners<BridgeNotification>();
  const taps = createListeners<{ line: string; direction: TapDirection }>();

  const write = (line: string) => {
    if (channel.closed) return;
    taps.emit({ line, direction: "runtime→bridge" });
    channel.send(line);
  };

  const answerBridgeRequest = (id: JsonRpcId, method: string, params: unknown) => {
    const handler = requestHandler;
    const send = (response: object) => write(JSON.stringify(response));
    if (!handler) {
      send(jsonRpcError(id, BRIDGE_JSON_RPC_ERRORS.methodNotFound, unknownMethodMessage(method)));
      return;
    }
    void answerRequestOnce(
      id,
      () => handler(method, params),
      send,
      (error) => ({ code: BRIDGE_JSON_RPC_ERRORS.bridgeError, message: error instanceof Error ? error.message : String(error) }),
    );
  };

  const receive = (line: string) => {
    linesIn += 1;
    const position = linesIn;
    taps.emit({ line, direction: "bridge→runtime" });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    const classified = classifyJsonRpcMessage(value);
    switch (classified.kind) {
      case "notification":
        notificationListeners.emit({ method: classified.message.method, params: classified.message.params, position });
        return;
      case "request":
        answerBridgeRequest(classified.message.id, classified.message.method, classified.message.params);
        return;
      case "response": {
        const message = classified.message as { id: JsonRpcId | null; result?: unknown; error?: RpcErrorBody };
        if (message.id === null) return;
        const answer: RpcAnswer = "error" in message && message.error !== undefined ? { kind: "error", error: message.error, position } : { kind: "result", result: message.result, position };
        answers.set(message.id, answer);
        pending.answer(message.id, answer);
        return;
      }
      default:
        return;
    }
  };

  channel.onLine(receive);
  channel.onClose((reason) => pending.closeAll(reason));

  const send = (method: string, params?: unknown): JsonRpcId => {
    const id = pending.nextId();
    write(JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }));
    return id;
  };

  const waitAnswer = (id: JsonRpcId, timeoutMs: number | undefined) =>
    new Promise<WaitOutcome>((resolve) => {
      const known = answers.get(id);
      if (known) return resolve({ answer: known });
      if (channel.closed) return resolve({ closed: "the channel had already ended" });
      pending.wait(id, { answered: (answer) => resolve({ answer }), closed: (reason) => resolve({ closed: reason ?? "ended" }), timedOut: () => resolve({ timedOut: true }) }, timeoutMs);
    });

  return {
    name: channel.name,
    channel,
    send,
    async request(method, params, options = {}) {
      if (channel.closed) throw new BridgeClosedError(channel.name, `cannot send ${method}: the channel had already ended`);
      const id = send(method, params);
      const outcome = await waitAnswer(id, options.timeoutMs);
      answers.delete(id);
      if ("timedOut" in outcome) throw new BridgeTimeoutError(channel.name, `answer to ${method} (id ${id})`, options.timeoutMs ?? 0);
      if ("closed" in outcome) throw new BridgeClosedError(channel.name, `while waiting for the answer to ${method}: ${outcome.closed}`);
      const { answer } = outcome;
      if (answer.kind === "error") {
        throw new BridgeRpcError(channel.name, method, answer.error.code, answer.error.message, answer.error.data);
      }
      return answer.result;
    },
    async answerOf(id, timeoutMs) {
      const outcome = await waitAnswer(id, timeoutMs);
      return "answer" in outcome ? outcome.answer : undefined;
    },
    notify(method, params) {
      write(JSON.stringify(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }));
    },
    sendLine: write,
    onNotification: (listener) => notificationListeners.add(listener),
    onRequest(handler) {
      requestHandler = handler;
    },
    onLine: (tap) => taps.add(({ line, direction }) => tap(line, direction)),
  };
}

interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}
