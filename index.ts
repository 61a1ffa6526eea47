/**
 * Public API of bridge-parity (docs/design/00-product.md, Public API). It mirrors the provider-bridge
 * contract's surface (spec 02 §1) so a bridge written against it runs here: the provider-bridge kit, the
 * ACP kit, and the testing kit. Names marked experimental are also exported with the `experimental_` prefix.
 */

// Protocol: JSON-RPC envelope, runtime methods, errors, recovery, handshake, grammar v3, thread events.
export * from "./stack/protocol/index.js";

// Bridge kit: defineProviderBridge, createBridgeIo, runBridgeRequest, record mode, child env.
export {
  defineProviderBridge,
  experimental_defineProviderBridge,
  PROVIDER_BRIDGE_EXPORT_NAME,
  createBridgeIo,
  runBridgeRequest,
  addTokenUsage,
  sanitizeInheritedChildProcessEnv,
  recordProviderChildIo,
  experimental_recordProviderChildIo,
  isProviderBridgeRecording,
  experimental_isProviderBridgeRecording,
  createBridgeHost,
  createRealScheduler,
} from "./stack/bridge-kit/index.js";
export type { BridgeContext, BridgeIo, ProviderBridge, Scheduler, ScheduledHandle, ScheduleOptions } from "./stack/bridge-kit/index.js";

// ACP kit.
export { acpProviderBridge } from "./stack/acp/bridge.js";
export { acpLaunchSpecSchema } from "./stack/acp/agents/launch-spec.js";
export { probeAcpAgent } from "./stack/acp/agents/probe.js";
export { registerAcpDialect, selectAcpDialect, resolveAcpDialect } from "./stack/acp/dialects/index.js";
export type { AcpDialect, AcpToolIdentity, AcpClassifiedToolCall, AcpClientRequestOutcome, AcpDelegationReport, AcpDialectMaintenance } from "./stack/acp/dialects/index.js";
export type { AcpLaunchSpec, AcpAgentProfile } from "./stack/acp/agents/launch-spec.js";
export { acpAgentProbeSchema, type AcpAgentProbe } from "./stack/acp/agents/probe.js";
export { describeAcpSignIn } from "./stack/acp/connection/recovery.js";
export { planAcpElicitation } from "./stack/acp/interaction/elicitation-plan.js";
export { buildCursorParameterizedModelCatalog } from "./stack/acp/model-data/cursor-model-catalog.js";
export { CURSOR_ACP_MAINTENANCE } from "./stack/acp/maintenance/cursor.js";
import { acpProviderBridge } from "./stack/acp/bridge.js";
import { acpLaunchSpecSchema } from "./stack/acp/agents/launch-spec.js";
import { acpAgentProbeSchema, probeAcpAgent } from "./stack/acp/agents/probe.js";
import { registerAcpDialect } from "./stack/acp/dialects/index.js";
/** Seed alias of {@link registerAcpDialect} (spec 30 §1.2). */
export const experimental_registerAcpDialect = registerAcpDialect;
/** Seed alias of {@link acpAgentProbeSchema} (spec 30 §3.2). */
export const experimental_acpAgentProbeSchema = acpAgentProbeSchema;
/** Seed alias of {@link acpProviderBridge}. */
export const experimental_acpProviderBridge = acpProviderBridge;
/** Seed alias of {@link acpLaunchSpecSchema}. */
export const experimental_acpLaunchSpecSchema = acpLaunchSpecSchema;
/** Seed alias of {@link probeAcpAgent}. */
export const experimental_probeAcpAgent = probeAcpAgent;

// The echo bridge.
export { createEchoBridge } from "./stack/echo/index.js";

// Testing kit: conformance, the delta assembler and host grammar, replay, parity comparison.
export { runBridgeConformance, captureBridgeJsonRpcOutput } from "./harness/conformance/index.js";
export { createDeltaAssembler } from "./stack/assembler/index.js";
export { createThreadEventGrammar } from "./stack/assembler/index.js";
export { replayRecording } from "./harness/replay/replay-recording.js";
export { compareParity, loadAllowlists } from "./harness/compare/index.js";
export { readRecording, listRecordings } from "./harness/recording/index.js";
export { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "./harness/lanes/index.js";
import { runBridgeConformance, captureBridgeJsonRpcOutput } from "./harness/conformance/index.js";
import { createDeltaAssembler } from "./stack/assembler/index.js";
import { replayRecording } from "./harness/replay/replay-recording.js";
import { compareParity } from "./harness/compare/index.js";
/** Seed alias of {@link runBridgeConformance}. */
export const experimental_runBridgeConformance = runBridgeConformance;
/** Seed alias of {@link captureBridgeJsonRpcOutput}. */
export const experimental_captureBridgeJsonRpcOutput = captureBridgeJsonRpcOutput;
/** Seed alias of {@link createDeltaAssembler}. */
export const experimental_createDeltaAssembler = createDeltaAssembler;
/** Seed alias of {@link replayRecording}. */
export const experimental_replayRecording = replayRecording;
/** Seed alias of {@link compareParity}. */
export const experimental_compareParity = compareParity;
