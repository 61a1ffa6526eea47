import { EXIT_CODES, ParityError } from "../errors.js";

/**
 * Typed errors of the runtime side that drives a bridge process (spec 10 §1.1, §7).
 * Each names the bridge it concerns so a failure in a run of many bridges says which one.
 */

/**
 * The bridge answered a runtime request with a JSON-RPC error object. `code` is the
 * JSON-RPC error code (e.g. −32601 method not found, spec 10 §1.1), `data` the optional
 * `error.data` as sent. Exit code 1: the bridge misbehaved, the user's input was fine.
 */
export class BridgeRpcError extends ParityError {
  /** JSON-RPC `error.code` the bridge sent. */
  readonly rpcCode: number;
  /** JSON-RPC `error.data` the bridge sent, when present. */
  readonly data: unknown;
  /** Method of the request that was refused. */
  readonly method: string;

  constructor(bridge: string, method: string, rpcCode: number, rpcMessage: string, data?: unknown) {
    super("E_BRIDGE_RPC", `bridge ${bridge} answered ${method} with error ${rpcCode}: ${rpcMessage}`, EXIT_CODES.parityFailure);
    this.rpcCode = rpcCode;
    this.data = data;
    this.method = method;
  }
}

/**
 * The bridge's channel closed (process exit, stdin/stdout closed, or `close()`/`kill()`)
 * while a request was still waiting for its answer, or a request was sent after close.
 * `detail` carries the exit code/signal and the stderr tail when known.
 */
export class BridgeClosedError extends ParityError {
  constructor(bridge: string, detail: string) {
    super("E_BRIDGE_CLOSED", `bridge ${bridge} closed: ${detail}`, EXIT_CODES.parityFailure);
  }
}

/**
 * A wait for the bridge ran past its timeout. Timeouts only detect divergence
 * (docs/design/00-product.md, Determinism): the message says what was awaited and for how long (ms).
 */
export class BridgeTimeoutError extends ParityError {
  constructor(bridge: string, awaited: string, timeoutMs: number) {
    super("E_BRIDGE_TIMEOUT", `bridge ${bridge}: no ${awaited} within ${timeoutMs} ms`, EXIT_CODES.parityFailure);
  }
}

/**
 * The runtime refuses the bridge at spawn (spec 02 §3; spec 10 §1.1 Negotiation):
 * its `grammarVersions` range does not include grammar 3 (an absent field reads `[2,2]`),
 * its handshake widens a fact its provider declaration announced, or its `initialize`
 * result does not parse. The message names the bridge and what it reported.
 */
export class BridgeRefusedError extends ParityError {
  constructor(bridge: string, reason: string) {
    super("E_BRIDGE_REFUSED", `bridge ${bridge} refused: ${reason}`, EXIT_CODES.parityFailure);
  }
}

/**
 * A bridge wrote a line longer than the harness's bound (harness/runtime/bridge-process.ts,
 * default 64 MiB) on `lane`. The line is not kept (memory stays bounded) and the bridge is
 * stopped; `bytes` is how many bytes of the line had arrived when it crossed the bound.
 */
export class BridgeLineTooLongError extends ParityError {
  /** The lane the line was written on (`bridge→runtime`). */
  readonly lane: string;
  /** Bytes of the line seen when it crossed the bound (its full length is never read). */
  readonly bytes: number;
  /** The bound, in bytes. */
  readonly maxLineBytes: number;

  constructor(bridge: string, lane: string, bytes: number, maxLineBytes: number) {
    super("E_BRIDGE_LINE_TOO_LONG", `bridge ${bridge} wrote a line on ${lane} longer than ${maxLineBytes} bytes (${bytes} bytes of it read); the bridge was stopped`, EXIT_CODES.parityFailure);
    this.lane = lane;
    this.bytes = bytes;
    this.maxLineBytes = maxLineBytes;
  }
}
