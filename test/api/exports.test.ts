import { describe, expect, it } from "vitest";
import * as api from "../../index.js";

// docs/design/00-product.md, Public API: the kit's surface (spec 02 §1), each experimental name also under its alias.
const SEED_NAMES = [
  "defineProviderBridge",
  "createBridgeIo",
  "runBridgeRequest",
  "addTokenUsage",
  "sanitizeInheritedChildProcessEnv",
  "recordProviderChildIo",
  "isProviderBridgeRecording",
  "acpProviderBridge",
  "acpLaunchSpecSchema",
  "probeAcpAgent",
  "runBridgeConformance",
  "captureBridgeJsonRpcOutput",
  "createDeltaAssembler",
  "replayRecording",
  "compareParity",
] as const;

describe("package exports", () => {
  it("exports every name of the kit's surface", () => {
    for (const name of SEED_NAMES) expect(api, name).toHaveProperty(name);
  });

  it("exports the experimental_ aliases as the same values", () => {
    const aliased = [
      "defineProviderBridge",
      "recordProviderChildIo",
      "isProviderBridgeRecording",
      "acpProviderBridge",
      "acpLaunchSpecSchema",
      "probeAcpAgent",
      "registerAcpDialect",
      "acpAgentProbeSchema",
      "runBridgeConformance",
      "captureBridgeJsonRpcOutput",
      "createDeltaAssembler",
      "replayRecording",
      "compareParity",
    ];
    const record = api as unknown as Record<string, unknown>;
    for (const name of aliased) expect(record[`experimental_${name}`], name).toBe(record[name]);
  });

  it("carries the protocol constants of spec 10 §1.1", () => {
    expect(api.PROVIDER_BRIDGE_PROTOCOL_VERSION).toBe(2);
    expect(api.THREAD_DELTA_GRAMMAR_V2).toBe(2);
    expect(api.THREAD_DELTA_GRAMMAR_V3).toBe(3);
    expect(api.BRIDGE_JSON_RPC_ERRORS).toMatchObject({
      invalidParams: -32602,
      methodNotFound: -32601,
      bridgeError: -32000,
      noActiveTurn: -32001,
      notRestorable: -32002,
      forkCheckpointUnsupported: -32003,
    });
    expect(api.BRIDGE_REQUEST_METHODS).toMatchObject({ initialize: "initialize" });
  });

  it("assembles a minimal turn through the exported assembler", () => {
    const assembler = api.createDeltaAssembler({ providerId: "echo", entropyPrefix: "t", textDeltaFlushMs: 0, now: () => 0 });
    const events = assembler.assemble({
      threadId: "thr_api",
      deltas: [{ kind: "turn.open" }, { kind: "turn.boundary", status: "completed" }],
    });
    expect(events.map((e) => e.type)).toEqual(["turn/started", "turn/completed"]);
  });
});
