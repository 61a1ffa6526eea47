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

function isModelOption(o: { id?: unknown; category?: unknown }): boolean {
  return o.category === "model" || o.id === "model";
}

function readChoices(raw: unknown): DeclaredSessionOptionChoice[] {
  const out: DeclaredSessionOptionChoice[] = [];
  for (const entry of Array.isArray(raw) ? raw : []) {
    if (!entry || typeof entry !== "object") continue;
    const e = entry as { value?: unknown; name?: unknown; options?: unknown };
    // ACP select options may be grouped: `{group, name, options: [...]}`.
    if (Array.isArray(e.options)) out.push(...readChoices(e.options));
    else if (typeof e.value === "string") out.push({ value: e.value, name: typeof e.name === "string" ? e.name : e.value });
  }
  return out;
}

/**
 * Reads the user-selectable options of a `session/new` result (lenient: malformed entries are
 * skipped). Config options come first in the agent's order, except the model picker (category or
 * id `model`), which `model/list` already reports as models; then `mode` when modes are offered and
 * no config option already uses that id.
 */
export function readDeclaredSessionOptions(result: unknown): DeclaredSessionOption[] {
  const r = (result && typeof result === "object" ? result : {}) as { configOptions?: unknown; modes?: unknown };
  const out: DeclaredSessionOption[] = [];
  for (const option of Array.isArray(r.configOptions) ? r.configOptions : []) {
    if (!option || typeof option !== "object") continue;
    const o = option as { id?: unknown; name?: unknown; type?: unknown; category?: unknown; currentValue?: unknown; options?: unknown };
    if (typeof o.id !== "string" || isModelOption(o)) continue;
    const type = typeof o.type === "string" ? o.type : "select";
    out.push({
      id: o.id,
      name: typeof o.name === "string" ? o.name : o.id,
      type,
      currentValue: o.currentValue ?? null,
      ...(type === "select" ? { options: readChoices(o.options) } : {}),
    });
  }
  const modes = r.modes && typeof r.modes === "object" ? (r.modes as { currentModeId?: unknown; availableModes?: unknown }) : null;
  if (modes && !out.some((o) => o.id === "mode")) {
    const choices = (Array.isArray(modes.availableModes) ? modes.availableModes : [])
      .map((m) => (m && typeof m === "object" ? (m as { id?: unknown; name?: unknown }) : {}))
      .filter((m): m is { id: string; name?: unknown } => typeof m.id === "string")
      .map((m) => ({ value: m.id, name: typeof m.name === "string" ? m.name : m.id }));
    if (choices.length) out.push({ id: "mode", name: "Mode", type: "select", currentValue: typeof modes.currentModeId === "string" ? modes.currentModeId : null, options: choices });
  }
  return out;
}

/**
 * The model ids a `session/new` result offers: `models.availableModels[].modelId`, then values of the
 * `model` config option not already listed, in the agent's order. Lenient; `[]` when none.
 */
export function readOfferedModelIds(result: unknown): string[] {
  const r = (result && typeof result === "object" ? result : {}) as { configOptions?: unknown; models?: unknown };
  const out: string[] = [];
  const add = (id: unknown): void => {
    if (typeof id === "string" && id.length > 0 && !out.includes(id)) out.push(id);
  };
  const models = r.models && typeof r.models === "object" ? (r.models as { availableModels?: unknown }) : {};
  for (const m of Array.isArray(models.availableModels) ? models.availableModels : []) add(m && typeof m === "object" ? (m as { modelId?: unknown }).modelId : undefined);
  for (const option of Array.isArray(r.configOptions) ? r.configOptions : []) {
    if (!option || typeof option !== "object" || !isModelOption(option as { id?: unknown; category?: unknown })) continue;
    for (const choice of readChoices((option as { options?: unknown }).options)) add(choice.value);
  }
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
