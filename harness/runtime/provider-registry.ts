import * as z from "zod";
import { ApprovalEnforcedBySchema, ForkCapabilitySchema, GrammarRangeSchema, SteerModeSchema, type GrammarRange, type ResolvedBridgeCapabilities } from "../../stack/protocol/handshake.js";
import { InputError } from "../errors.js";

/**
 * Capability facts a provider declaration announces (spec 02 §3: the handshake may
 * narrow what the declaration announced, never widen it). Booleans and `fork` default
 * as the handshake does (absence means "no", `fork` "none", spec 10 §1.1);
 * `approvalEnforcedBy`, `steerMode` and `grammarVersions` constrain only when announced.
 */
export const DeclaredCapabilitiesSchema = z.strictObject({
  sessionRestore: z.boolean().optional(),
  threadArchive: z.boolean().optional(),
  threadRename: z.boolean().optional(),
  threadGoalClear: z.boolean().optional(),
  fork: ForkCapabilitySchema.optional(),
  approvalEnforcedBy: ApprovalEnforcedBySchema.optional(),
  steerMode: SteerModeSchema.optional(),
  grammarVersions: GrammarRangeSchema.optional(),
});

/** Announced capability facts; see {@link DeclaredCapabilitiesSchema}. */
export type DeclaredCapabilities = z.infer<typeof DeclaredCapabilitiesSchema>;

/**
 * A provider declaration (spec 02 §1): the server-side
 * half of a provider. `id` is the provider id a bridge is spawned with (`echo`,
 * `acp-cursor`), `family` groups providers (all ACP agents share `acp`), `glyph` is an
 * icon name. Unknown keys are refused so a typo is not silently ignored.
 */
export const ProviderDeclarationSchema = z.strictObject({
  id: z.string().min(1),
  displayName: z.string().min(1),
  family: z.string().min(1),
  glyph: z.string().min(1),
  capabilities: DeclaredCapabilitiesSchema.default({}),
});

/** A validated provider declaration. */
export type ProviderDeclaration = z.output<typeof ProviderDeclarationSchema>;
/** What a caller passes to {@link ProviderRegistry.registerProvider} (`capabilities` optional). */
export type ProviderDeclarationInput = z.input<typeof ProviderDeclarationSchema>;

/** Handle returned by a registration; `dispose()` removes it (idempotent). */
export interface ProviderRegistration {
  dispose(): void;
}

/**
 * The providers this runtime knows, by id. An instance, never module state: tests and
 * concurrent runs each hold their own.
 */
export interface ProviderRegistry {
  /**
   * Registers a declaration.
   *
   * @throws InputError when the declaration is malformed (the field is named) or its id
   *   is already registered.
   */
  registerProvider(declaration: ProviderDeclarationInput): ProviderRegistration;
  /** The declaration registered under `id`, if any. */
  get(id: string): ProviderDeclaration | undefined;
  /** Every registered declaration, sorted by id. */
  list(): ProviderDeclaration[];
}

/** Creates an empty {@link ProviderRegistry}. */
export function createProviderRegistry(): ProviderRegistry {
  const byId = new Map<string, ProviderDeclaration>();
  return {
    registerProvider(input) {
      const parsed = ProviderDeclarationSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(declaration)";
        throw new InputError(`provider declaration: field \`${field}\`: ${issue?.message ?? "invalid"}`);
      }
      const declaration = parsed.data;
      if (byId.has(declaration.id)) {
        throw new InputError(`provider declaration: id "${declaration.id}" is already registered`);
      }
      byId.set(declaration.id, declaration);
      let disposed = false;
      return {
        dispose() {
          if (disposed) return;
          disposed = true;
          if (byId.get(declaration.id) === declaration) byId.delete(declaration.id);
        },
      };
    },
    get: (id) => byId.get(id),
    list: () => [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  };
}

/** Order of `fork` values from least to most capable. */
const FORK_ORDER = ["none", "tip", "checkpoint"] as const;

const BOOLEAN_FACTS = ["sessionRestore", "threadArchive", "threadRename", "threadGoalClear"] as const;

function formatRange(range: GrammarRange): string {
  return `[${range[0]},${range[1]}]`;
}

/**
 * Lists every handshake fact that widens what `declaration` announced (spec 02 §3): a
 * boolean the declaration leaves false but the handshake sets, a `fork` beyond the
 * declared one (order none < tip < checkpoint; an unknown value widens unless equal),
 * a different `approvalEnforcedBy`/`steerMode` when one was announced, or a grammar range
 * reaching outside the announced one. Empty when the handshake only narrows or matches.
 * Each entry is one phrase such as `sessionRestore true (declared false)`.
 */
export function findWidenedFacts(declaration: ProviderDeclaration, handshake: ResolvedBridgeCapabilities): string[] {
  const declared = declaration.capabilities;
  const widened: string[] = [];
  for (const fact of BOOLEAN_FACTS) {
    if (handshake[fact] && !(declared[fact] ?? false)) widened.push(`${fact} true (declared false)`);
  }
  const declaredFork = declared.fork ?? "none";
  const rank = (value: string) => FORK_ORDER.indexOf(value as (typeof FORK_ORDER)[number]);
  if (handshake.fork !== declaredFork && (rank(handshake.fork) === -1 || rank(handshake.fork) > rank(declaredFork))) {
    widened.push(`fork "${handshake.fork}" (declared "${declaredFork}")`);
  }
  if (declared.approvalEnforcedBy !== undefined && handshake.approvalEnforcedBy !== declared.approvalEnforcedBy) {
    widened.push(`approvalEnforcedBy "${handshake.approvalEnforcedBy}" (declared "${declared.approvalEnforcedBy}")`);
  }
  if (declared.steerMode !== undefined && handshake.steerMode !== declared.steerMode) {
    widened.push(`steerMode "${handshake.steerMode}" (declared "${declared.steerMode}")`);
  }
  const range = declared.grammarVersions;
  if (range && (handshake.grammarVersions[0] < range[0] || handshake.grammarVersions[1] > range[1])) {
    widened.push(`grammarVersions ${formatRange(handshake.grammarVersions)} (declared ${formatRange(range)})`);
  }
  return widened;
}
