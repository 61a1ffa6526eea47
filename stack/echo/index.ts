/** The echo bridge (docs/design/00-product.md `stack/echo/`): the smallest complete provider bridge. */
export { createEchoBridge, echoRequestHandlers, ECHO_CAPABILITIES, ECHO_PROVIDER_ID, type EchoBridgeOptions } from "./bridge.js";
export { ECHO_PROVIDER_DECLARATION } from "./declaration.js";
export { createEchoSessions, type EchoSessions, type EchoOutput, type Entropy } from "./sessions.js";
export { ZERO_WORK_PROMPT, HOLD_PROMPT_PREFIX, planPrompt, chunkText, promptText, type PromptPlan } from "./answer.js";
