/**
 * Declared session options of `model/list` (spec 30 §6.4): the user-selectable options an agent
 * offers on `session/new` (its config options other than the model picker, and its modes), read
 * from a throwaway session (discovery's own, or for a CLI catalog one opened for them) and cached
 * per launch spec for {@link SESSION_OPTIONS_TTL_MS} on the bridge's injected clock. `model/list`
 * attaches them as `sessionOptions` to every model it returns. The same read keeps the model ids
 * the session offered, which Cursor's parameterized catalog keys on (cursor-model-catalog.ts).
 *
 * The keys match what `turn/start` accepts in `options.sessionOptions` (session-options.ts): a
 * config option's id, or `mode` for the agent's modes when no config option is called `mode`.
 */
import { availableModelsOf, configOptionsOf, sessionModesOf } from "./config-options.js";

/** How long a declared-options read stays fresh, in ms (spec 30 §6.4: 60 s). */
export const SESSION_OPTIONS_TTL_MS = 60_000;

/** One choice of a select option. */
export interface DeclaredSessionOptionChoice {
  value: string;
  name: string;
}

/** One user-selectable option the agent declared on `session/new`. */
export interface DeclaredSessionOption {
  /** The key `turn/start` uses in `options.sessionOptions` (config id, or `mode`). */
  id: string;
  name: string;
  /** The agent's option type (`select`, `boolean`, …); modes are `select`. */
  type: string;
  /** The value the fresh session started with (`null` when the agent did not say). */
  currentValue: unknown;
  /** Choices of a select option; absent for other types. */
  options?: DeclaredSessionOptionChoice[];
}

/** One cache entry: what one `session/new` declared, read at `readAt` (ms on the bridge clock). */
export interface SessionOptionsCacheEntry {
  readAt: number;
  options: DeclaredSessionOption[];
  /** The model ids the same result offered ({@link readOfferedModelIds}); Cursor's catalog keys on their bases. */
  offeredModelIds: string[];
}

/** Per-bridge cache of declared options, keyed by {@link sessionOptionsCacheKey}. */
export type SessionOptionsCache = Map<string, SessionOptionsCacheEntry>;

/** The model picker (category or id `model`): `model/list` reports it as models, not as an option. */
function isModelOption(o: { id: string; category: string | undefined }): boolean {
  return o.category === "model" || o.id === "model";
}

/**
 * Reads the user-selectable options of a `session/new` result (lenient: malformed entries are
 * skipped). Config options come first in the agent's order, except the model picker (category or
 * id `model`), which `model/list` already reports as models; then `mode` when modes are offered and
 * no config option already uses that id.
 */
export function readDeclaredSessionOptions(result: unknown): DeclaredSessionOption[] {
  const out: DeclaredSessionOption[] = [];
  for (const o of configOptionsOf(result)) {
    if (isModelOption(o)) continue;
    const type = o.type ?? "select";
    out.push({ id: o.id, name: o.name, type, currentValue: o.currentValue ?? null, ...(type === "select" ? { options: o.choices } : {}) });
  }
  const modes = sessionModesOf(result);
  if (modes && modes.available.length && !out.some((o) => o.id === "mode")) {
    out.push({ id: "mode", name: "Mode", type: "select", currentValue: modes.current, options: modes.available.map((m) => ({ value: m.id, name: m.name })) });
  }
  return out;
}

/**
 * The model ids a `session/new` result offers: `models.availableModels[].modelId`, then values of the
 * `model` config option not already listed, in the agent's order. Lenient; `[]` when none.
 */
export function readOfferedModelIds(result: unknown): string[] {
  const out: string[] = [];
  const add = (id: string): void => {
    if (id.length > 0 && !out.includes(id)) out.push(id);
  };
  for (const m of availableModelsOf(result)) add(m.modelId);
  for (const option of configOptionsOf(result).filter(isModelOption)) for (const choice of option.choices) add(choice.value);
  return out;
}

/** The cache entry of one `session/new` result read at `now` (ms): its declared options and offered model ids. */
export function sessionOptionsEntry(result: unknown, now: number): SessionOptionsCacheEntry {
  return { readAt: now, options: readDeclaredSessionOptions(result), offeredModelIds: readOfferedModelIds(result) };
}

/** The cache key of a launch spec: everything that decides which agent answers (command, args, env, cwd). */
export function sessionOptionsCacheKey(spec: { command: string; args: readonly string[]; env?: Record<string, string> | undefined; cwd?: string | undefined }, cwd: string): string {
  return JSON.stringify([spec.command, spec.args, spec.env ?? {}, spec.cwd ?? cwd]);
}

/** The cache entry for `key` when read less than {@link SESSION_OPTIONS_TTL_MS} before `now` (ms), else `undefined` (a stale entry is dropped). */
export function freshSessionOptions(cache: SessionOptionsCache, key: string, now: number): SessionOptionsCacheEntry | undefined {
  const entry = cache.get(key);
  if (!entry) return undefined;
  if (now - entry.readAt >= SESSION_OPTIONS_TTL_MS || now < entry.readAt) {
    cache.delete(key);
    return undefined;
  }
  return entry;
}
