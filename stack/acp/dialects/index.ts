/**
 * ACP dialects (spec 30 §1): the interface, the built-ins, the registry and the selection rule.
 */
export * from "./types.js";
export { genericAcpDialect } from "./acp.js";
export { cursorAcpDialect, handleCursorTask, CURSOR_TASK_METHOD, CURSOR_DEFAULT_TASK_LABEL } from "./cursor.js";
export { grokAcpDialect, grokToolIdentity, grokContextSizeFromSetup, grokContextUsageFromPromptResult, GROK_TOOL_META_KEY, GROK_SUBAGENT_TOOL } from "./grok.js";
export { ompAcpDialect, ompCommandResult, ompCompactionOutcome, ompStreamedCommandOutput, type OmpCompactionOutcome } from "./omp.js";
export {
  opencodeAcpDialect,
  normalizeOpencodeCommandEvent,
  classifyOpencodeTask,
  isOpencodeTaskCall,
  OPENCODE_CHILD_ENV,
  OPENCODE_OFFLINE_ENV,
  OPENCODE_TASK_TOOL,
  OPENCODE_DEFAULT_TASK_LABEL,
} from "./opencode.js";
export { piAcpDialect, classifyPiBash, piCommandResult, piStreamedCommandOutput, PI_BASH_TOOL } from "./pi.js";
export {
  AcpDialectError,
  BUILT_IN_ACP_DIALECTS,
  createAcpDialectRegistry,
  defaultAcpDialectRegistry,
  registerAcpDialect,
  type AcpDialectRegistry,
  type RegisterAcpDialectOptions,
} from "./registry.js";
export { ACP_DIALECT_COMMANDS, resolveAcpDialect, selectAcpDialect, type SelectAcpDialectInput } from "./select.js";
