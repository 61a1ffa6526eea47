/**
 * The bridge kit (docs/design/00-product.md stack/bridge-kit; spec 02 §1, the bridge half of a provider):
 * everything a provider bridge needs besides its provider's own protocol. The bootstrap
 * itself is the separate entry `bootstrap.js` and is not exported.
 */
import { defineProviderBridge } from "./define.js";
import { isProviderBridgeRecording, recordProviderChildIo } from "./record-process.js";

export { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError, type BridgeJsonRpcErrorCode } from "../protocol/errors.js";
export { BridgeRecoveryError, type RecoveryHint, type RecoveryKind } from "../protocol/recovery.js";
export { PROVIDER_BRIDGE_PROTOCOL_VERSION, THREAD_DELTA_GRAMMAR_V2, THREAD_DELTA_GRAMMAR_V3, ASSEMBLER_GRAMMAR_VERSIONS } from "../protocol/handshake.js";
export { BRIDGE_REQUEST_METHODS, BRIDGE_NOTIFICATION_METHODS, BRIDGE_TO_RUNTIME_REQUEST_METHODS } from "../protocol/methods.js";

export * from "./define.js";
export * from "./io.js";
export * from "./run-request.js";
export * from "./usage.js";
export * from "./child-env.js";
export * from "./line-splitter.js";
export * from "./stdout-guard.js";
export * from "./record-scope.js";
export * from "./scheduler.js";
export * from "./recorder.js";
export * from "./record-process.js";
export * from "./host.js";
export * from "./agent-process.js";
export * from "./session-bridge.js";

/** The experimental name of {@link defineProviderBridge} (spec 02 §1). */
export const experimental_defineProviderBridge = defineProviderBridge;
/** The experimental name of {@link recordProviderChildIo} (spec 02 §1). */
export const experimental_recordProviderChildIo = recordProviderChildIo;
/** The experimental name of {@link isProviderBridgeRecording} (spec 02 §1). */
export const experimental_isProviderBridgeRecording = isProviderBridgeRecording;
