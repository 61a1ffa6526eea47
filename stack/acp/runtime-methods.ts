/**
 * The runtime methods of the ACP bridge (spec 20 §1.2–1.3, spec 30 §6.1): one handler per method,
 * each backed by the module that implements it. Methods not listed here get -32601 from
 * `runBridgeRequest` (the handshake reports them unsupported).
 */
import type { BridgeRequestHandlers } from "../bridge-kit/run-request.js";
import { PROVIDER_BRIDGE_PROTOCOL_VERSION, THREAD_DELTA_GRAMMAR_V3 } from "../protocol/handshake.js";
import type { ThreadForkParams, ThreadResumeParams, ThreadStartParams } from "../protocol/methods.js";
import { ACP_APPROVAL_ENFORCED_BY } from "./interaction/approvals.js";
import type { AcpBridgeRuntime } from "./bridge-runtime.js";
import { maintenanceHostOf, providerHealth, providerInstallationRun, providerInstallationStatus, providerUsage } from "./maintenance-requests.js";
import { listModels } from "./models/model-list.js";
import { ACP_FORK_CAPABILITY, constructSession, type AcpConstructMode } from "./session/session-setup.js";
import { stopThread } from "./session/stop.js";
import { ACP_STEER_MODE, startTurn, steerTurn } from "./session/turns.js";

/**
 * The handshake result (spec 20 §1.3, spec 30 §6.1). Each fact comes from the module that
 * implements it: fork (session-setup), steer mode (turns), approval enforcement (approvals).
 * `sessionRestore` stays false process-wide; per-session restorability rides `sessionRestorable`.
 */
export function acpInitializeResult(): Record<string, unknown> {
  return {
    ok: true,
    protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION,
    capabilities: {
      sessionRestore: false,
      threadArchive: false,
      threadRename: false,
      threadGoalClear: false,
      fork: ACP_FORK_CAPABILITY,
      approvalEnforcedBy: ACP_APPROVAL_ENFORCED_BY,
      grammarVersions: [THREAD_DELTA_GRAMMAR_V3, THREAD_DELTA_GRAMMAR_V3],
      steerMode: ACP_STEER_MODE,
      skills: { configure: true },
    },
  };
}

function construct(rt: AcpBridgeRuntime, params: ThreadStartParams, mode: AcpConstructMode) {
  return constructSession(rt, {
    threadId: params.threadId,
    cwd: params.cwd,
    options: params.options,
    dynamicTools: params.dynamicTools,
    mode,
  });
}

/** The handler table of one bridge instance. */
export function acpRequestHandlers(rt: AcpBridgeRuntime): BridgeRequestHandlers {
  return {
    initialize: () => acpInitializeResult(),
    "model/list": (_id, params) => listModels(rt, params),
    "thread/start": (_id, params: ThreadStartParams) => construct(rt, params, { kind: "start" }),
    "thread/resume": (_id, params: ThreadResumeParams) => construct(rt, params, { kind: "resume", providerThreadId: params.providerThreadId }),
    "thread/fork": (_id, params: ThreadForkParams) =>
      construct(rt, params, {
        kind: "fork",
        sourceProviderThreadId: params.sourceProviderThreadId,
        sourceProviderCheckpointId: params.sourceProviderCheckpointId,
      }),
    "turn/start": async (id, params) => {
      await startTurn(rt, id, params);
      return undefined;
    },
    "turn/steer": (_id, params) => steerTurn(rt, params),
    "thread/stop": (_id, params) => stopThread(rt, params),
    "thread/discard": () => ({ ok: true }),
    "skills/configure": (_id, params) => {
      rt.skills = params.roots.map((root) => ({ id: root.id, path: root.path, skills: root.skills.map((s) => ({ name: s.name, description: s.description })) }));
      return { ok: true };
    },
    "provider/health": (_id, params) => providerHealth(maintenanceHostOf(rt), params),
    "provider/usage": (_id, params) => providerUsage(maintenanceHostOf(rt), params),
    "provider/installation/status": (_id, params) => providerInstallationStatus(maintenanceHostOf(rt), params),
    "provider/installation/run": (_id, params) => providerInstallationRun(maintenanceHostOf(rt), params),
  };
}
