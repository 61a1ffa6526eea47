/**
 * The ACP kit's public surface (docs/design/00-product.md Public API; spec 30 §1.2, §3): the bridge, the launch
 * spec, the probe, the agents and the dialect registry, with their `experimental_` aliases (spec 02 §1).
 */
export { acpProviderBridge, createAcpProviderBridge, experimental_acpProviderBridge } from "./bridge.js";
export { ACP_BRIDGE_DEFAULTS, type AcpBridgeOptions } from "./bridge-runtime.js";
export {
  acpLaunchSpecSchema,
  acpLaunchSpecSchema as experimental_acpLaunchSpecSchema,
  acpModelCliSchema,
  acpNativeReasoningSchema,
  acpPermissionCliSchema,
  acpReasoningCliSchema,
  AcpLaunchSpecError,
  normalizeAcpLaunchSpec,
  parseAcpLaunchSpec,
  type AcpAgentProfile,
  type AcpLaunchSpec,
  type AcpLaunchSpecInput,
} from "./agents/launch-spec.js";
export {
  acpAgentProbeSchema,
  acpAgentProbeSchema as experimental_acpAgentProbeSchema,
  probeAcpAgent,
  probeAcpAgent as experimental_probeAcpAgent,
  type AcpAgentProbe,
  type AcpProbeLaunch,
  type AcpProbeRequest,
} from "./agents/probe.js";
export {
  createIsolatedHome,
  dialectChildEnv,
  dialectOfflineEnv,
  ensureIsolatedHome,
  isolatedHomeDirs,
  OPENCODE_OFFLINE_ENV,
  type IsolatedHome,
  type IsolatedHomeEnv,
} from "./agents/agent-isolation.js";
export type { AcpFsScope } from "./interaction/fs-scope.js";
export { ACP_AGENT_FAMILY, shippedAcpAgents, reservedAcpProviderIds, type AcpAgentDefinition, type AcpBridgeOptions as AcpAgentBridgeOptions } from "./agents/agents.js";
export { listAcpAgents, resolveCustomAcpAgents, CUSTOM_AGENT_GLYPH, type CustomAcpAgentsResult } from "./agents/custom-agents.js";
export {
  registerAcpDialect,
  registerAcpDialect as experimental_registerAcpDialect,
  selectAcpDialect,
  type AcpDialect,
  type AcpToolIdentity,
  type AcpClassifiedToolCall,
  type AcpClientRequestOutcome,
  type AcpDelegationReport,
} from "./dialects/index.js";
