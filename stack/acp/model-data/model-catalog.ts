/**
 * Groups a CLI model list into model families with reasoning levels (spec 20 §3.11).
 *
 * Per raw id: a trailing `-fast` marks the fast tier; a `-thinking` suffix or `-thinking-` infix marks
 * a thinking variant; a trailing effort token (checked in the order `extra-high`→xhigh, `medium`,
 * `xhigh`, `high`, `low`, `max`, `none`) gives the level (none → medium); the rest is the family key.
 * In a family with a thinking variant, non-thinking variants collapse to level `none`. Each level
 * keeps one normal and one fast id. The family's default variant is the first non-fast at medium,
 * else the first not at `none`, else the first; its raw id is the family id.
 */
import * as z from "zod";
import { ACP_REASONING_LEVELS, type AcpReasoningLevel } from "../agents/launch-spec.js";

/**
 * The model options an agent definition adds beside `acpLaunchSpec` in `providerOptions`
 * (spec 30 §2.1 `experimental_bridgeOptions`): `parameterizedModelPicker` (Cursor's picker: the
 * parameterized catalog, native selection and the client capability `_meta`), bridge-level
 * `primaryModels` (parameterized bases: the primaries of that catalog, before
 * `modelCli.primaryModels`) and `reasoningProbePriorityModelIds` (the reasoning probes' order).
 * Lenient: a malformed value is ignored, as the runtime may send options this bridge does not read.
 */
export const acpModelProviderOptionsSchema = z.looseObject({
  acpDialect: z.string().optional().catch(undefined),
  parameterizedModelPicker: z.boolean().optional().catch(undefined),
  primaryModels: z.array(z.string()).optional().catch(undefined),
  reasoningProbePriorityModelIds: z.array(z.string()).optional().catch(undefined),
});

/** The model options of a request's `providerOptions`, defaults filled in. */
export interface AcpModelProviderOptions {
  acpDialect: string | undefined;
  parameterizedModelPicker: boolean;
  /** Undefined when the request names none (then `modelCli.primaryModels` applies). */
  primaryModels: string[] | undefined;
  reasoningProbePriorityModelIds: string[];
}

/** Reads {@link AcpModelProviderOptions} from `providerOptions` (absent or not an object → defaults). Never throws. */
export function readModelProviderOptions(providerOptions: unknown): AcpModelProviderOptions {
  const parsed = acpModelProviderOptionsSchema.safeParse(providerOptions ?? {});
  const o = parsed.success ? parsed.data : {};
  return {
    acpDialect: o.acpDialect,
    parameterizedModelPicker: o.parameterizedModelPicker === true,
    primaryModels: o.primaryModels,
    reasoningProbePriorityModelIds: o.reasoningProbePriorityModelIds ?? [],
  };
}

/** One raw CLI line: id and optional display name. */
export interface RawModel {
  id: string;
  name?: string;
}

/** One reasoning level of a family: its normal and fast raw ids and the first raw name seen. */
export interface ModelLevel {
  level: AcpReasoningLevel;
  id?: string;
  fastId?: string;
  name: string;
}

/** A model family as `model/list` reports it. */
export interface ModelFamily {
  id: string;
  model: string;
  displayName: string;
  description: string;
  supportedReasoningEfforts: Array<{ reasoningEffort: AcpReasoningLevel; description: string }>;
  defaultReasoningEffort: AcpReasoningLevel;
  isDefault: boolean;
  /** Raw ids per level (`normal` and `fast`), for launch-time variant resolution. */
  variants: Partial<Record<AcpReasoningLevel, { id?: string; fastId?: string }>>;
}

const EFFORT_TOKENS: ReadonlyArray<[string, AcpReasoningLevel]> = [
  ["extra-high", "xhigh"],
  ["medium", "medium"],
  ["xhigh", "xhigh"],
  ["high", "high"],
  ["low", "low"],
  ["max", "max"],
  ["none", "none"],
];

interface ParsedId {
  raw: RawModel;
  family: string;
  level: AcpReasoningLevel;
  fast: boolean;
  thinking: boolean;
  hadEffortToken: boolean;
}

/** Splits one raw id into family key, level, tier and thinking flag. */
export function parseModelId(raw: RawModel): ParsedId {
  let rest = raw.id;
  const fast = rest.endsWith("-fast");
  if (fast) rest = rest.slice(0, -"-fast".length);
  let thinking = false;
  if (rest.endsWith("-thinking")) {
    thinking = true;
    rest = rest.slice(0, -"-thinking".length);
  } else if (rest.includes("-thinking-")) {
    thinking = true;
    rest = rest.replace("-thinking-", "-");
  }
  let level: AcpReasoningLevel = "medium";
  let hadEffortToken = false;
  for (const [token, value] of EFFORT_TOKENS) {
    if (rest.endsWith(`-${token}`)) {
      level = value;
      hadEffortToken = true;
      rest = rest.slice(0, -(token.length + 1));
      break;
    }
  }
  return { raw, family: rest, level, fast, thinking, hadEffortToken };
}

const EFFORT_WORDS = /\b(extra high|extra-high|xhigh|medium|high|low|max|none)\b/gi;

/** Cleans a display name: its own effort word, `(NO ZDR)`, `(default)`, `(current)`, the words `1M`/`Thinking`. */
export function cleanDisplayName(name: string, hadEffortToken: boolean): string {
  let out = hadEffortToken ? name.replace(EFFORT_WORDS, "") : name;
  out = out.replace(/\((NO ZDR|default|current)\)/gi, "").replace(/\b(1M|Thinking)\b/g, "");
  return out.replace(/\s+/g, " ").trim();
}

