import { ECHO_CAPABILITIES, ECHO_PROVIDER_ID } from "./bridge.js";

/**
 * The echo provider's declaration: the server-side half of the provider (spec 02 §1),
 * in the shape the runtime's provider registry
 * accepts (`harness/runtime/provider-registry.ts`). It announces exactly what the echo's
 * handshake reports, so the handshake narrows nothing and widens nothing.
 */
export const ECHO_PROVIDER_DECLARATION = {
  id: ECHO_PROVIDER_ID,
  displayName: "Echo",
  family: "echo",
  glyph: "Repeat",
  capabilities: {
    sessionRestore: ECHO_CAPABILITIES.sessionRestore,
    threadArchive: ECHO_CAPABILITIES.threadArchive,
    threadRename: ECHO_CAPABILITIES.threadRename,
    threadGoalClear: ECHO_CAPABILITIES.threadGoalClear,
    fork: ECHO_CAPABILITIES.fork,
    approvalEnforcedBy: ECHO_CAPABILITIES.approvalEnforcedBy,
    steerMode: ECHO_CAPABILITIES.steerMode,
    grammarVersions: [...ECHO_CAPABILITIES.grammarVersions] as [number, number],
  },
} as const;
