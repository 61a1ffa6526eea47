/**
 * The provider bridge protocol (docs/design/00-product.md, stack/protocol): JSON-RPC envelope, runtime
 * methods, error codes, recovery hints, handshake and grammar negotiation, grammar-v3 deltas
 * and canonical thread events. The zod schemas here are the single source of truth for both
 * the bridge side and the runtime side.
 */
export * from "./json-rpc.js";
export * from "./errors.js";
export * from "./recovery.js";
export * from "./handshake.js";
export * from "./methods.js";
export * from "./thread-delta.js";
export * from "./thread-events.js";
export * from "./user-question.js";
