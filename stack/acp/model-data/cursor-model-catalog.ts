/**
 * Cursor's parameterized model picker (spec 30 §1.1 "cursor: the parameterized model catalog",
 * §6.4): the id grammar `base[key=value,…]` and the CLI catalog re-keyed to parameterized bases.
 *
 * The spec leaves `buildCursorParameterizedModelCatalog`'s internals unspecified; this is OUR
 * design, built from what a Cursor agent shows:
 * - With the picker enabled, Cursor's `session/new` lists `models.availableModels` (and the
 *   `model` config option's values) as parameterized ids: one entry per base, its current
 *   parameters in brackets (`default[]` is Auto). The parameters seen are reasoning (`effort`,
 *   `reasoning`, `thinking`), `context` and the service tier (`fast`).
 * - `--list-models` still prints the older family ids (`cursor-<base>-<effort>`,
 *   `<base>-thinking-<effort>`, `auto`, and for some models a token order that differs from the
 *   base, `<vendor>-<version>-<name>` against `<vendor>-<name>-<version>`).
 *
 * So the catalog is the CLI's families ({@link groupModelFamilies}: efforts and names stay the
 * CLI's), each re-keyed to a base id:
 * 1. the family key loses a `cursor-` prefix (and a leading `Cursor ` of its display name);
 *    `auto` becomes `default`;
 * 2. when the offered base ids are known (from a `session/new` of the same agent), the key maps to
 *    the base it equals, else to the one base whose tokens (split on `-` and `.`) are the same
 *    multiset; a key with no such base, or with two, keeps its own spelling;
 * 3. the first family per base wins; a later family that lands on the same base is dropped;
 * 4. primaries are the bridge-level `primaryModels` (parameterized bases), split as usual
 *    ({@link splitPrimaryFamilies}).
 * A re-keyed id is a base, not a full parameterized id: the parameters are composed at session
 * setup from the reasoning level and the service tier (model-selection.ts).
 */
import { groupModelFamilies, parseModelId, splitPrimaryFamilies, type ModelFamily, type RawModel } from "./model-catalog.js";

/** A parameterized model id split into its base and its ordered `key=value` parameters. */
export interface ParameterizedModelId {
  base: string;
  /** Parameters in the id's order; a parameter without `=` has the value `""`. */
  params: Array<[key: string, value: string]>;
  /** True when the id had a bracket part (even `[]`): composing it again keeps the brackets. */
  bracketed: boolean;
}

/** Splits `base[k=v,…]` (spec 30 §6.4, Cursor's picker); an id without brackets is all base, no parameters. */
export function parseParameterizedModelId(id: string): ParameterizedModelId {
  const match = /^(.*)\[([^[\]]*)\]$/.exec(id);
  if (!match || match[1]!.length === 0) return { base: id, params: [], bracketed: false };
  const params: Array<[string, string]> = [];
  for (const part of match[2]!.split(",")) {
    const entry = part.trim();
    if (!entry) continue;
    const eq = entry.indexOf("=");
    params.push(eq === -1 ? [entry, ""] : [entry.slice(0, eq), entry.slice(eq + 1)]);
  }
  return { base: match[1]!, params, bracketed: true };
}

/** The base of a (possibly) parameterized id: `grok-9[effort=high]` → `grok-9`; a plain id is its own base. */
export function parameterizedBase(id: string): string {
  return parseParameterizedModelId(id).base;
}

/** Composes an id from its parts: `base[k=v,…]` when bracketed or when there are parameters, else `base`. */
export function composeParameterizedModelId(id: ParameterizedModelId): string {
  if (!id.bracketed && id.params.length === 0) return id.base;
  return `${id.base}[${id.params.map(([k, v]) => (v === "" ? k : `${k}=${v}`)).join(",")}]`;
}

const tokenKey = (id: string): string => id.toLowerCase().split(/[-.]/).filter(Boolean).sort().join("\u0000");

/**
 * The base id a CLI family key maps to (module doc steps 1–2): the key without a `cursor-` prefix
 * (`auto` → `default`), then the equal base, else the unique base with the same token multiset.
 * `baseIds` undefined = the offered bases are unknown; the rewritten key is returned.
 */
export function cursorBaseIdFor(familyKey: string, baseIds: readonly string[] | undefined): string {
  let key = familyKey.startsWith("cursor-") ? familyKey.slice("cursor-".length) : familyKey;
  if (key === "auto") key = "default";
  if (!baseIds || baseIds.includes(key)) return key;
  const tokens = tokenKey(key);
  const matches = baseIds.filter((base) => tokenKey(base) === tokens);
  return matches.length === 1 ? matches[0]! : key;
}

/** Inputs of {@link buildCursorParameterizedModelCatalog}. */
export interface CursorCatalogInput {
  /** Parsed CLI lines (`--list-models`), in the CLI's order. */
  models: ReadonlyArray<RawModel>;
  /** Bridge-level `primaryModels` (parameterized bases), in declared order. */
  primaryModels: readonly string[];
  /** The model ids the agent offered on `session/new` (parameterized); undefined when not read. */
  offeredModelIds?: readonly string[] | undefined;
}

/**
 * Builds Cursor's parameterized CLI catalog (module doc; spec 30 §6.4, internals ours):
 * `{models, selectedOnlyModels}` with every family's `id`/`model` a parameterized base.
 * Pure; never throws.
 */
export function buildCursorParameterizedModelCatalog(input: CursorCatalogInput): { models: ModelFamily[]; selectedOnlyModels: ModelFamily[] } {
  const baseIds = input.offeredModelIds ? [...new Set(input.offeredModelIds.map(parameterizedBase))] : undefined;
  const seen = new Set<string>();
  const rekeyed: ModelFamily[] = [];
  for (const family of groupModelFamilies(input.models)) {
    const key = parseModelId({ id: family.id }).family;
    const base = cursorBaseIdFor(key, baseIds);
    if (seen.has(base)) continue;
    seen.add(base);
    const displayName = key.startsWith("cursor-") ? family.displayName.replace(/^Cursor\s+/, "") : family.displayName;
    rekeyed.push({ ...family, id: base, model: base, displayName, description: displayName });
  }
  return splitPrimaryFamilies(rekeyed, input.primaryModels);
}

/**
 * ACP client capabilities with `_meta.parameterizedModelPicker: true` added when the picker is
 * enabled (spec 30 §6.3), merged into an existing `_meta`; `caps` itself when it is not. Pure.
 */
export function withParameterizedPickerMeta<T extends object>(caps: T, enabled: boolean): T {
  if (!enabled) return caps;
  const meta = (caps as { _meta?: unknown })._meta;
  return { ...caps, _meta: { ...(meta && typeof meta === "object" ? meta : {}), parameterizedModelPicker: true } };
}
