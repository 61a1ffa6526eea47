import { describe, expect, it } from "vitest";
import {
  ASSEMBLER_GRAMMAR_VERSIONS,
  GrammarRangeSchema,
  InitializeParamsSchema,
  InitializeResultSchema,
  PROVIDER_BRIDGE_PROTOCOL_VERSION,
  THREAD_DELTA_GRAMMAR_V2,
  THREAD_DELTA_GRAMMAR_V3,
  negotiateGrammar,
  readGrammarRange,
  resolveBridgeCapabilities,
} from "../../stack/protocol/handshake.js";

describe("handshake constants and negotiation (spec 10 §1.1)", () => {
  it("has protocol version 2 and grammar versions 2 and 3", () => {
    expect(PROVIDER_BRIDGE_PROTOCOL_VERSION).toBe(2);
    expect(THREAD_DELTA_GRAMMAR_V2).toBe(2);
    expect(THREAD_DELTA_GRAMMAR_V3).toBe(3);
    expect(ASSEMBLER_GRAMMAR_VERSIONS).toEqual([3, 3]);
  });

  it("negotiates min(maxes) when it is at least max(mins)", () => {
    expect(negotiateGrammar([3, 3], [3, 3])).toBe(3);
    expect(negotiateGrammar([3, 3], [2, 3])).toBe(3);
    expect(negotiateGrammar([2, 5], [1, 4])).toBe(4);
    expect(negotiateGrammar([3, 3], [2, 2])).toBeNull();
    expect(negotiateGrammar([4, 6], [3, 3])).toBeNull();
  });

  it("reads a missing grammarVersions as [2,2], which the assembler refuses", () => {
    const params = InitializeParamsSchema.parse({ protocolVersion: 2, client: { name: "bb", version: "1.0.0" } });
    expect(readGrammarRange(params)).toEqual([2, 2]);
    expect(negotiateGrammar(ASSEMBLER_GRAMMAR_VERSIONS, readGrammarRange(params))).toBeNull();
  });

  it("accepts only ascending pairs of positive integers", () => {
    expect(GrammarRangeSchema.safeParse([3, 3]).success).toBe(true);
    expect(GrammarRangeSchema.safeParse([3, 2]).success).toBe(false);
    expect(GrammarRangeSchema.safeParse([0, 3]).success).toBe(false);
    expect(GrammarRangeSchema.safeParse([2.5, 3]).success).toBe(false);
    expect(GrammarRangeSchema.safeParse([3]).success).toBe(false);
  });

  it("requires a non-empty client name and version", () => {
    expect(InitializeParamsSchema.safeParse({ protocolVersion: 2, client: { name: "", version: "1" } }).success).toBe(false);
    expect(InitializeParamsSchema.safeParse({ protocolVersion: 0, client: { name: "a", version: "1" } }).success).toBe(false);
  });

  it("reads null or missing capabilities as {} and applies the defaults", () => {
    for (const capabilities of [null, undefined]) {
      const result = InitializeResultSchema.parse({ protocolVersion: 2, capabilities });
      expect(result.capabilities).toEqual({});
      const resolved = resolveBridgeCapabilities(result.capabilities);
      expect(resolved).toMatchObject({
        sessionRestore: false,
        threadArchive: false,
        threadRename: false,
        threadGoalClear: false,
        fork: "none",
        approvalEnforcedBy: "runtime",
        grammarVersions: [2, 2],
        steerMode: "queue",
        skillsConfigure: false,
      });
    }
  });

  it("keeps unknown capability keys and the historical ok", () => {
    const result = InitializeResultSchema.parse({
      ok: true,
      protocolVersion: 2,
      capabilities: { fork: "tip", grammarVersions: [3, 3], skills: { configure: true }, futureThing: 7 },
    });
    expect(result.ok).toBe(true);
    const resolved = resolveBridgeCapabilities(result.capabilities);
    expect(resolved.fork).toBe("tip");
    expect(resolved.grammarVersions).toEqual([3, 3]);
    expect(resolved.skillsConfigure).toBe(true);
    expect(resolved.raw.futureThing).toBe(7);
  });
});
