/**
 * The `initialize` handshake, bridge capabilities and grammar negotiation (spec 10 §1.1,
 * spec 20 §1.3, spec 30 §6.1).
 */
import * as z from "zod";

/** Protocol version covering the envelope and method set (spec 10 §1.1). */
export const PROVIDER_BRIDGE_PROTOCOL_VERSION = 2;
/** `thread/delta` grammar version 2 (spec 10 §1.1). */
export const THREAD_DELTA_GRAMMAR_V2 = 2;
/** `thread/delta` grammar version 3 (spec 10 §1.1). */
export const THREAD_DELTA_GRAMMAR_V3 = 3;

/** An inclusive grammar range `[min, max]`: ascending positive integers. */
export const GrammarRangeSchema = z
  .tuple([z.number().int().positive(), z.number().int().positive()])
  .refine(([min, max]) => min <= max, { message: "grammarVersions must be an ascending pair [min, max]" });
/** An inclusive grammar range `[min, max]`. */
export type GrammarRange = readonly [number, number];

/** The grammar range the delta assembler speaks: `[3, 3]` (spec 10 §1.1). */
export const ASSEMBLER_GRAMMAR_VERSIONS: GrammarRange = [THREAD_DELTA_GRAMMAR_V3, THREAD_DELTA_GRAMMAR_V3];

/** What a missing `grammarVersions` reads as, on either side: `[2, 2]` (spec 10 §1.1). */
export const DEFAULT_GRAMMAR_VERSIONS: GrammarRange = [THREAD_DELTA_GRAMMAR_V2, THREAD_DELTA_GRAMMAR_V2];

/**
 * Params of `initialize`: `{protocolVersion: positive int, client: {name, version}
 * (non-empty), grammarVersions?}`. Unknown keys pass through.
 */
export const InitializeParamsSchema = z.looseObject({
  protocolVersion: z.number().int().positive(),
  client: z.looseObject({ name: z.string().min(1), version: z.string().min(1) }),
  grammarVersions: GrammarRangeSchema.optional(),
});
/** Params of `initialize`. */
export type InitializeParams = z.infer<typeof InitializeParamsSchema>;

/** `fork` capability values. */
export const ForkCapabilitySchema = z.enum(["none", "tip", "checkpoint"]);
/** `approvalEnforcedBy` capability values. */
export const ApprovalEnforcedBySchema = z.enum(["runtime", "provider"]);
/** `steerMode` capability values. */
export const SteerModeSchema = z.enum(["inject", "queue"]);

/**
 * Capabilities as sent by a bridge: every key optional, unknown keys pass through
 * (spec 10 §1.1). `fork` is kept as a string so a newer value does not fail the handshake.
 */
export const BridgeCapabilitiesSchema = z.looseObject({
  sessionRestore: z.boolean().optional(),
  threadArchive: z.boolean().optional(),
  threadRename: z.boolean().optional(),
  threadGoalClear: z.boolean().optional(),
  fork: z.string().optional(),
  approvalEnforcedBy: ApprovalEnforcedBySchema.optional(),
  grammarVersions: GrammarRangeSchema.optional(),
  steerMode: SteerModeSchema.optional(),
  skills: z.looseObject({ configure: z.boolean().optional() }).optional(),
});
/** Capabilities as sent by a bridge. */
export type BridgeCapabilities = z.infer<typeof BridgeCapabilitiesSchema>;

/** Capabilities with every default applied (spec 10 §1.1 table; absence means "no"). */
export interface ResolvedBridgeCapabilities {
  sessionRestore: boolean;
  threadArchive: boolean;
  threadRename: boolean;
  threadGoalClear: boolean;
  /** `none`, `tip` or `checkpoint` (or a newer value, passed through). */
  fork: string;
  approvalEnforcedBy: "runtime" | "provider";
  grammarVersions: GrammarRange;
  steerMode: "inject" | "queue";
  /** Whether the bridge accepts `skills/configure` (spec 30 §6.1). */
  skillsConfigure: boolean;
  /** Every capability key as sent, unknown ones included. */
  raw: Record<string, unknown>;
}

/**
 * Result of `initialize`: `{protocolVersion, capabilities}`; a null or missing
 * `capabilities` reads as `{}`. The historical `ok:true` and unknown keys pass through.
 */
export const InitializeResultSchema = z.looseObject({
  protocolVersion: z.number().int().positive(),
  capabilities: BridgeCapabilitiesSchema.nullish().transform((value) => value ?? {}),
});
/** Result of `initialize` after parsing (capabilities never null). */
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

/** Applies the capability defaults of spec 10 §1.1 to what a bridge sent. */
export function resolveBridgeCapabilities(capabilities: BridgeCapabilities | null | undefined): ResolvedBridgeCapabilities {
  const raw = capabilities ?? {};
  return {
    sessionRestore: raw.sessionRestore ?? false,
    threadArchive: raw.threadArchive ?? false,
    threadRename: raw.threadRename ?? false,
    threadGoalClear: raw.threadGoalClear ?? false,
    fork: raw.fork ?? "none",
    approvalEnforcedBy: raw.approvalEnforcedBy ?? "runtime",
    grammarVersions: raw.grammarVersions ?? DEFAULT_GRAMMAR_VERSIONS,
    steerMode: raw.steerMode ?? "queue",
    skillsConfigure: raw.skills?.configure ?? false,
    raw: { ...raw },
  };
}

/** The grammar range of `initialize` params; a missing field reads as `[2, 2]`. */
export function readGrammarRange(source: { grammarVersions?: GrammarRange | undefined } | null | undefined): GrammarRange {
  return source?.grammarVersions ?? DEFAULT_GRAMMAR_VERSIONS;
}

/**
 * Negotiates the grammar version of two inclusive ranges (spec 10 §1.1): `min(maxes)` if it
 * is at least `max(mins)`, else null (the runtime then refuses the bridge).
 * Example: `negotiateGrammar([3,3], [2,2])` is null; `negotiateGrammar([3,3], [2,3])` is 3.
 */
export function negotiateGrammar(a: GrammarRange, b: GrammarRange): number | null {
  const hi = Math.min(a[1], b[1]);
  return hi >= Math.max(a[0], b[0]) ? hi : null;
}
