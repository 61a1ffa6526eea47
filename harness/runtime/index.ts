/**
 * The runtime side that drives a bridge process (harness/runtime/README.md): spawn through
 * the bootstrap, JSON-RPC client, handshake with the grammar gate, provider registry,
 * in-process host and the runtime script driver.
 */
export * from "./channel.js";
export * from "./client-request-id.js";
export * from "./errors.js";
export * from "./handshake.js";
export * from "./in-process.js";
export * from "./json-rpc-client.js";
export * from "./provider-registry.js";
export * from "./cell-driver.js";
export * from "./spawn-bridge.js";
export * from "./start-bridge.js";