/**
 * Groups raw models into families (see module doc), families in first-seen order, levels in bb
 * ladder order; `isDefault` on the first family.
 */
export function groupModelFamilies(models: ReadonlyArray<RawModel>): ModelFamily[] {
  const byFamily = new Map<string, ParsedId[]>();
  for (const raw of models) {
    const parsed = parseModelId(raw);
    const list = byFamily.get(parsed.family) ?? [];
    list.push(parsed);
    byFamily.set(parsed.family, list);
  }
  const families: ModelFamily[] = [];
  for (const members of byFamily.values()) {
    const anyThinking = members.some((m) => m.thinking);
    const effective = members.map((m) => ({ ...m, originalLevel: m.level, level: anyThinking && !m.thinking ? ("none" as const) : m.level }));
    const levels = new Map<AcpReasoningLevel, ModelLevel>();
    for (const m of effective) {
      const entry = levels.get(m.level) ?? { level: m.level, name: m.raw.name ?? m.raw.id };
      if (m.fast) entry.fastId ??= m.raw.id;
      else entry.id ??= m.raw.id;
      levels.set(m.level, entry);
    }
    // Among non-thinking variants collapsed to `none`, the medium-effort one represents the level.
    const collapsed = levels.get("none");
    if (anyThinking && collapsed) {
      const medium = effective.find((m) => m.level === "none" && !m.thinking && !m.fast && m.originalLevel === "medium");
      const mediumFast = effective.find((m) => m.level === "none" && !m.thinking && m.fast && m.originalLevel === "medium");
      if (medium) collapsed.id = medium.raw.id;
      if (mediumFast) collapsed.fastId = mediumFast.raw.id;
    }
    const nonFast = effective.filter((m) => !m.fast);
    const chosen = nonFast.find((m) => m.level === "medium") ?? effective.find((m) => m.level !== "none") ?? effective[0]!;
    const ordered = ACP_REASONING_LEVELS.filter((level) => levels.has(level));
    const displayName = cleanDisplayName(chosen.raw.name ?? chosen.raw.id, chosen.hadEffortToken);
    families.push({
      id: chosen.raw.id,
      model: chosen.raw.id,
      displayName,
      description: displayName,
      supportedReasoningEfforts: ordered.map((level) => ({ reasoningEffort: level, description: levels.get(level)!.name })),
      defaultReasoningEffort: chosen.level,
      isDefault: families.length === 0,
      variants: Object.fromEntries(
        ordered.map((level) => [level, { ...(levels.get(level)!.id ? { id: levels.get(level)!.id } : {}), ...(levels.get(level)!.fastId ? { fastId: levels.get(level)!.fastId } : {}) }]),
      ),
    });
  }
  return families;
}

/**
 * Splits families by the spec's primary ids (declared order; matched on family id) into
 * `{models, selectedOnlyModels}`; no match → all primary. The default flag is re-anchored to the
 * first primary and cleared elsewhere.
 */
export function splitPrimaryFamilies(families: ModelFamily[], primaryIds: readonly string[]): { models: ModelFamily[]; selectedOnlyModels: ModelFamily[] } {
  const primary = primaryIds.map((id) => families.find((f) => f.id === id)).filter((f): f is ModelFamily => f !== undefined);
  const models = primary.length ? primary : families;
  const rest = primary.length ? families.filter((f) => !primary.includes(f)) : [];
  return {
    models: models.map((f, i) => ({ ...f, isDefault: i === 0 })),
    selectedOnlyModels: rest.map((f) => ({ ...f, isDefault: false })),
  };
}

/** A pinned model resolved to one raw CLI id (spec 20 §2.1, §3.11 "Variant resolution"). */
export interface ResolvedModelVariant {
  /** The raw id to launch with. */
  id: string;
  /** Set when the family has no variant at the wanted level: `id` is then the family id. */
  missingLevel?: AcpReasoningLevel;
}

/**
 * Resolves `model` (a family id, or one of its raw variant ids) through `families` (spec 20 §2.1,
 * §3.11): the level is `want.level`, else the level of the pinned raw id, else the family default;
 * the variant's fast id when `want.fast` and it has one, else its normal id ?? fast id. A family
 * without that level → its family id with `missingLevel`. `undefined` when no family has the id.
 * Pure.
 */
export function resolveModelVariant(families: readonly ModelFamily[], model: string, want: { level?: AcpReasoningLevel | undefined; fast: boolean }): ResolvedModelVariant | undefined {
  const holds = (variant: { id?: string; fastId?: string } | undefined): boolean => variant?.id === model || variant?.fastId === model;
  const family = families.find((f) => f.id === model) ?? families.find((f) => Object.values(f.variants).some(holds));
  if (!family) return undefined;
  const pinnedLevel = family.id === model ? undefined : ACP_REASONING_LEVELS.find((level) => holds(family.variants[level]));
  const level = want.level ?? pinnedLevel ?? family.defaultReasoningEffort;
  const variant = family.variants[level];
  if (!variant) return { id: family.id, missingLevel: level };
  const id = want.fast && variant.fastId ? variant.fastId : (variant.id ?? variant.fastId);
  return id === undefined ? { id: family.id, missingLevel: level } : { id };
}
