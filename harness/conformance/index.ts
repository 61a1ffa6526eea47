/**
 * Conformance (spec 10 §7): the scripted rules, their runner, transports, the capture
 * helper and the report formatter.
 */
export { runBridgeConformance, rulesNotRun, DEFAULT_CONFORMANCE_TIMEOUT_MS, type RunBridgeConformanceOptions } from "./run.js";
export { captureBridgeJsonRpcOutput, type CaptureOptions, type CapturedOutput } from "./capture.js";
export { inProcessTransport, childProcessTransport, type ConformanceTransport } from "./transport.js";
export { CONFORMANCE_RULES, CONFORMANCE_RULE_IDS, type ConformanceReport, type ConformanceResult, type ConformanceRuleId, type ConformanceStatus } from "./rules.js";
export { ConformanceSessionSchema, CONFORMANCE_OPTIONS, CONFORMANCE_THREAD_ID, echoConformanceSession, textInput, type ConformanceSession, type ConformanceSessionInput } from "./session.js";
export { spawnOptions, withLaunchSpec, type BridgeTarget, type BridgeTargetOptions } from "./target.js";
export { formatConformanceText } from "./format.js";
export { ASSEMBLED_EVENT_METHOD } from "./collector.js";
