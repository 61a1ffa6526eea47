/**
 * Error codes of the provider bridge protocol and the typed error that carries one
 * (spec 10 §1.1 error codes, spec 20 §1.1, spec 30 §4).
 */
/**
 * JSON-RPC error codes a bridge answers with (spec 10 §1.1; `turnBusy` from spec 30 §4,
 * defined by the protocol though the ACP bridge never uses it). The first five are JSON-RPC 2.0's
 * own; the ACP bridge answers its agent with the same table (spec 20 §2.5).
 */
export const BRIDGE_JSON_RPC_ERRORS = {
    /** A line that is not JSON. */
    parseError: -32700,
    /** JSON that is not a JSON-RPC request. */
    invalidRequest: -32600,
    /** A handler that threw something other than a JSON-RPC error. */
    internalError: -32603,
    /** Known method, params rejected by its schema. */
    invalidParams: -32602,
    /** No handler for the method. */
    methodNotFound: -32601,
    /** Any other failure of the bridge while serving a request (JSON-RPC's implementation-defined server error). */
    bridgeError: -32000,
    /** `turn/steer` (or a stop) with no turn to act on. */
    noActiveTurn: -32001,
    /** `thread/resume` of a session that cannot be restored. */
    notRestorable: -32002,
    /** `thread/fork` at a checkpoint the bridge cannot fork from. */
    forkCheckpointUnsupported: -32003,
    /** A turn is already running and the bridge will not queue another. */
    turnBusy: -32004,
};
/**
 * A JSON-RPC error as a thrown value, with its numeric `code` and optional `data`.
 *
 * Thrown by a request handler, `runBridgeRequest` answers with exactly this code, message
 * and data. A bridge's own request to the runtime (`io.request`) rejects with one when the
 * runtime answers with an error response.
 */
export class BridgeJsonRpcError extends Error {
    /** The JSON-RPC error code. */
    code;
    /** The error's `data` member; undefined when absent on the wire. */
    data;
    constructor(code, message, data, options) {
        super(message, options);
        this.name = new.target.name;
        this.code = code;
        this.data = data;
    }
}
/** The message of a -32601 reply: `Unknown method "<m>"` (spec 20 §1.1). */
export function unknownMethodMessage(method) {
    return `Unknown method "${method}"`;
}
/**
 * The message of a -32602 reply: `Invalid params for "<m>": <path>: <issue>; …`
 * (spec 20 §1.1). The root path prints as `params`.
 */
export function invalidParamsMessage(method, problems) {
    const parts = problems.map((problem) => {
        const path = problem.path.length ? problem.path.map((part) => String(part)).join(".") : "params";
        return `${path}: ${problem.message}`;
    });
    return `Invalid params for "${method}": ${parts.join("; ")}`;
}
