import { describe, expect, it } from "vitest";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError, invalidParamsMessage, unknownMethodMessage } from "../../stack/protocol/errors.js";
import { BridgeRecoveryError, ProviderRecoveryParamsSchema, RECOVERY_KINDS, RecoveryHintSchema, readRecoveryHint, recoveryErrorData } from "../../stack/protocol/recovery.js";

describe("error codes (spec 10 §1.1, spec 30 §4)", () => {
  it("has the protocol's codes", () => {
    expect(BRIDGE_JSON_RPC_ERRORS).toMatchObject({
      invalidParams: -32602,
      methodNotFound: -32601,
      bridgeError: -32000,
      noActiveTurn: -32001,
      notRestorable: -32002,
      forkCheckpointUnsupported: -32003,
      turnBusy: -32004,
    });
  });

  it("formats the reference's messages", () => {
    expect(unknownMethodMessage("thread/archive")).toBe('Unknown method "thread/archive"');
    expect(
      invalidParamsMessage("turn/start", [
        { path: ["input"], message: "Required" },
        { path: [], message: "bad" },
      ]),
    ).toBe('Invalid params for "turn/start": input: Required; params: bad');
  });
});

describe("recovery hints (spec 30 §4)", () => {
  it("has exactly the five kinds", () => {
    expect([...RECOVERY_KINDS].sort()).toEqual(["authRequired", "rateLimited", "restartRecommended", "sessionArchived", "staleTurn"]);
  });

  it("requires a non-empty message and a boolean retryable", () => {
    expect(RecoveryHintSchema.safeParse({ kind: "staleTurn", message: "", retryable: false }).success).toBe(false);
    expect(RecoveryHintSchema.safeParse({ kind: "staleTurn", message: "x" }).success).toBe(false);
    expect(RecoveryHintSchema.safeParse({ kind: "bogus", message: "x", retryable: true }).success).toBe(false);
  });

  it("carries the same payload in error.data.recovery and in provider/recovery", () => {
    const hint = { kind: "authRequired" as const, message: "Sign in first", retryable: false };
    expect(readRecoveryHint(recoveryErrorData(hint))).toEqual(hint);
    expect(ProviderRecoveryParamsSchema.parse({ ...hint, threadId: "t1" })).toEqual({ ...hint, threadId: "t1" });
    expect(ProviderRecoveryParamsSchema.parse(hint)).toEqual(hint);
  });

  it("reads a missing or malformed hint as null", () => {
    expect(readRecoveryHint(undefined)).toBeNull();
    expect(readRecoveryHint({ recovery: { kind: "authRequired" } })).toBeNull();
    expect(readRecoveryHint({ other: 1 })).toBeNull();
  });

  it("BridgeRecoveryError defaults to -32000 and puts the hint in data", () => {
    const error = new BridgeRecoveryError({ message: "No active turn to steer", code: -32001, recovery: { kind: "staleTurn", message: "No active turn to steer", retryable: false } });
    expect(error).toBeInstanceOf(BridgeJsonRpcError);
    expect(error.code).toBe(-32001);
    expect(readRecoveryHint(error.data)?.kind).toBe("staleTurn");
    expect(new BridgeRecoveryError({ message: "m", recovery: { kind: "authRequired", message: "m", retryable: false } }).code).toBe(-32000);
  });
});
