/**
 * The ACP translator (spec 20 §3 as changed by spec 30): ACP `session/update`s and the bridge's
 * internal envelopes → grammar-v3 `ThreadDelta[]`, one instance per session.
 */
export { createAcpTranslator, isTurnOutputUpdate, FS_WRITE_CHANNEL, type AcpTranslator, type AcpTranslatorOptions, type AcpTranslatorActivity, type AcpFsWrite } from "./translator.js";
export { AcpTranslateError, STOP_REASON_STATUS, stopReasonToTurnStatus, ZERO_OUTPUT_WARNING, type CompactionEnd } from "./turns.js";
export { classifyOperation, classifySharedToolCall, genericToolName, type AcpOperation } from "./classify.js";
export { permissionSubject, writeScopeOf, PERMISSION_FALLBACK_ITEM_ID, type AcpPermissionSubject } from "./permission-subject.js";
export { readCommandResult, toolOutputText, boundToolPayload, TOOL_PAYLOAD_MAX_BYTES } from "./output.js";
export { readToolCallFields, mergeToolCall } from "./acp-update-schemas.js";
export { modelErrorInfo, categoryOfHttpStatus, type AgentErrorAnswer } from "./model-error.js";
export { PROVIDER_COMMANDS_EXTENSION, SESSION_OPTIONS_EXTENSION } from "./session-state.js";
export { TURN_OUTPUT_UPDATE_KINDS, isWhitespaceOnlyChunk } from "./session-updates.js";
export { AcpUpdate, readSessionNotification, type AcpSessionNotification } from "./acp-update.js";
export type { InjectedToolDefinition } from "./injected-tools.js";
