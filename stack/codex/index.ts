/** The native Codex bridge (spec 60 "Codex"): `codex app-server` behind the provider-bridge protocol. */
export { createCodexBridge, codexRequestHandlers, CODEX_CAPABILITIES, CODEX_PROVIDER_ID, CODEX_DEFAULT_TIMEOUTS, type CodexBridgeOptions } from "./bridge.js";
export { CODEX_LAUNCH_OPTION } from "./launch-option.js";
export { CODEX_COMMAND_ENV, CODEX_ARGS_ENV, resolveCodexLaunch, codexPolicy, turnOverrides, type CodexLaunch } from "./launch.js";
export { CodexTranslator, IGNORED_NOTIFICATIONS, errorInfoOf } from "./translate.js";
export { unwrapShellCommand, unifiedDiff, itemShape } from "./items.js";
export { codexDecision, approvalPayload } from "./approvals.js";
export { codexInput, recoveryOf, CODEX_CLIENT_INFO } from "./sessions.js";
